// spu_drain_unit -- the second accumulator buffer and the output pipeline.
//
// Drive: cap_i (one bit per tile, the `st` token's diagonal wave, spu_core)
// snapshots that tile's sum (ACC_W bits from spu_array's SLOT_W-bit slot of
// the tile, and its flags, the slot's next 4 bits, when ACC_W > 32) into
// shadow_q in the cycle the tile clears; go_i (the cycle the
// wave reaches the last tile) takes the cfg in/out/shift/round/relu/ovf and
// the destination (base_i, row stride stride_i: aligned, range-checked by the
// sequencer). From the next cycle the unit writes one group per cycle through
// we_o/waddr_o/wdata_o/wbe_o for exactly cycles_o cycles, the figure
// docs/isa.md charges for every out:
//   ROWS * (COLS / LANES).
// LANES (a power of two dividing COLS; the INFO record's drain_lanes) is the
// number of accumulators leaving per cycle: a row leaves as COLS/LANES groups
// of LANES elements, each through a spu_output_pipe (bias, relu, one
// rounding to cfg out: docs/numerics.md "Output pipeline").
// Packing (every out size S = 1, 2 or 4 bytes): element j of a row is bytes
// S*j .. S*j+S-1 of the row, little-endian. A group is LANES*S bytes: when
// that is a word or more, LANES*S/WORD_BYTES consecutive whole words in one
// write (WR_WORDS = max(1, LANES*4/WORD_BYTES) words wide: word w of the
// write at waddr_o + w, its bytes at wdata_o[w*WORD_BYTES*8 ..], enables
// wbe_o[w*WORD_BYTES ..]; spu_spad's banks take them in one cycle); when
// less, one write at its byte lanes of the word (group * LANES*S) /
// WORD_BYTES.
// Data reach the byte lanes by plain wiring (every group byte is copied to
// every lane it can land on) and the byte enables pick the lanes. Groups
// leave by shifting shadow_q down LANES elements (no ROWS*COLS:1 mux).
// LANES = COLS (the default) writes a row per cycle; the boards use 1 (one
// output pipe instead of COLS; st's drain takes COLS times longer and runs
// behind the next mm).
// EARLY = 1 (chained streams, spu_core CHAIN): go_i comes when the wave has
// captured row 0 (spu_core), while the later rows are still being captured;
// the groups are then read in place, group n of the block at shadow_q's
// group n (an index, no shift), so a capture never meets a shift. spu_core
// launches the next st's token only when every tile it captures has been
// read and this drain is done (docs/isa.md "Chained streams").
// INPLACE = 1 (spu_core: single-port SPRAM scratchpad, row / column buses, no
// chaining, int8 only -- the iCEBreaker): no shadow_q. There an mm waits for
// the drain (the single-port rule), so the tiles receive no term while it
// runs, and the groups are read in place from acc_i, group n from tiles
// n*LANES .. n*LANES+LANES-1: group 0 straight from its tiles in the go
// cycle, group n >= 1 a cycle early through the tile mux into fetch_q (g_pre
// below), then as before through the requantizer's look-ahead and into the
// front group's register (front_q). rdclr_o clears each tile in the cycle its group is written, instead
// of the wave clearing it at capture; spu_core holds back a zacc wave while
// the drain runs (every tile it would clear is either cleared already or
// cleared when read). Same words, same cycles; the boards' 512-bit shadow
// is most of what it saves (docs/rtl.md "The drain reads the tiles in
// place").
// FETCH0 = 1 (INPLACE with the tiles on a second clock, spu_array FAST):
// group 0 comes through fetch_q as well, fetched in the cycle before go_i
// (pre_go_i), so every read of a tile starts at the tile's flip-flop and
// ends at fetch_q: a path between the two clocks that fits half a cycle.
// The tiles are final by then (spu_core: the wave is 3 cycles long).
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
    parameter integer SLOT_W     = 32,     // bits per tile on acc_i (spu_array)
    parameter integer OFF        = $clog2(WORD_BYTES),
    // words per write: the widest group (int32 / f32 out)
    parameter integer WR_WORDS   = (LANES * 4 > WORD_BYTES) ? LANES * 4 / WORD_BYTES : 1,
    parameter integer EARLY      = 0,      // 1: groups read in place (see above)
    parameter integer INPLACE    = 0,      // 1: no shadow, the tiles read in place (see above; ACC_W = 32)
    parameter integer FETCH0     = 0       // INPLACE: group 0 through fetch_q too (see above)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire [ROWS*COLS-1:0]    cap_i,
    input  wire                    go_i,
    input  wire                    pre_go_i,   // FETCH0: go_i comes next cycle (unless a RESET)
    input  wire [ROWS*COLS*SLOT_W-1:0] acc_i,  // tile t: {flags {ovf, ninf, pinf, nan}, sum} at t*SLOT_W
    input  wire [3:0]              in_i,       // cfg in: the grid of the float outs
    input  wire [3:0]              out_i,      // a DT_* of spu_cfg.def (the decoder checked it)
    input  wire [4:0]              shift_i,
    input  wire [1:0]              round_i,
    input  wire                    relu_i,
    input  wire                    ovf_i,
    // bias registers (`bias`): cleared by RUN; word bias_idx_i of the bias
    // (elements of 4 bytes for cfg in = int8, 8 for a float in) written
    input  wire                    bias_clr_i,
    input  wire                    bias_we_i,
    input  wire [3:0]              bias_idx_i,
    input  wire [WORD_BYTES*8-1:0] bias_word_i,
    input  wire [AW-1:0]           base_i,
    input  wire [AW-1:0]           stride_i,
    output wire [15:0]             cycles_o,   // drain length for out_i
    output wire                    busy_o,
    output wire                    free_o,
    output wire                    we_o,
    output wire [AW-OFF-1:0]       waddr_o,    // word address
    output wire [WR_WORDS*WORD_BYTES*8-1:0] wdata_o,
    output wire [WR_WORDS*WORD_BYTES-1:0]   wbe_o,
    output wire [ROWS*COLS-1:0]    rdclr_o     // INPLACE: the tiles whose group is written this cycle
);
`include "spu_isa.vh"
    localparam integer WB    = WORD_BYTES;
    localparam integer NWB   = WR_WORDS * WB;              // bytes per write
    localparam integer G     = COLS / LANES;              // groups per row
    localparam integer GW    = (G > 1) ? $clog2(G) : 1;
    // drain length: one group per cycle, for every out size
    localparam integer DL    = ROWS * G;
    localparam integer RW    = $clog2(DL + 1);
    localparam [15:0]  DL_16 = DL[15:0];
    localparam integer GM1   = G - 1;
    localparam [GW-1:0]  G_LAST  = GM1[GW-1:0];
    localparam integer GBITS = LANES * ACC_W;
    localparam integer NBITS = ROWS * COLS * ACC_W;
    localparam integer HAS_FP = (ACC_W > 32) ? 1 : 0;
    // element size of out_i: 0 = 1 byte, 1 = 2, 2 = 4
    // (int8-only builds: 1 or 4 bytes, the 2-byte path is not built)
    wire [1:0] szk = ((out_i == DT_INT32) || (out_i == DT_F32)) ? 2'd2
                   : ((HAS_FP != 0) && ((out_i == DT_BF16) || (out_i == DT_F16))) ? 2'd1 : 2'd0;

    assign cycles_o = DL_16;

    genvar g;
    reg [NBITS-1:0]        shadow_q;           // INPLACE = 0 only
    wire [GBITS-1:0]       front_ip;           // INPLACE: the front group's register (g_pre)
    reg [RW-1:0]           rem_q;
    reg [RW-1:0]           gi_q;               // EARLY: the group of the block written next
    reg [GW-1:0]           grp_q;              // group of the row
    reg [AW-OFF-1:0]       row_q, stride_q;    // word addresses (aligned)
    reg [1:0]              sz_q;               // szk of the drain
    reg [3:0]              out_q;
    reg                    relu_q, ovf_q, fpin_q;
    reg [4:0]              shift_q;
    reg [1:0]              round_q;

    // a word is formed this cycle: rem_q != 0, kept in a flip-flop that
    // follows rem_q's updates (timing: no compare in front of the shifts and
    // the int8 lane's look-ahead below)
    reg    writing_q;
    wire   writing = writing_q;
    // free_o = (rem_q <= 2), kept in a register that follows rem_q's updates
    // (timing: no compare between rem_q and the tensor unit's launch)
    localparam [RW-1:0] R2 = 2;
    wire [RW-1:0] rem_go = DL[RW-1:0];
    reg free_q;
    always @(posedge clk_i) begin
        if (rst_i)        free_q <= 1'b1;
        else if (go_i)    free_q <= (rem_go <= R2);
        else if (writing) free_q <= ((rem_q >> 2) == {RW{1'b0}});   // rem_q - 1 <= 2
    end
    assign free_o = free_q;
    // the word leaves through a register (timing: output pipe -> EBR); the
    // scratchpad write is one cycle after the word is formed, which the
    // one-cycle-late swap already allows for (spu_core): an mm after the
    // waiting sync/halt reads two cycles after the last write at the earliest
    reg                    we_q;
    reg [AW-OFF-1:0]       waddr_q;
    reg [NWB*8-1:0]        wdata_q;
    reg [NWB-1:0]          wbe_q;
    assign busy_o = writing || we_q;
    assign we_o   = we_q;

    wire [31:0]         gi32   = {{(32-RW){1'b0}}, gi_q};
    wire [GBITS-1:0]    frontw = (INPLACE != 0) ? front_ip
                               : (EARLY != 0) ? shadow_q[gi32*GBITS +: GBITS] : shadow_q[GBITS-1:0];
    wire [31:0] grp32 = {{(32-GW){1'b0}}, grp_q};
    wire row_done = (grp_q == G_LAST);

    always @(posedge clk_i) begin
        if (rst_i) begin
            writing_q <= 1'b0;
            rem_q   <= {RW{1'b0}};
            gi_q    <= {RW{1'b0}};
            grp_q   <= {GW{1'b0}};
            row_q   <= {(AW-OFF){1'b0}};
            sz_q    <= 2'd0;
            out_q   <= DT_INT8;
            fpin_q  <= 1'b0;
            relu_q  <= 1'b0;
            ovf_q   <= 1'b0;
            shift_q <= 5'd0;
            round_q <= 2'd0;
        end else if (go_i) begin
            writing_q <= (rem_go != {RW{1'b0}});
            rem_q   <= rem_go;
            gi_q    <= {RW{1'b0}};
            grp_q   <= {GW{1'b0}};
            row_q   <= base_i[AW-1:OFF];
            sz_q    <= szk;
            out_q   <= out_i;
            fpin_q  <= (in_i != DT_INT8);
            relu_q  <= relu_i;
            ovf_q   <= ovf_i;
            shift_q <= shift_i;
            round_q <= round_i;
        end else if (writing) begin
            writing_q <= (rem_q != {{(RW-1){1'b0}}, 1'b1});
            rem_q <= rem_q - {{(RW-1){1'b0}}, 1'b1};
            gi_q  <= gi_q + {{(RW-1){1'b0}}, 1'b1};
            if (row_done) begin
                grp_q <= {GW{1'b0}};
                row_q <= row_q + stride_q;
            end else begin
                grp_q <= grp_q + {{(GW-1){1'b0}}, 1'b1};
            end
        end
    end

    // per tile: capture (the wave) or shift (writing); never both (an st's
    // token launches only when at most two writes are left, free_o)
    // (the capture loop only in a wave's cycles, the shift written in its
    // branch, not as a wire: a Verilated model computes a wire every clock)
    wire             shift   = writing && (EARLY == 0);
    wire             cap_any = |cap_i;
    always @(posedge clk_i)
        if (go_i) stride_q <= stride_i[AW-1:OFF];
    generate
        if (INPLACE == 0) begin : g_shadow
            integer t;
            always @(posedge clk_i) begin
                if (cap_any) begin
                    for (t = 0; t < ROWS * COLS; t = t + 1)
                        if (cap_i[t])
                            shadow_q[t*ACC_W +: ACC_W] <= acc_i[t*SLOT_W +: ACC_W];
                end else if (shift) begin
                    shadow_q <= {{GBITS{1'b0}}, shadow_q[NBITS-1:GBITS]};
                end
            end
            assign rdclr_o = {(ROWS*COLS){1'b0}};
        end else begin : g_inplace
            always @(*) shadow_q = {NBITS{1'b0}};
            for (g = 0; g < ROWS * COLS; g = g + 1) begin : g_rdclr
                localparam integer GN = g / LANES;
                assign rdclr_o[g] = writing && (gi_q == GN[RW-1:0]);
            end
            wire unused_cap = &{1'b0, cap_i, cap_any};
        end
    endgenerate

    // the flags of the front group ({ovf, ninf, pinf, nan}; none when ACC_W = 32)
    wire [LANES*4-1:0] frontf;
    generate
        if (HAS_FP != 0) begin : g_flags
            reg [ROWS*COLS*4-1:0] fshadow_q;
            integer ft;
            always @(posedge clk_i)
                if (cap_any) begin
                    for (ft = 0; ft < ROWS * COLS; ft = ft + 1)
                        if (cap_i[ft])
                            fshadow_q[ft*4 +: 4] <= acc_i[ft*SLOT_W + ACC_W +: 4];
                end else if (shift) begin
                    fshadow_q <= {{(LANES*4){1'b0}}, fshadow_q[ROWS*COLS*4-1:LANES*4]};
                end
            assign frontf = (EARLY != 0) ? fshadow_q[gi32*LANES*4 +: LANES*4] : fshadow_q[LANES*4-1:0];
        end else begin : g_no_flags
            assign frontf = {(LANES*4){1'b0}};
        end
    endgenerate

    // ---- bias registers (builds with a float format: `bias` traps FORMAT in
    // the int8-only ones, where they do not fit the UP5K): 64 bits per column,
    // sign-extended to ACC_W at use ---------------------------------------------
    localparam integer BW = 64;
    wire [COLS*BW-1:0] bias_all;
    wire               b8_all;
    generate
        if (HAS_FP != 0) begin : g_bias
            reg  [COLS*BW-1:0] bias_q;
            reg                b8_q;        // the bias holds 8-byte elements
            wire               b8 = (in_i != DT_INT8);
            integer bj, bt;
            always @(posedge clk_i) begin
                if (rst_i || bias_clr_i) begin
                    bias_q <= {COLS*BW{1'b0}};
                    b8_q   <= 1'b0;
                end else if (bias_we_i) begin
                    b8_q <= b8;
                    // byte bt of column bj's element is byte (bj*S + bt) of the bias
                    for (bj = 0; bj < COLS; bj = bj + 1)
                        for (bt = 0; bt < 8; bt = bt + 1) begin
                            if (!b8 && bt < 4 && ((bj * 4 + bt) / WB) == {28'd0, bias_idx_i})
                                bias_q[bj*BW + bt*8 +: 8] <= bias_word_i[((bj * 4 + bt) % WB)*8 +: 8];
                            if (b8 && ((bj * 8 + bt) / WB) == {28'd0, bias_idx_i})
                                bias_q[bj*BW + bt*8 +: 8] <= bias_word_i[((bj * 8 + bt) % WB)*8 +: 8];
                        end
                end
            end
            assign bias_all = bias_q;
            assign b8_all   = b8_q;
        end else begin : g_no_bias
            assign bias_all = {COLS*BW{1'b0}};
            assign b8_all   = 1'b0;
            wire unused_bias = &{1'b0, bias_clr_i, bias_we_i, bias_idx_i, bias_word_i, bias_all, b8_all};
        end
    endgenerate

    // ---- the float lanes as functions (HAS_FP builds: the 8x8 sim) -----------
    // The same arithmetic as spu_output_pipe (HAS_FP = 1), written as functions
    // so that the lanes are evaluated inside a clocked block behind `writing`:
    // a Verilated model recomputes combinational logic on every clock whether
    // or not its inputs changed, and 8 lanes of 80-bit conversions were most
    // of the 8x8 sim's time (docs/sim.md "Speed"). Every nonzero finite sum
    // here is a normal binary32 (2^-32 <= |sum * 2^LSB| < 2^80), so fx2f32's
    // RNE reduces to rounding the normalized magnitude at 24 bits, and
    // spu_cvt_f32 runs with round = RNE, rand = 0.
    // requant: spu_requant with relu_i = 0
    function [7:0] fn_requant(input [31:0] a, input [4:0] sh, input [1:0] rnd);
        reg        ng, gg, st, ft, upq, fr;
        reg [32:0] e;
        reg [23:0] x4;
        reg [15:0] x3;
        reg [11:0] x2;
        reg [9:0]  x1;
        reg [8:0]  x0;
        reg [7:0]  fl, sm;
        begin
            ng = a[31];
            e  = {a, 1'b0};
            x4 = sh[4] ? {{7{ng}}, e[32:16]} : e[23:0];
            x3 = sh[3] ? x4[23:8] : x4[15:0];
            x2 = sh[2] ? x3[15:4] : x3[11:0];
            x1 = sh[1] ? x2[11:2] : x2[9:0];
            x0 = sh[0] ? x1[9:1]  : x1[8:0];
            fl = x0[8:1];
            gg = x0[0];
            st = (sh[4] && (a[14:0] != 15'd0)) || (sh[3] && (x4[7:0] != 8'd0)) ||
                 (sh[2] && (x3[3:0] != 4'd0)) || (sh[1] && (x2[1:0] != 2'd0)) || (sh[0] && x1[0]);
            ft = (sh[4] || (a[30:22] == {9{ng}})) && (sh[3] || (x4[22:15] == {8{ng}})) &&
                 (sh[2] || (x3[14:11] == {4{ng}})) && (sh[1] || (x2[10:9] == {2{ng}})) &&
                 (sh[0] || (x1[8] == ng));
            case (rnd)
                RND_RNE: upq = gg && (st || fl[0]);
                RND_RTZ: upq = ng && (gg || st);
                RND_RNA: upq = gg && (st || !ng);
                default: upq = 1'b0;
            endcase
            sm = fl + {7'd0, upq};
            fr = ft && !(upq && fl == 8'h7F);
            fn_requant = fr ? sm : {!fr && ng, {7{!fr && !ng}}};
        end
    endfunction
    // spu_cvt_f32 (E, M, SPEC) at round = RNE, rand = 0: the code in the low E+M+1 bits
    function [31:0] fn_cvt(input [31:0] f, input integer E, input integer M,
                           input integer SPEC, input ov);
        integer bias, eminb, xw, maxc, infc, nanc, ee, d, fm1, sh, code, kept, res;
        reg     s, isn, isi, rb, st, upc;
        reg [23:0] sig;
        begin
            bias  = (1 << (E - 1)) - 1;
            eminb = 128 - bias;
            xw    = 47 - M;
            maxc  = (SPEC == 2) ? ((((1 << E) - 1) << M) | ((1 << M) - 2))
                                : ((((1 << E) - 2) << M) | ((1 << M) - 1));
            infc  = (SPEC == 2) ? ((1 << (E + M)) - 1) : (((1 << E) - 1) << M);
            nanc  = (SPEC == 2) ? ((1 << (E + M)) - 1)
                                : ((((1 << E) - 1) << M) | (1 << (M - 1)) | (({9'd0, f[22:0]} >> (23 - M)) & ((1 << (M - 1)) - 1)));
            s   = f[31];
            isn = (&f[30:23]) & (|f[22:0]);
            isi = (&f[30:23]) & ~(|f[22:0]);
            sig = {|f[30:23], f[22:0]};
            ee  = (f[30:23] == 8'd0) ? 1 : {24'd0, f[30:23]};
            d   = (ee < eminb) ? (((eminb - ee) > xw) ? xw : (eminb - ee)) : 0;
            fm1 = (ee > eminb) ? (ee - eminb) : 0;
            sh  = 23 - M + d;             // sig >> sh: the kept bits (hidden on top)
            if (sh >= 25) begin
                kept = 0; rb = 1'b0; st = (sig != 24'd0);
            end else begin
                kept = {8'd0, sig} >> sh;
                rb   = sig[sh - 1];
                st   = ((sig & ((24'd1 << (sh - 1)) - 24'd1)) != 24'd0);
            end
            upc  = rb & (st | kept[0]);
            code = (fm1 << M) + kept + (upc ? 1 : 0);
            if (isn)             res = nanc;
            else if (isi)        res = ov ? infc : maxc;
            else if (code > maxc) res = ov ? infc : maxc;
            else                 res = code;
            fn_cvt = (s ? (32'd1 << (E + M)) : 32'd0) | res;
        end
    endfunction
    // one lane: spu_output_pipe (HAS_FP = 1)
    function [31:0] fn_lane(input [ACC_W-1:0] acc, input [3:0] fl, input [ACC_W-1:0] bi,
                            input fpin, input [3:0] out, input relu, input ov,
                            input [4:0] sh, input [1:0] rnd);
        reg [ACC_W-1:0] sm, vl, mg, nm;
        reg             wrp, nan_, inf_, isint, ng, zr, infv, stk, g24, s24;
        reg [7:0]       lz;
        reg [7:0]       bexp;
        reg [22:0]      frac;
        reg [31:0]      ro, f32;
        integer         j;
        begin
            sm    = acc + bi;
            wrp   = (acc[ACC_W-1] == bi[ACC_W-1]) && (sm[ACC_W-1] != acc[ACC_W-1]);
            nan_  = fl[0] | fl[3] | (fl[1] & fl[2]) | wrp;
            inf_  = !nan_ && (fl[1] | fl[2]);
            isint = (out == DT_INT8) || (out == DT_INT32);
            ng    = isint ? sm[31] : inf_ ? fl[2] : (!nan_ && sm[ACC_W-1]);
            zr    = relu && ng;
            vl    = zr ? {ACC_W{1'b0}} : sm;
            infv  = inf_ && !zr;
            if (out == DT_INT32)
                fn_lane = vl[31:0];
            else if (out == DT_INT8 || !((out == DT_F32) || (out == DT_BF16) || (out == DT_F16) ||
                                         (out == DT_E4M3) || (out == DT_E5M2)))
                fn_lane = {24'd0, fn_requant(vl[31:0], sh, rnd)};
            else begin
                mg = vl[ACC_W-1] ? (~vl + {{(ACC_W-1){1'b0}}, 1'b1}) : vl;
                lz = 8'd0;
                for (j = 0; j < ACC_W; j = j + 1)
                    if (mg[j]) lz = ACC_W[7:0] - 8'd1 - j[7:0];
                nm   = mg << lz;
                stk  = |nm[ACC_W-26:0];
                g24  = nm[ACC_W-25];
                frac = {nm[ACC_W-2:ACC_W-23], nm[ACC_W-24] | stk | g24};   // round to odd
                bexp = (ACC_W[7:0] + 8'd126 - lz) - (fpin ? 8'd32 : 8'd0);   // mod 256
                s24  = g24 & (stk | nm[ACC_W-24]);                          // RNE up
                ro   = nan_ ? 32'h7FC00000 : infv ? {fl[2], 8'hFF, 23'd0}
                     : (vl == {ACC_W{1'b0}}) ? 32'd0 : {vl[ACC_W-1], bexp, frac};
                f32  = nan_ ? 32'h7FC00000 : infv ? {fl[2], 8'hFF, 23'd0}
                     : (vl == {ACC_W{1'b0}}) ? 32'd0
                     : ({vl[ACC_W-1], bexp, nm[ACC_W-2:ACC_W-24]} + {31'd0, s24});
                case (out)
                    DT_F32:  fn_lane = f32;
                    DT_BF16: fn_lane = fn_cvt(ro, 8, 7, 1, ov);
                    DT_F16:  fn_lane = fn_cvt(ro, 5, 10, 1, ov);
                    DT_E4M3: fn_lane = fn_cvt(ro, 4, 3, 2, ov);
                    default: fn_lane = fn_cvt(ro, 5, 2, 1, ov);
                endcase
            end
        end
    endfunction

    // ---- the output pipe of each lane: LANES elements of 32 bits ---------------
    // (int8-only builds: LANES spu_output_pipe; float builds: fn_lane in the
    // clocked block at the end, el is unused there)
    wire [LANES*32-1:0] el;
    // int8-only builds: the requantizer's shifter stage (spu_requant_pre) of
    // each lane runs one cycle ahead, on the element the front group holds in
    // the next cycle (what the capture / shift below puts there) with the
    // shift of the next cycle (go_i's cfg or the drain's), into pre_q; the
    // lane then only rounds, clamps and packs (timing: the boards' critical
    // path was shadow word -> shifter -> rounding -> relu -> wdata_q,
    // docs/fpga.md). Same words, same cycles.
    wire [LANES*12-1:0] pre_w;
    generate
        if (HAS_FP == 0) begin : g_pre
            reg  [LANES*12-1:0] pre_q;
            wire [4:0]          sh_nx = go_i ? shift_i : shift_q;
            // EARLY: the front group of the next cycle is group gi_nx, in place
            wire [31:0]         gi_nx = go_i ? 32'd0 : writing ? gi32 + 32'd1 : gi32;
            // INPLACE: the tiles hold still from the capture (the go cycle) to
            // their read, so group n >= 1 is fetched a cycle early, through the
            // tile mux into fetch_q, by its own index ri_q (1 while idle, n in
            // the cycle before group n - 1 is written); group 0 comes straight
            // from its tiles in the go cycle. Timing: the mux starts and ends
            // at flip-flops; the look-ahead sees a 2:1 choice as before.
            wire [31:0]         ri32;
            if (FETCH0 == 0 || INPLACE == 0) begin : g_no_pg
                wire unused_pg = pre_go_i;
            end
            // FETCH0: 0 while idle, 1 in the go cycle (pre_go_i before it)
            if (INPLACE != 0) begin : g_ri
                localparam [RW-1:0] R1 = 1;
                localparam [RW-1:0] RI = (FETCH0 != 0) ? 0 : 1;   // while idle
                reg [RW-1:0] ri_q;
                always @(posedge clk_i)
                    if (rst_i)                         ri_q <= RI;
                    else if (go_i)                     ri_q <= R2;
                    else if (writing && (rem_q != R1)) ri_q <= ri_q + R1;
                    else if (pre_go_i && FETCH0 != 0)  ri_q <= R1;
                    else                               ri_q <= RI;
                assign ri32 = {{(32-RW){1'b0}}, ri_q};
            end else begin : g_no_ri
                assign ri32 = 32'd0;
                wire unused_ri = &{1'b0, ri32};
            end
            for (g = 0; g < LANES; g = g + 1) begin : g_pl
                wire [31:0] cur = shadow_q[g*ACC_W +: 32];
                wire [31:0] tn  = gi_nx * LANES + g;
                wire [31:0] fetch;
                if (INPLACE != 0) begin : g_fetch
                    reg  [31:0] fetch_q;
                    wire [31:0] tf = ri32 * LANES + g;
                    always @(posedge clk_i) fetch_q <= acc_i[tf*SLOT_W +: 32];
                    assign fetch = fetch_q;
                end else begin : g_nofetch
                    assign fetch = 32'd0;
                end
                wire [31:0] nxt = (INPLACE != 0) ? ((go_i && FETCH0 == 0) ? acc_i[g*SLOT_W +: 32] : fetch)
                                : (EARLY != 0)
                                ? (cap_i[tn] ? acc_i[tn*SLOT_W +: 32] : shadow_q[tn*ACC_W +: 32])
                                : cap_any ? (cap_i[g] ? acc_i[g*SLOT_W +: 32] : cur)
                                : shift ? shadow_q[(LANES + g)*ACC_W +: 32] : cur;
                wire [11:0] pre;
                spu_requant_pre u_pre (.acc_i(nxt), .shift_i(sh_nx), .pre_o(pre));
                always @(posedge clk_i) pre_q[g*12 +: 12] <= pre;
                if (INPLACE != 0) begin : g_front
                    reg [31:0] front_q;
                    always @(posedge clk_i) front_q <= nxt;
                    assign front_ip[g*32 +: 32] = front_q;
                end else begin : g_nofront
                    assign front_ip[g*32 +: 32] = 32'd0;
                end
            end
            assign pre_w = pre_q;
        end else begin : g_no_pre
            assign pre_w = {(LANES*12){1'b0}};
            wire unused_pg = pre_go_i;
            assign front_ip = {GBITS{1'b0}};
        end
    endgenerate
    generate
        if (HAS_FP != 0) begin : g_op_fn
            assign el = {(LANES*32){1'b0}};
            wire unused_pre_w = &{1'b0, pre_w};
        end else
        for (g = 0; g < LANES; g = g + 1) begin : g_op
            // the bias of column grp*LANES + g, sign-extended (0: int8-only builds)
            wire [ACC_W-1:0] lane_bias;
            if (HAS_FP != 0) begin : g_bw
                wire [BW-1:0] bsel = bias_all[(grp32 * LANES + g) * BW +: BW];
                wire [63:0]   b64  = b8_all ? bsel : {{32{bsel[31]}}, bsel[31:0]};
                assign lane_bias = {{(ACC_W-64){b64[63]}}, b64};
            end else begin : g_bn
                assign lane_bias = {ACC_W{1'b0}};
            end
            spu_output_pipe #(.ACC_W(ACC_W), .HAS_FP(HAS_FP), .PRE(1)) u_op (
                .acc_i(frontw[g*ACC_W +: ACC_W]), .flags_i(frontf[g*4 +: 4]),
                .bias_i(lane_bias), .fpin_i(fpin_q), .out_i(out_q), .relu_i(relu_q),
                .ovf_i(ovf_q), .shift_i(shift_q), .round_i(round_q),
                .pre_i(pre_w[g*12 +: 12]), .el_o(el[g*32 +: 32])
            );
        end
    endgenerate

    // ---- the write formed this cycle -------------------------------------------
    // For each size S: the group's LANES*S bytes (element i at bytes S*i..),
    // the write's bytes and enables (NWB = WR_WORDS words), and the word of
    // the row its first word goes to.
    wire [NWB*8-1:0]  wd_k [0:2];
    wire [NWB-1:0]    be_k [0:2];
    wire [31:0]       wo_k [0:2];
    genvar k, i;
    generate
        for (k = 0; k < 3; k = k + 1) begin : g_sz
            localparam integer S    = 1 << k;
            localparam integer GB   = LANES * S;
            localparam integer WIDE = (GB >= WB) ? 1 : 0;
            localparam integer CHG  = (WIDE != 0) ? GB / WB : 1;
            localparam integer PW   = (WIDE != 0) ? 1 : WB / GB;
            wire [GB*8-1:0] gbytes;
            for (i = 0; i < LANES; i = i + 1) begin : g_el
                assign gbytes[i*S*8 +: S*8] = el[i*32 +: S*8];
            end
            reg [NWB*8-1:0] wd;
            reg [NWB-1:0]   be;
            integer b;
            always @* begin
                wd = {NWB*8{1'b0}};
                be = {NWB{1'b0}};
                for (b = 0; b < NWB; b = b + 1) begin
                    if (WIDE != 0) begin
                        be[b] = (b < GB);
                        wd[b*8 +: 8] = gbytes[((b < GB) ? b : 0)*8 +: 8];
                    end else if (b < WB) begin
                        be[b] = ((b / GB) == (grp32 % PW));
                        wd[b*8 +: 8] = gbytes[(b % GB)*8 +: 8];
                    end
                end
            end
            assign wd_k[k] = wd;
            assign be_k[k] = be;
            assign wo_k[k] = (WIDE != 0) ? grp32 * CHG : grp32 / PW;
        end
    endgenerate
    wire [NWB*8-1:0] wdata  = sz_q[1] ? wd_k[2] : sz_q[0] ? wd_k[1] : wd_k[0];
    wire [NWB-1:0]   wbe    = sz_q[1] ? be_k[2] : sz_q[0] ? be_k[1] : be_k[0];
    wire [31:0]      woff32 = sz_q[1] ? wo_k[2] : sz_q[0] ? wo_k[1] : wo_k[0];
    wire [AW-OFF-1:0] woff = woff32[AW-OFF-1:0];
    wire [31-(AW-OFF):0] unused_woff = woff32[31:AW-OFF];   // below G*WR_WORDS

    always @(posedge clk_i) begin
        if (rst_i) we_q <= 1'b0;
        else       we_q <= writing;
    end
    generate
        if (HAS_FP != 0) begin : g_wd_fn
            // the lanes and the packing of wd_k, evaluated only in a cycle that
            // forms a word (wdata_o matters only with we_o)
            // the word: the lanes on the front group, packed as wd_k above
            function [NWB*8-1:0] fn_word(input [GBITS-1:0] fw, input [LANES*4-1:0] ff,
                                         input [COLS*BW-1:0] ba, input b8, input [31:0] gr,
                                         input [1:0] sz);
                reg [LANES*32-1:0] elv;
                reg [63:0]         b64;
                integer l, zk, b, j;
                begin
                    for (l = 0; l < LANES; l = l + 1) begin
                        b64 = ba[(gr * LANES + l) * BW +: BW];
                        if (!b8) b64 = {{32{b64[31]}}, b64[31:0]};
                        elv[l*32 +: 32] = fn_lane(fw[l*ACC_W +: ACC_W], ff[l*4 +: 4],
                            {{(ACC_W-64){b64[63]}}, b64}, fpin_q, out_q, relu_q, ovf_q,
                            shift_q, round_q);
                    end
                    // per element size 1 << zk: the sizes are constants in each
                    // branch (no divider when synthesized)
                    fn_word = {NWB*8{1'b0}};
                    for (zk = 0; zk < 3; zk = zk + 1)
                        if ((sz[1] ? 2 : sz[0] ? 1 : 0) == zk)
                            for (b = 0; b < NWB; b = b + 1) begin
                                if ((LANES << zk) >= WB)
                                    j = (b < (LANES << zk)) ? b : 0;
                                else
                                    j = b % (LANES << zk);
                                if (b < (LANES << zk) || b < WB)
                                    fn_word[b*8 +: 8] = elv[(j >> zk) * 32 + (j & ((1 << zk) - 1)) * 8 +: 8];
                            end
                end
            endfunction
            // the byte enables and the word of the row, as be_k / wo_k above
            function [NWB-1:0] fn_be(input [31:0] gr, input [1:0] sz);
                integer zk, b;
                begin
                    fn_be = {NWB{1'b0}};
                    for (zk = 0; zk < 3; zk = zk + 1)
                        if ((sz[1] ? 2 : sz[0] ? 1 : 0) == zk)
                            for (b = 0; b < NWB; b = b + 1)
                                fn_be[b] = ((LANES << zk) >= WB) ? (b < (LANES << zk))
                                        : (b < WB) && ((b / (LANES << zk)) == (gr & ((WB / (LANES << zk)) - 1)));
                end
            endfunction
            // (group bytes and words are powers of two: log2(LANES * S / WB))
            localparam integer LLOG = $clog2(LANES);
            function [AW-OFF-1:0] fn_woff(input [GW-1:0] gr, input [1:0] sz);
                reg [AW-OFF-1:0] gv;
                integer lg;
                begin
                    gv = {{(AW-OFF-GW){1'b0}}, gr};
                    lg = LLOG + (sz[1] ? 2 : sz[0] ? 1 : 0) - OFF;
                    fn_woff = (lg >= 0) ? (gv << lg) : gv >> (0 - lg);
                end
            endfunction
            always @(posedge clk_i)
                if (writing) begin
                    wdata_q <= fn_word(frontw, frontf, bias_all, b8_all, grp32, sz_q);
                    wbe_q   <= fn_be(grp32, sz_q);
                    waddr_q <= row_q + fn_woff(grp_q, sz_q);
                end
            wire unused_wd = &{1'b0, wdata, el, wbe, woff};
        end else begin : g_wd
            always @(posedge clk_i) begin
                waddr_q <= row_q + woff;
                wbe_q   <= wbe;
                wdata_q <= wdata;
            end
        end
    endgenerate
    assign wdata_o = wdata_q;
    assign wbe_o   = wbe_q;
    assign waddr_o = waddr_q;
    wire [2*OFF-1:0] unused_low = {base_i[OFF-1:0], stride_i[OFF-1:0]};   // aligned: zero
endmodule
`default_nettype wire
