// spu_loop_stack -- the hardware loop stack: DEPTH entries of (start, end,
// remaining count). The sequencer pushes on `loop`, and on every sequential
// step whose next pc equals top end_o it either decrements (dec_i, jump to
// start_o) or pops (pop_i, fall through to end). clear_i empties it (RUN).
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
    output wire [31:0]   count_o
);
    localparam integer SPW = $clog2(DEPTH + 1);     // stack pointer 0..DEPTH
    localparam integer IW  = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam [SPW-1:0] DEPTH_N = DEPTH[SPW-1:0];

    reg [PW-1:0]  start_q [0:DEPTH-1];
    reg [PW-1:0]  end_q   [0:DEPTH-1];
    reg [31:0]    count_q [0:DEPTH-1];
    reg [SPW-1:0] sp_q;                  // number of entries
    integer e;

    wire [SPW-1:0] top_sp = sp_q - {{(SPW-1){1'b0}}, 1'b1};
    wire [IW-1:0]  top    = top_sp[IW-1:0];
    wire [IW-1:0]  nxt    = sp_q[IW-1:0];

    assign empty_o = (sp_q == {SPW{1'b0}});
    assign full_o  = (sp_q == DEPTH_N);
    assign start_o = start_q[top];
    assign end_o   = end_q[top];
    assign count_o = count_q[top];

    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            sp_q <= {SPW{1'b0}};
            for (e = 0; e < DEPTH; e = e + 1) begin
                start_q[e] <= {PW{1'b0}};
                end_q[e]   <= {PW{1'b0}};
                count_q[e] <= 32'd0;
            end
        end else if (push_i) begin
            start_q[nxt] <= push_start_i;
            end_q[nxt]   <= push_end_i;
            count_q[nxt] <= push_count_i;
            sp_q          <= sp_q + {{(SPW-1){1'b0}}, 1'b1};
        end else if (pop_i) begin
            sp_q <= top_sp;
        end else if (dec_i) begin
            count_q[top] <= count_q[top] - 32'd1;
        end
    end
endmodule
`default_nettype wire
