// spu_drain_unit -- the second accumulator buffer and the output pipeline.
//
// Drive: cap_i (one bit per tile, the `st` token's diagonal wave, spu_core)
// snapshots that tile's sum (ACC_W bits from spu_array, and its flags when
// ACC_W > 32) into shadow_q in the cycle the tile clears; go_i (the cycle the
// wave reaches the last tile) takes the cfg in/out/shift/round/relu and the
// destination (base_i, row stride stride_i: aligned, range-checked by the
// sequencer). From the next cycle the unit writes one scratchpad word per
// cycle through we_o/waddr_o/wdata_o/wbe_o for exactly cycles_o cycles, the
// figure docs/isa.md charges:
//   ROWS * (COLS / LANES) * ceil(LANES * bytes(out) / WORD_BYTES).
// LANES (a power of two dividing COLS; the INFO record's drain_lanes) is the
// number of accumulators leaving per cycle: a row leaves as COLS/LANES groups
// of LANES elements.
//   out=int8 : one write per group: LANES requantized bytes (one spu_requant
//              each) at byte lane (group * LANES) of the row's word (a row of
//              int8 fits one word, COLS <= WORD_BYTES);
//   out=int32: the group's 4*LANES raw little-endian bytes (the low 32 bits
//              of each accumulator): when that is a
//              word or more, ceil(4*LANES/WORD_BYTES) whole words (a small
//              chunk select); when less, one write at its byte lanes of the
//              row's word (group * 4*LANES) / WORD_BYTES.
//   out=f32  : as int32, each accumulator first rounded to binary32 by a
//              spu_fx2f32 per lane (ACC_W > 32 only): RNE of acc * 2^LSB with
//              LSB = 0 for cfg in=int8 and -32 for the float inputs; a NaN
//              flag, +Inf and -Inf both, or a wrapped sum (ovf) give
//              0x7FC00000, one Inf sign gives that Inf (docs/numerics.md).
// Data reach the byte lanes by plain wiring (every group byte is copied to
// every lane it can land on) and the byte enables pick the lanes. Groups
// leave by shifting shadow_q down LANES elements (no ROWS*COLS:1 mux).
// LANES = COLS (the default) writes a row per cycle; the boards use 1 (one
// requantizer instead of COLS; st's drain takes COLS times longer and runs
// behind the next mm).
// busy_o: a write happens this cycle. free_o: at most this cycle's write and
// the next are left: a waiting sync/halt may complete now, the next st's
// token may launch (its wave captures two cycles later, after the last
// shift; docs/isa.md "Tensor unit" gives the timing).
`default_nettype none
module spu_drain_unit #(
    parameter integer ROWS       = 8,
    parameter integer COLS       = 8,
    parameter integer LANES      = COLS,
    parameter integer WORD_BYTES = 8,
    parameter integer AW         = 18,
    parameter integer ACC_W      = 32,     // accumulator width (spu_array)
    parameter integer OFF        = $clog2(WORD_BYTES)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire [ROWS*COLS-1:0]    cap_i,
    input  wire                    go_i,
    input  wire [ROWS*COLS*ACC_W-1:0] acc_i,
    input  wire [ROWS*COLS*4-1:0]  flags_i,    // {ovf, ninf, pinf, nan} per tile
    input  wire [3:0]              in_i,       // cfg in: the grid of out=f32
    input  wire [3:0]              out_i,      // DT_INT8 | DT_INT32 | DT_F32
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
    localparam integer G     = COLS / LANES;              // groups per row
    localparam integer GW    = (G > 1) ? $clog2(G) : 1;
    localparam integer GB32  = LANES * 4;                 // bytes of an int32 group
    localparam integer WIDE  = (GB32 >= WB) ? 1 : 0;      // int32 group = whole words
    localparam integer CHG   = (GB32 >= WB) ? GB32 / WB : 1;      // words per int32 group
    localparam integer CHW   = (CHG > 1) ? $clog2(CHG) : 1;
    localparam integer PW    = (GB32 >= WB) ? 1 : WB / GB32;      // int32 groups per word
    localparam integer D8    = ROWS * G;
    localparam integer D32   = ROWS * G * CHG;
    localparam integer RW    = $clog2(D32 + 1);
    localparam [15:0]  D8_16  = D8[15:0];
    localparam [15:0]  D32_16 = D32[15:0];
    localparam integer CHGM1 = CHG - 1;
    localparam integer GM1   = G - 1;
    localparam [CHW-1:0] CH_LAST = CHGM1[CHW-1:0];
    localparam [GW-1:0]  G_LAST  = GM1[GW-1:0];
    localparam integer GBITS = LANES * ACC_W;
    localparam integer NBITS = ROWS * COLS * ACC_W;
    localparam integer HAS_F32 = (ACC_W > 32) ? 1 : 0;
    wire out4 = (out_i == DT_INT32) || (out_i == DT_F32);   // 4-byte outputs

    assign cycles_o = out4 ? D32_16 : D8_16;

    reg [NBITS-1:0]        shadow_q;
    reg [RW-1:0]           rem_q;
    reg [CHW-1:0]          chunk_q;            // word of the int32 group (WIDE)
    reg [GW-1:0]           grp_q;              // group of the row
    reg [AW-OFF-1:0]       row_q, stride_q;    // word addresses (aligned)
    reg                    is32_q, relu_q;     // is32_q: a 4-byte out (int32, f32)
    reg                    isf_q, fpin_q;      // out=f32; cfg in a float format
    reg [4:0]              shift_q;
    reg [1:0]              round_q;

    wire   writing = (rem_q != {RW{1'b0}});   // a word is formed this cycle
    // free_o = (rem_q <= 2), kept in a register that follows rem_q's updates
    // (timing: no compare between rem_q and the tensor unit's launch)
    localparam [RW-1:0] R2 = 2;
    localparam [RW-1:0] D32R = D32[RW-1:0], D8R = D8[RW-1:0];
    reg free_q;
    always @(posedge clk_i) begin
        if (rst_i)        free_q <= 1'b1;
        else if (go_i)    free_q <= out4 ? (D32R <= R2) : (D8R <= R2);
        else if (writing) free_q <= ((rem_q >> 2) == {RW{1'b0}});   // rem_q - 1 <= 2
    end
    assign free_o = free_q;
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

    // the front group as LANES 32-bit values: the low 32 bits of each
    // accumulator, or (out=f32) its binary32 rounding
    wire [GBITS-1:0]    frontw = shadow_q[GBITS-1:0];
    wire [LANES*32-1:0] front;
    wire [31:0] grp32 = {{(32-GW){1'b0}}, grp_q};
    wire [31:0] chunk32 = {{(32-CHW){1'b0}}, chunk_q};
    wire grp_done = !is32_q || (chunk_q == CH_LAST);
    wire row_done = grp_done && (grp_q == G_LAST);

    always @(posedge clk_i) begin
        if (rst_i) begin
            rem_q   <= {RW{1'b0}};
            chunk_q <= {CHW{1'b0}};
            grp_q   <= {GW{1'b0}};
            row_q   <= {(AW-OFF){1'b0}};
            is32_q  <= 1'b0;
            isf_q   <= 1'b0;
            fpin_q  <= 1'b0;
            relu_q  <= 1'b0;
            shift_q <= 5'd0;
            round_q <= 2'd0;
        end else if (go_i) begin
            rem_q   <= out4 ? D32[RW-1:0] : D8[RW-1:0];
            chunk_q <= {CHW{1'b0}};
            grp_q   <= {GW{1'b0}};
            row_q   <= base_i[AW-1:OFF];
            is32_q  <= out4;
            isf_q   <= (out_i == DT_F32);
            fpin_q  <= (in_i != DT_INT8);
            relu_q  <= relu_i;
            shift_q <= shift_i;
            round_q <= round_i;
        end else if (writing) begin
            rem_q <= rem_q - {{(RW-1){1'b0}}, 1'b1};
            if (!grp_done) begin
                chunk_q <= chunk_q + {{(CHW-1){1'b0}}, 1'b1};
            end else begin
                chunk_q <= {CHW{1'b0}};
                if (row_done) begin
                    grp_q <= {GW{1'b0}};
                    row_q <= row_q + stride_q;
                end else begin
                    grp_q <= grp_q + {{(GW-1){1'b0}}, 1'b1};
                end
            end
        end
    end

    // per tile: capture (the wave) or shift (writing); never both (an st's
    // token launches only when at most two writes are left, free_o)
    // (the capture loop only in a wave's cycles: simulation speed)
    wire [NBITS-1:0] shifted = {{GBITS{1'b0}}, shadow_q[NBITS-1:GBITS]};
    wire             shift   = writing && grp_done;
    wire             cap_any = |cap_i;
    integer t;
    always @(posedge clk_i) begin
        if (go_i) stride_q <= stride_i[AW-1:OFF];
        if (cap_any) begin
            for (t = 0; t < ROWS * COLS; t = t + 1)
                if (cap_i[t])
                    shadow_q[t*ACC_W +: ACC_W] <= acc_i[t*ACC_W +: ACC_W];
        end else if (shift) begin
            shadow_q <= shifted;
        end
    end

    genvar g;
    generate
        if (HAS_F32 != 0) begin : g_f32
            reg [ROWS*COLS*4-1:0] fshadow_q;
            wire [ROWS*COLS*4-1:0] fshifted = {{(LANES*4){1'b0}}, fshadow_q[ROWS*COLS*4-1:LANES*4]};
            integer ft;
            always @(posedge clk_i)
                if (cap_any) begin
                    for (ft = 0; ft < ROWS * COLS; ft = ft + 1)
                        if (cap_i[ft])
                            fshadow_q[ft*4 +: 4] <= flags_i[ft*4 +: 4];
                end else if (shift) begin
                    fshadow_q <= fshifted;
                end
            for (g = 0; g < LANES; g = g + 1) begin : g_cvt
                wire [3:0]  fl = fshadow_q[g*4 +: 4];   // {ovf, ninf, pinf, nan}
                wire [31:0] f;
                spu_fx2f32 #(.W(ACC_W), .EW(7)) u_cvt (
                    .x_i(frontw[g*ACC_W +: ACC_W]), .e_i(fpin_q ? 7'h60 : 7'h00),   // 2^-32 | 2^0
                    .nan_i(fl[0] | fl[3] | (fl[1] & fl[2])), .inf_i(fl[1] | fl[2]),
                    .inf_sign_i(fl[2]), .f32_o(f)
                );
                assign front[g*32 +: 32] = isf_q ? f : frontw[g*ACC_W +: 32];
            end
        end else begin : g_no_f32
            for (g = 0; g < LANES; g = g + 1) begin : g_lane
                assign front[g*32 +: 32] = frontw[g*ACC_W +: 32];
            end
            wire unused_f = &{1'b0, flags_i, isf_q, fpin_q};
        end
    endgenerate

    // ---- int8: requantize the front group --------------------------------------
    wire [LANES*8-1:0] q8;
    generate
        for (g = 0; g < LANES; g = g + 1) begin : g_rq
            spu_requant u_rq (
                .acc_i(front[g*32 +: 32]), .shift_i(shift_q), .round_i(round_q),
                .relu_i(relu_q), .q_o(q8[g*8 +: 8])
            );
        end
    endgenerate

    // ---- the word written this cycle ------------------------------------------
    // Byte b of the word: int8 takes requantized byte b % LANES, enabled when
    // b is in the group's lanes; int32 takes byte chunk*WB + b of the group
    // (WIDE: a CHG:1 select with constant indices, every byte enabled) or
    // byte b % GB32, enabled when b is in the group's lanes of its word.
    reg [WB*8-1:0] wdata;
    reg [WB-1:0]   wbe;
    integer b, c;
    always @* begin
        wdata = {WB*8{1'b0}};
        wbe   = {WB{1'b0}};
        c     = 0;            // loop variables assigned on every path: no latch
        for (b = 0; b < WB; b = b + 1) begin
            if (is32_q) begin
                if (WIDE != 0) begin
                    for (c = 0; c < CHG; c = c + 1)
                        if (chunk_q == c[CHW-1:0]) begin
                            wbe[b] = 1'b1;
                            wdata[b*8 +: 8] = front[(((c * WB + b) < GB32) ? (c * WB + b) : 0)*8 +: 8];
                        end
                end else begin
                    wbe[b] = ((b / GB32) == (grp32 % PW));
                    wdata[b*8 +: 8] = front[(b % GB32)*8 +: 8];
                end
            end else if (b < COLS) begin
                wbe[b] = ((b / LANES) == grp32);
                wdata[b*8 +: 8] = q8[(b % LANES)*8 +: 8];
            end
        end
    end

    // the word of the row this write goes to: int8 rows are one word; an
    // int32 group is CHG words from word grp*CHG (WIDE) or shares word grp/PW
    wire [31:0] woff32 = !is32_q ? 32'd0
                       : (WIDE != 0) ? grp32 * CHG + chunk32
                       : grp32 / PW;
    wire [AW-OFF-1:0] woff = woff32[AW-OFF-1:0];
    wire [31-(AW-OFF):0] unused_woff = woff32[31:AW-OFF];   // below G*CHG

    always @(posedge clk_i) begin
        if (rst_i) we_q <= 1'b0;
        else       we_q <= writing;
        waddr_q <= row_q + woff;
        wdata_q <= wdata;
        wbe_q   <= wbe;
    end
    assign wdata_o = wdata_q;
    assign wbe_o   = wbe_q;
    assign waddr_o = waddr_q;
    wire [2*OFF-1:0] unused_low = {base_i[OFF-1:0], stride_i[OFF-1:0]};   // aligned: zero
endmodule
`default_nettype wire
