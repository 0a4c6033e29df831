// spu_vector_unit -- the vector unit (docs/isa.md "Vector unit", docs/rtl.md):
// WORD_BYTES int8 lanes over scratchpad words, for the ops between GEMMs
// (residual add, scaling, ReLU / max-pool, row max / sum, 256-entry lookup
// tables for exp, GELU, reciprocal, rsqrt and format conversion).
//
// Drive: the sequencer writes VL (vlen_we_i, ra_i) and the strides
// (vstride_we_i: dst = ra_i, src1 = rb_i, src2 = rc_i) in an EXEC cycle, and
// starts a streaming instruction with a one-cycle start_i (op_i, ra_i / rb_i
// / rc_i = the register values) once the tensor unit is idle and the drain
// done: the unit then owns the scratchpad's two read ports and its write
// port. mis_o (combinational, for the EXEC that would start) says the
// instruction is misaligned. Cycle s = start: the unit latches; one word
// step per cycle from s+1 (two cycles when both sources of a binary op are
// in the same bank: port A reads src1 in the first, port B src2 in the
// second, src1's word is held); each word is written the cycle after its
// step. done_o is high in the cycle after the last step (the last write),
// so the instruction's EXEC lasts 2 + steps cycles after any wait. bad_o:
// the word step about to issue lies outside the scratchpad; the unit stops
// (words before it have been written) and the sequencer traps SPAD_RANGE.
// busy_o / stall_o are the VEC_BUSY / VEC_STALL counter events.
// vsplat writes VL words with the byte rb_i[7:0] in every lane (no source
// read); vget reads the one word holding byte address rb_i (one step, no
// write) and val_o is its lane, sign-extended, while done_o is high (the
// cycle the sequencer writes rA).
// clear_i (RUN) resets VL, the strides and the lookup table.
// Reset: synchronous, active-high.
`default_nettype none
module spu_vector_unit #(
    parameter integer WORD_BYTES = 8,
    parameter integer SPAD_BYTES = 262144,
    parameter integer SPAD_BANKS = 4,
    parameter integer AW         = $clog2(SPAD_BYTES),
    parameter integer WA         = AW - $clog2(WORD_BYTES)
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    clear_i,
    input  wire                    vlen_we_i,
    input  wire                    vstride_we_i,
    input  wire                    start_i,
    input  wire [5:0]              op_i,
    input  wire [31:0]             ra_i,
    input  wire [31:0]             rb_i,
    input  wire [31:0]             rc_i,
    input  wire [4:0]              shift_i,     // cfg shift / round / relu (vmul)
    input  wire [1:0]              round_i,
    input  wire                    relu_i,
    output wire                    mis_o,
    output wire                    busy_o,
    output wire                    done_o,
    output wire                    bad_o,
    output wire                    stall_o,
    output wire [31:0]             val_o,       // vget: the lane, sign-extended (with done_o)
    // scratchpad ports (word addresses)
    output wire                    a_re_o,
    output wire [WA-1:0]           a_addr_o,
    input  wire [WORD_BYTES*8-1:0] a_rdata_i,
    output wire                    b_re_o,
    output wire [WA-1:0]           b_addr_o,
    input  wire [WORD_BYTES*8-1:0] b_rdata_i,
    output wire                    we_o,
    output wire [WA-1:0]           waddr_o,
    output reg  [WORD_BYTES*8-1:0] wdata_o
);
`include "spu_isa.vh"
    localparam integer OFF  = $clog2(WORD_BYTES);
    localparam integer DW   = WORD_BYTES * 8;
    localparam integer BKW  = $clog2(SPAD_BANKS);
    localparam integer PW   = 34;                       // byte address accumulators: no wrap
    localparam integer LUTW = (256 + WORD_BYTES - 1) / WORD_BYTES;   // words of a table
    localparam [31:0]  WB32 = WORD_BYTES;
    localparam [31:0]  LW32 = LUTW;
    localparam integer SUMW = (DW < 32) ? DW : 32;      // bytes of the sum a word holds

    // ---- architectural state: VL, strides, table ----------------------------------------
    reg [31:0]   vl_q, sd_q, s1_q, s2_q;
    reg [2047:0] lut_q;

    // ---- the instruction in flight ---------------------------------------------------------
    reg          run_q, half_q, first_q, wv_q, whold_q;
    reg  [5:0]   opq;
    reg  [31:0]  n_q;                                   // word steps left
    reg  [PW-1:0] pd_q, p1_q, p2_q;                     // byte addresses of the next step
    reg  [31:0]  s1e_q;                                 // src1 stride (vlutld: a word)
    reg  [31:0]  s2e_q;                                 // src2 stride (vdiv: 0, one word of S)
    reg  [WA-1:0] wd_q;                                 // word written by the write stage
    reg  [DW-1:0] hold_q;                               // src1 of a same-bank step
    reg  [7:0]   rmax_q;
    reg  [31:0]  rsum_q;
    reg  [7:0]   widx_q;                                // table word being loaded
    reg  [7:0]   spl_q;                                 // vsplat: the byte
    reg  [OFF-1:0] lane_q;                              // vget: the lane

    wire div_i  = (op_i == OP_VDIV);
    wire bin_i  = (op_i == OP_VADD) || (op_i == OP_VSUB) || (op_i == OP_VMUL) || (op_i == OP_VMAX) || div_i;
    wire red_i  = (op_i == OP_VRMAX) || (op_i == OP_VRSUM);
    wire ld_i   = (op_i == OP_VLUTLD);
    wire spl_i  = (op_i == OP_VSPLAT);
    wire get_i  = (op_i == OP_VGET);
    wire lo_a   = ra_i[OFF-1:0] != 0, lo_b = rb_i[OFF-1:0] != 0, lo_c = rc_i[OFF-1:0] != 0;
    wire lo_sd  = sd_q[OFF-1:0] != 0, lo_s1 = s1_q[OFF-1:0] != 0, lo_s2 = s2_q[OFF-1:0] != 0;
    assign mis_o = ld_i ? lo_a : get_i ? 1'b0
                        : (vl_q != 32'd0) && (lo_a || (!spl_i && (lo_b || lo_s1)) || (!red_i && lo_sd) ||
                                               (bin_i && (lo_c || (lo_s2 && !div_i))));

    wire binary = (opq == OP_VADD) || (opq == OP_VSUB) || (opq == OP_VMUL) || (opq == OP_VMAX) ||
                  (opq == OP_VDIV);
    wire reduce = (opq == OP_VRMAX) || (opq == OP_VRSUM);
    wire lutld  = (opq == OP_VLUTLD);
    wire splat  = (opq == OP_VSPLAT);
    wire vget   = (opq == OP_VGET);

    // ---- issue stage ----------------------------------------------------------------------
    // the word at byte address p lies beyond the scratchpad (p is aligned)
    wire p1_out = (p1_q[PW-1:AW] != {(PW-AW){1'b0}});
    wire p2_out = (p2_q[PW-1:AW] != {(PW-AW){1'b0}});
    wire pd_out = (pd_q[PW-1:AW] != {(PW-AW){1'b0}});
    wire issue    = run_q && (n_q != 32'd0);
    wire conflict = binary && (p1_q[AW-1 -: BKW] == p2_q[AW-1 -: BKW]);
    wire bad_now  = issue && !half_q &&
                    ((!splat && p1_out) || (binary && p2_out) ||
                     (reduce ? (first_q && pd_out) : (!lutld && !vget && pd_out)));
    wire step_a   = issue && !bad_now && !half_q && !splat;     // port A reads src1
    wire step_b   = issue && !bad_now && binary && (!conflict || half_q);   // port B reads src2
    wire advance  = issue && !bad_now && (!conflict || half_q);

    assign a_re_o   = step_a;
    assign a_addr_o = p1_q[AW-1:OFF];
    assign b_re_o   = step_b;
    assign b_addr_o = p2_q[AW-1:OFF];
    assign busy_o   = run_q;
    assign done_o   = run_q && (n_q == 32'd0);
    assign bad_o    = bad_now;
    assign stall_o  = issue && !bad_now && conflict && !half_q;

    // ---- write stage: the lanes ---------------------------------------------------------------
    // A step's first read is in the cycle the step before writes: a word read
    // there that is the word being written takes the written data (the RAM
    // would return the old word), so overlapping operands behave as if the
    // steps ran one after another, as the model runs them (docs/isa.md)
    reg           fa_q, fb_q;
    reg  [DW-1:0] fwd_q;
    wire [DW-1:0] a_data = fa_q ? fwd_q : a_rdata_i;
    wire [DW-1:0] b_data = fb_q ? fwd_q : b_rdata_i;
    wire [DW-1:0] av = whold_q ? hold_q : a_data;
    wire [DW-1:0] bv = b_data;
    // The lanes (vmul's requantizer, vdiv's dividers, the elementwise ops and
    // the reductions) are functions evaluated behind wv_q, the one cycle their
    // result is used (a write, a table word, a reduction step): a Verilated
    // model recomputes combinational logic on every clock whether or not its
    // inputs changed, and these lanes were about a tenth of the 8x8 sim's time
    // in GEMMs that run no vector instruction (docs/sim.md "Speed"). With wv_q
    // low ew and wdata_o are zero; nothing reads them then (we_o needs wv_q,
    // fwd_q is read only after a write).
    // vmul: spu_requant's arithmetic (spu_requant_pre then spu_requant_post)
    // on the sign-extended 16-bit product
    function [7:0] fn_vmul(input [7:0] a, input [7:0] b, input [4:0] sh, input [1:0] rnd, input rl);
        reg signed [15:0] pr;
        reg        ng, gg, st, ft, upq, fr;
        reg [31:0] ac;
        reg [32:0] e;
        reg [23:0] x4;
        reg [15:0] x3;
        reg [11:0] x2;
        reg [9:0]  x1;
        reg [8:0]  x0;
        reg [7:0]  fl, sm, q;
        begin
            pr = $signed(a) * $signed(b);
            ac = {{16{pr[15]}}, pr};
            ng = ac[31];
            e  = {ac, 1'b0};
            x4 = sh[4] ? {{7{ng}}, e[32:16]} : e[23:0];
            x3 = sh[3] ? x4[23:8] : x4[15:0];
            x2 = sh[2] ? x3[15:4] : x3[11:0];
            x1 = sh[1] ? x2[11:2] : x2[9:0];
            x0 = sh[0] ? x1[9:1]  : x1[8:0];
            fl = x0[8:1];
            gg = x0[0];
            st = (sh[4] && (ac[14:0] != 15'd0)) || (sh[3] && (x4[7:0] != 8'd0)) ||
                 (sh[2] && (x3[3:0] != 4'd0)) || (sh[1] && (x2[1:0] != 2'd0)) || (sh[0] && x1[0]);
            ft = (sh[4] || (ac[30:22] == {9{ng}})) && (sh[3] || (x4[22:15] == {8{ng}})) &&
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
            q  = fr ? sm : {ng, {7{!ng}}};
            fn_vmul = (rl && q[7]) ? 8'h00 : q;     // relu: max(q, 0)
        end
    endfunction

    // vdiv: S = bytes 0..3 of the src2 word (sign-extended when a word is
    // narrower); per lane q = (2*|a|*2^shift + S) div (2*S), the quotient
    // rounded half away from zero, saturated; S <= 0 gives 0. The quotient
    // matters only up to 128 (saturation): eight restoring steps per lane
    // plus an overflow compare (VECTOR builds only)
    function [8:0] vdiv_q;                   // min(floor(n / d2), 256)
        input [40:0] n;
        input [32:0] d2;
        reg   [48:0] r;
        integer      i;
        begin
            r = {8'd0, n};
            vdiv_q = 9'd0;
            if (r >= ({16'd0, d2} << 8)) vdiv_q = 9'h100;
            else
                for (i = 7; i >= 0; i = i - 1)
                    if (r >= ({16'd0, d2} << i)) begin
                        r = r - ({16'd0, d2} << i);
                        vdiv_q[i] = 1'b1;
                    end
        end
    endfunction
    function [7:0] fn_vdiv(input [7:0] a8, input [31:0] s, input [4:0] sh);
        reg [7:0]  mag;
        reg [40:0] num;
        reg [8:0]  quo;
        reg        big;
        begin
            mag = a8[7] ? (8'd0 - a8) : a8;                     // |a|, 128 as 8'h80
            num = ({33'd0, mag} << sh) * 41'd2 + {9'd0, s};
            quo = vdiv_q(num, {s, 1'b0});
            big = a8[7] ? (quo > 9'd128) : (quo > 9'd127);
            fn_vdiv = (s[31] || s == 32'd0) ? 8'h00 :
                      big ? (a8[7] ? 8'h80 : 8'h7F) : (a8[7] ? (8'd0 - quo[7:0]) : quo[7:0]);
        end
    endfunction
    wire [31:0] dv_s  = {{(32-SUMW){bv[SUMW-1]}}, bv[SUMW-1:0]};

    reg [DW-1:0] ew;                         // elementwise / lookup result
    reg [7:0]    rmax_d;
    reg [31:0]   rsum_d;
    reg signed [8:0] t9;
    reg signed [7:0] x, y;
    integer j;
    always @* begin
        ew     = {DW{1'b0}};
        rmax_d = rmax_q;
        rsum_d = rsum_q;
        t9     = 9'sd0;
        x      = 8'sd0;
        y      = 8'sd0;
        j      = 0;           // loop variable assigned on every path: no latch
        if (wv_q) begin
            for (j = 0; j < WORD_BYTES; j = j + 1) begin
                x = av[j*8 +: 8];
                y = bv[j*8 +: 8];
                case (opq)
                    OP_VADD: begin
                        t9 = {x[7], x} + {y[7], y};
                        ew[j*8 +: 8] = (t9 > 9'sd127) ? 8'h7F : (t9 < -9'sd128) ? 8'h80 : t9[7:0];
                    end
                    OP_VSUB: begin
                        t9 = {x[7], x} - {y[7], y};
                        ew[j*8 +: 8] = (t9 > 9'sd127) ? 8'h7F : (t9 < -9'sd128) ? 8'h80 : t9[7:0];
                    end
                    OP_VMUL: ew[j*8 +: 8] = fn_vmul(x, y, shift_i, round_i, relu_i);
                    OP_VMAX: ew[j*8 +: 8] = (x > y) ? x : y;
                    OP_VLUT: ew[j*8 +: 8] = lut_q[{av[j*8 +: 8], 3'b000} +: 8];
                    OP_VSPLAT: ew[j*8 +: 8] = spl_q;
                    OP_VDIV: ew[j*8 +: 8] = fn_vdiv(x, dv_s, shift_i);
                    default: ;
                endcase
                if ($signed(x) > $signed(rmax_d)) rmax_d = x;
                rsum_d = rsum_d + {{24{x[7]}}, x};
            end
        end
    end

    always @* begin
        wdata_o = ew;
        if (reduce) begin
            wdata_o = {DW{1'b0}};
            if (opq == OP_VRMAX) wdata_o = {WORD_BYTES{rmax_d}};
            else wdata_o[SUMW-1:0] = rsum_d[SUMW-1:0];
        end
    end
    assign we_o    = wv_q && !lutld && !vget && (!reduce || (n_q == 32'd0));
    wire [7:0] lane = av[{lane_q, 3'b000} +: 8];
    assign val_o   = {{24{lane[7]}}, lane};
    assign waddr_o = wd_q;

    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            fa_q <= 1'b0;
            fb_q <= 1'b0;
        end else begin
            fa_q <= step_a && we_o && (a_addr_o == waddr_o);
            fb_q <= step_b && we_o && (b_addr_o == waddr_o);
        end
        fwd_q <= wdata_o;
    end

    // ---- state ----------------------------------------------------------------------------------
    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            vl_q  <= 32'd0;
            sd_q  <= WB32; s1_q <= WB32; s2_q <= WB32;
            lut_q <= 2048'd0;
        end else begin
            if (vlen_we_i) vl_q <= ra_i;
            if (vstride_we_i) begin
                sd_q <= ra_i; s1_q <= rb_i; s2_q <= rc_i;
            end
            if (wv_q && lutld) lut_q[{widx_q, 3'b000} * WORD_BYTES +: DW] <= av;
        end
    end

    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            run_q <= 1'b0; half_q <= 1'b0; wv_q <= 1'b0; whold_q <= 1'b0; first_q <= 1'b0;
            n_q <= 32'd0;
        end else if (start_i) begin
            run_q   <= 1'b1;
            opq     <= op_i;
            n_q     <= ld_i ? LW32 : get_i ? 32'd1 : vl_q;
            pd_q    <= {2'b00, ra_i};
            p1_q    <= {2'b00, ld_i ? ra_i : get_i ? {rb_i[31:OFF], {OFF{1'b0}}} : rb_i};
            spl_q   <= rb_i[7:0];
            lane_q  <= rb_i[OFF-1:0];
            p2_q    <= {2'b00, rc_i};
            s1e_q   <= ld_i ? WB32 : s1_q;
            s2e_q   <= div_i ? 32'd0 : s2_q;
            half_q  <= 1'b0;
            first_q <= 1'b1;
            wv_q    <= 1'b0;
            whold_q <= 1'b0;
            rmax_q  <= 8'h80;
            rsum_q  <= 32'd0;
            widx_q  <= 8'd0;
        end else begin
            if (done_o || bad_now) run_q <= 1'b0;
            if (half_q) hold_q <= a_data;                      // src1 of the same-bank step
            if (issue && !bad_now && conflict && !half_q) half_q <= 1'b1;
            if (advance) begin
                half_q  <= 1'b0;
                first_q <= 1'b0;
                n_q     <= n_q - 32'd1;
                pd_q    <= reduce ? pd_q : pd_q + {2'b00, sd_q};   // a reduction writes one word
                p1_q    <= p1_q + {2'b00, s1e_q};
                p2_q    <= p2_q + {2'b00, s2e_q};
                wd_q    <= pd_q[AW-1:OFF];
                whold_q <= conflict;
            end
            wv_q <= advance;
            if (wv_q && reduce) begin
                rmax_q <= rmax_d;
                rsum_q <= rsum_d;
            end
            if (wv_q && lutld) widx_q <= widx_q + 8'd1;
        end
    end

    wire unused_lo = &{1'b0, pd_q[OFF-1:0], p1_q[OFF-1:0], p2_q[OFF-1:0]};
endmodule
`default_nettype wire
