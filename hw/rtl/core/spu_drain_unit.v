// spu_drain_unit -- the second accumulator buffer and the output pipeline.
//
// Drive: load_i (the `st` swap) snapshots every tile's sum (ROWS*COLS*32 bus
// from spu_array) into shadow_q, with the cfg out/shift/round/relu and the
// destination (base_i, row stride stride_i: aligned, range-checked by the
// sequencer). From the next cycle the unit writes one scratchpad word per
// cycle through we_o/waddr_o/wdata_o/wbe_o for exactly cycles_o cycles =
// ROWS * ceil(COLS*bytes(out)/WORD_BYTES), the figure docs/isa.md charges:
//   out=int8 : one word per row, COLS requantized bytes (spu_requant each);
//   out=int32: ceil(COLS*4/WORD_BYTES) words per row, raw little-endian.
// Rows leave by shifting shadow_q up one row (no ROWS*COLS:1 mux); only the
// int32 word of a row is picked by a small ceil(COLS*4/WORD_BYTES):1 select.
// busy_o: a write happens this cycle. free_o: at most this cycle's write and
// the next are left, i.e. a waiting st/sync/halt may complete now (its cost
// rule: wait = max(0, drain_free - T)): spu_core loads the drain one cycle
// after st's EXEC, so the writes run one cycle behind the model's drain_free,
// and nothing can read them earlier (the next st loads, the next mm reads,
// the host accesses at the earliest one cycle after the last write). load_i
// may coincide with the last write.
`default_nettype none
module spu_drain_unit #(
    parameter integer ROWS       = 8,
    parameter integer COLS       = 8,
    parameter integer WORD_BYTES = 8,
    parameter integer AW         = 18,
    parameter integer OFF        = $clog2(WORD_BYTES)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    load_i,
    input  wire [ROWS*COLS*32-1:0] acc_i,
    input  wire [3:0]              out_i,      // DT_INT8 | DT_INT32
    input  wire [4:0]              shift_i,
    input  wire [1:0]              round_i,
    input  wire                    relu_i,
    input  wire [AW-1:0]           base_i,
    input  wire [AW-1:0]           stride_i,
    output wire [15:0]             cycles_o,   // drain length for out_i
    output wire                    busy_o,
    output wire                    free_o,
    output wire                    we_o,
    output wire [AW-OFF-1:0]       waddr_o,    // word address
    output wire [WORD_BYTES*8-1:0] wdata_o,
    output wire [WORD_BYTES-1:0]   wbe_o
);
`include "spu_isa.vh"
    localparam integer WB    = WORD_BYTES;
    localparam integer RB32  = COLS * 4;                  // bytes of an int32 row
    localparam integer CH32  = (RB32 + WB - 1) / WB;      // words per int32 row
    localparam integer CHW   = (CH32 > 1) ? $clog2(CH32) : 1;
    localparam integer D8    = ROWS;                      // COLS <= WORD_BYTES
    localparam integer D32   = ROWS * CH32;
    localparam integer RW    = $clog2(D32 + 1);
    localparam [15:0]  D8_16  = D8[15:0];
    localparam [15:0]  D32_16 = D32[15:0];
    localparam integer CH32M1 = CH32 - 1;
    localparam [CHW-1:0] CH_LAST = CH32M1[CHW-1:0];
    localparam integer RBITS = COLS * 32;

    assign cycles_o = (out_i == DT_INT32) ? D32_16 : D8_16;

    reg [ROWS*COLS*32-1:0] shadow_q;
    reg [RW-1:0]           rem_q;
    reg [CHW-1:0]          chunk_q;
    reg [AW-OFF-1:0]       row_q, stride_q;   // word addresses (aligned)
    reg                    is32_q, relu_q;
    reg [4:0]              shift_q;
    reg [1:0]              round_q;

    wire   writing = (rem_q != {RW{1'b0}});   // a word is formed this cycle
    assign free_o = (rem_q <= {{(RW-2){1'b0}}, 2'd2});
    // the word leaves through a register (timing: requantizer -> EBR); the
    // scratchpad write is one cycle after the word is formed, which the
    // one-cycle-late swap already allows for (spu_core): an mm after the
    // waiting sync/halt reads two cycles after the last write at the earliest
    reg                    we_q;
    reg [AW-OFF-1:0]       waddr_q;
    reg [WORD_BYTES*8-1:0] wdata_q;
    reg [WORD_BYTES-1:0]   wbe_q;
    assign busy_o = writing || we_q;
    assign we_o   = we_q;

    wire [RBITS-1:0] front = shadow_q[RBITS-1:0];
    wire row_done = !is32_q || (chunk_q == CH_LAST);

    always @(posedge clk_i) begin
        if (rst_i) begin
            rem_q   <= {RW{1'b0}};
            chunk_q <= {CHW{1'b0}};
            row_q   <= {(AW-OFF){1'b0}};
            is32_q  <= 1'b0;
            relu_q  <= 1'b0;
            shift_q <= 5'd0;
            round_q <= 2'd0;
        end else if (load_i) begin
            rem_q   <= (out_i == DT_INT32) ? D32[RW-1:0] : D8[RW-1:0];
            chunk_q <= {CHW{1'b0}};
            row_q   <= base_i[AW-1:OFF];
            is32_q  <= (out_i == DT_INT32);
            relu_q  <= relu_i;
            shift_q <= shift_i;
            round_q <= round_i;
        end else if (writing) begin
            rem_q <= rem_q - {{(RW-1){1'b0}}, 1'b1};
            if (row_done) begin
                chunk_q <= {CHW{1'b0}};
                row_q   <= row_q + stride_q;
            end else begin
                chunk_q <= chunk_q + {{(CHW-1){1'b0}}, 1'b1};
            end
        end
    end

    always @(posedge clk_i) begin
        if (load_i) begin
            shadow_q <= acc_i;
            stride_q <= stride_i[AW-1:OFF];
        end else if (writing && row_done) begin
            shadow_q <= {{RBITS{1'b0}}, shadow_q[ROWS*COLS*32-1:RBITS]};
        end
    end

    // ---- int8: requantize the front row --------------------------------------
    wire [COLS*8-1:0] q8;
    genvar g;
    generate
        for (g = 0; g < COLS; g = g + 1) begin : g_rq
            spu_requant u_rq (
                .acc_i(front[g*32 +: 32]), .shift_i(shift_q), .round_i(round_q),
                .relu_i(relu_q), .q_o(q8[g*8 +: 8])
            );
        end
    endgenerate

    // ---- the word written this cycle ------------------------------------------
    // int8: the COLS requantized bytes; int32: word chunk_q of the front row
    // (a CH32:1 select per byte, with constant indices).
    reg [WB*8-1:0] wdata;
    reg [WB-1:0]   wbe;
    integer b, c;
    always @* begin
        wdata = {WB*8{1'b0}};
        wbe   = {WB{1'b0}};
        c     = 0;            // loop variables assigned on every path: no latch
        for (b = 0; b < WB; b = b + 1) begin
            if (is32_q) begin
                for (c = 0; c < CH32; c = c + 1)
                    if ((c * WB + b < RB32) && (chunk_q == c[CHW-1:0])) begin
                        wbe[b] = 1'b1;
                        wdata[b*8 +: 8] = front[((c * WB + b < RB32) ? (c * WB + b) : 0)*8 +: 8];
                    end
            end else if (b < COLS) begin
                wbe[b] = 1'b1;
                wdata[b*8 +: 8] = q8[((b < COLS) ? b : 0)*8 +: 8];
            end
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) we_q <= 1'b0;
        else       we_q <= writing;
        waddr_q <= row_q + {{(AW-OFF-CHW){1'b0}}, chunk_q};
        wdata_q <= wdata;
        wbe_q   <= wbe;
    end
    assign wdata_o = wdata_q;
    assign wbe_o   = wbe_q;
    assign waddr_o = waddr_q;
    wire [2*OFF-1:0] unused_low = {base_i[OFF-1:0], stride_i[OFF-1:0]};   // aligned: zero
endmodule
`default_nettype wire
