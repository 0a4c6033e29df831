// spu_loop_stack -- the hardware loop stack: DEPTH entries of (start, end,
// remaining count). The sequencer pushes on `loop`, and on every sequential
// step at the top loop's end it either decrements (dec_i, jump to start_o) or
// pops (pop_i, fall through to end). The stack stores the values as given:
// the sequencer gives as `end` the loop's last body pc (end - 1, timing). clear_i empties it (RUN).
// One operation per cycle; full_o means a push would overflow (LOOP_STACK).
`default_nettype none
module spu_loop_stack #(
    parameter integer DEPTH = 4,
    parameter integer PW    = 18     // pc bits kept (imm18 targets)
) (
    input  wire          clk_i,
    input  wire          rst_i,
    input  wire          clear_i,
    input  wire          push_i,
    input  wire [PW-1:0] push_start_i,
    input  wire [PW-1:0] push_end_i,
    input  wire [31:0]   push_count_i,
    input  wire          dec_i,
    input  wire          pop_i,
    output wire          empty_o,
    output wire          full_o,
    output wire [PW-1:0] start_o,
    output wire [PW-1:0] end_o,
    output wire [31:0]   count_o,
    output wire          one_o,          // exactly one entry
    output wire [PW-1:0] start1_o,       // entry below the top (what a pop exposes)
    output wire [PW-1:0] end1_o,
    output wire [31:0]   count1_o
);
    localparam integer SPW = $clog2(DEPTH + 1);     // stack pointer 0..DEPTH
    localparam [SPW-1:0] DEPTH_N = DEPTH[SPW-1:0];
    localparam integer EW = 2 * PW + 32;            // one entry: {start, end, count}

    // A shift stack: entry 0 is the top, so the outputs need no read mux, and
    // every entry bit has its own select LUT in front of its flip-flop (push
    // takes the entry above, pop the one below) -- on the iCE40 the LUT and
    // the flip-flop share one logic cell.
    reg [DEPTH*EW-1:0] e_q;
    reg [SPW-1:0]      sp_q;                 // number of entries
    wire [EW-1:0]      top = e_q[EW-1:0];
    wire [31:0]        top_dec = top[31:0] - 32'd1;
    wire [DEPTH*EW-1:0] pushed = {e_q[(DEPTH-1)*EW-1:0], push_start_i, push_end_i, push_count_i};
    wire [DEPTH*EW-1:0] popped = {{EW{1'b0}}, e_q[DEPTH*EW-1:EW]};

    assign empty_o = (sp_q == {SPW{1'b0}});
    assign full_o  = (sp_q == DEPTH_N);
    assign start_o = top[EW-1 -: PW];
    assign end_o   = top[PW+31 -: PW];
    assign count_o = top[31:0];
    assign one_o   = (sp_q == {{(SPW-1){1'b0}}, 1'b1});
    generate
        if (DEPTH > 1) begin : g_below
            assign start1_o = e_q[2*EW-1 -: PW];
            assign end1_o   = e_q[EW+PW+31 -: PW];
            assign count1_o = e_q[EW+31 : EW];
        end else begin : g_none
            assign start1_o = {PW{1'b0}};
            assign end1_o   = {PW{1'b0}};
            assign count1_o = 32'd0;
        end
    endgenerate

    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            sp_q <= {SPW{1'b0}};
            e_q  <= {DEPTH*EW{1'b0}};
        end else if (push_i) begin
            e_q  <= pushed;
            sp_q <= sp_q + {{(SPW-1){1'b0}}, 1'b1};
        end else if (pop_i) begin
            e_q  <= popped;
            sp_q <= sp_q - {{(SPW-1){1'b0}}, 1'b1};
        end else if (dec_i) begin
            e_q[31:0] <= top_dec;
        end
    end
endmodule
`default_nettype wire
