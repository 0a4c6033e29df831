// spu_acc_fx -- exact fixed-point accumulator for exact fp products.
//
// Accumulates products in the spu_mul_fp output encoding (sign, exp, sig,
// zero/inf/nan) into a two's-complement register of ACC_W bits whose LSB
// weighs 2^LSB_EXP. Every product whose exp_i >= LSB_EXP and whose shifted
// magnitude fits is added exactly, so the sum is exact and independent of
// the order of the products (no rounding anywhere). Read it out as a float
// with spu_fx2f32 (x_i = acc_o, e_i = LSB_EXP).
//
// Drive: one product per cycle with valid_i high. clr_i high starts a new
// sum: the register takes this cycle's product (or 0 when valid_i is low)
// instead of adding to the old sum. Latency 1: acc_o and the flags show the
// sum including the product presented in the previous cycle.
// Flags (sticky until clr_i): nan_o (a NaN product, or +Inf and -Inf both
// seen), inf_o / inf_sign_o (Inf products of one sign only), ovf_o (the
// two's-complement sum wrapped; acc_o is then the sum modulo 2^ACC_W).
//
// Defaults fit e4m3 x e4m3 products (|p| < 2^18, LSB 2^-18): 36 magnitude
// bits, a sign and 11 guard bits, so any 2048 products sum without
// overflow. docs/numerics-rtl.md lists the settings for the other pairs.
// Reset: synchronous, active-high rst_i clears the sum and the flags.
// Pipelining: STAGES = 0 (default) is the unit above, latency 1. STAGES = 1
// registers the shifted, signed term (and rst_i, clr_i, valid_i and the
// product's flags with it) before the accumulating adder; STAGES = 2 also
// the shifted magnitude before its negation, STAGES = 3 also the shift
// distance before the shift. Every input, rst_i included, takes effect
// STAGES cycles later: latency 1 + STAGES; the loop (clr select, ACC_W-bit
// add, wrap check) is the same at every depth; proven
// equal to STAGES = 0 with its inputs delayed by STAGES (tests/formal/).
// SPLIT = 1 splits the accumulating add into two halves with the carry
// between them held in a register (see g_split below) and registers the
// outputs: the same acc_o and flags one cycle later (latency 2 + STAGES),
// the loop's carry chains half as long.
// C twin: spu_hw_acc_fx_*() in host/src/numerics_hw/.
`default_nettype none
module spu_acc_fx #(
    parameter integer SIG_W   = 8,     // width of sig_i
    parameter integer PE_W    = 7,     // width of exp_i (signed)
    parameter integer LSB_EXP = -18,   // weight of acc_o's LSB: 2^LSB_EXP
    parameter integer ACC_W   = 48,    // accumulator width
    parameter integer STAGES  = 0,     // 0..3 input pipeline registers
    parameter integer SPLIT   = 0      // 1: the loop's add in two halves
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    clr_i,
    input  wire                    valid_i,
    input  wire                    sign_i,
    input  wire [PE_W-1:0]         exp_i,
    input  wire [SIG_W-1:0]        sig_i,
    input  wire                    inf_i,
    input  wire                    nan_i,
    output wire signed [ACC_W-1:0] acc_o,
    output wire                    nan_o,
    output wire                    inf_o,
    output wire                    inf_sign_o,
    output wire                    ovf_o
);
    reg signed [ACC_W-1:0] acc_q, acc_d;
    reg                    nan_q, nan_d;
    reg                    pinf_q, pinf_d;   // +Inf seen
    reg                    ninf_q, ninf_d;   // -Inf seen
    reg                    ovf_q, ovf_d;

    // ceil(log2(v)), v >= 2
    function integer clog2(input integer v);
        integer r;
        begin
            r = 0;
            while ((1 << r) < v) r = r + 1;
            clog2 = r;
        end
    endfunction

    // Input stages (all optional; the controls travel with the data):
    //   X (STAGES >= 3) after the shift distance sh = exp - LSB_EXP and
    //     the shift by its multiple of 8
    //   Y (STAGES >= 2) after the shift into the grid (the magnitude)
    //   Z (STAGES >= 1) after the sign (the negation): the term, s_q
    localparam integer CW = 6;   // rst, clr, valid, sign, inf, nan
    wire [CW-1:0] ctl_i = {rst_i, clr_i, valid_i, sign_i, inf_i, nan_i};

    // Shift of the product into the accumulator grid. A (mis)configured
    // LSB_EXP above the product's exponent would make it negative; the
    // product is then dropped (documented limit, the twin does the same).
    wire signed [31:0]     sh = $signed({{(32-PE_W){exp_i[PE_W-1]}}, exp_i}) - LSB_EXP;

    // A shift outside 0 .. ACC_W-1 keeps nothing: one flag, and the shift
    // itself in SHW = ceil(log2(ACC_W)) bits.
    localparam integer SHW = clog2(ACC_W);
    wire                   sh_zero = (sh < 0) || (sh >= ACC_W);
    wire [SHW-1:0]         sh_n    = sh[SHW-1:0];

    // The shift in two steps: by the multiple of 8 (sh_n[SHW-1:3]) before
    // stage X, by the rest (sh_n[2:0]) after it.
    wire [ACC_W-1:0]       coarse = {{(ACC_W-SIG_W){1'b0}}, sig_i} << {sh_n[SHW-1:3], 3'b000};

    localparam integer XW = CW + ACC_W + 1 + 3;
    wire [XW-1:0] x_q;
    spu_pipe_stage #(.W(XW), .EN(STAGES >= 3 ? 1 : 0)) u_x (.clk_i(clk_i),
        .d_i({ctl_i, coarse, sh_zero, sh_n[2:0]}), .q_o(x_q));
    wire [CW-1:0]          ctl_x    = x_q[XW-1 -: CW];
    wire [ACC_W-1:0]       coarse_x = x_q[4 +: ACC_W];
    wire                   zero_x   = x_q[3];
    wire [2:0]             sh_x     = x_q[2:0];
    wire [ACC_W-1:0]       term_mag = zero_x ? {ACC_W{1'b0}} : (coarse_x << sh_x);

    localparam integer YW = CW + ACC_W;
    wire [YW-1:0] y_q;
    spu_pipe_stage #(.W(YW), .EN(STAGES >= 2 ? 1 : 0)) u_y (.clk_i(clk_i),
        .d_i({ctl_x, term_mag}), .q_o(y_q));
    wire [CW-1:0]          ctl_y = y_q[YW-1 -: CW];
    wire [ACC_W-1:0]       mag_y = y_q[ACC_W-1:0];
    // SPLIT = 0: the two's-complement term. SPLIT = 1: its one's complement
    // (no carry chain here; the loop adds the +1 as a carry-in) and the
    // sign bit the two's-complement term would have (for the wrap check):
    // msb(-m) = msb(m) ^ (m[ACC_W-2:0] != 0).
    // SPLIT = 1 also zeroes the term of a cycle that adds nothing (not
    // valid_i, or a NaN / Inf product), so the loop has no gate before its
    // carry chains.
    wire                    add_y  = ctl_y[3] & ~ctl_y[1] & ~ctl_y[0];
    wire signed [ACC_W-1:0] term_i = (SPLIT != 0) ? (add_y ? (ctl_y[2] ? ~mag_y : mag_y) : {ACC_W{1'b0}})
                                                  : (ctl_y[2] ? -$signed(mag_y) : $signed(mag_y));
    wire                    tsgn_i = mag_y[ACC_W-1] ^ (ctl_y[2] & (|mag_y[ACC_W-2:0]));

    // input stage Z: the term and the controls, registered together
    // (SPLIT = 1: with the loop's carry-in, add & sign, ready in a register)
    wire                    cin_i  = add_y & ctl_y[2];
    localparam integer SW = ACC_W + 8;
    wire [SW-1:0] s_q;
    spu_pipe_stage #(.W(SW), .EN(STAGES >= 1 ? 1 : 0)) u_in (.clk_i(clk_i),
        .d_i({ctl_y, cin_i, tsgn_i, term_i}), .q_o(s_q));
    wire                    rst   = s_q[SW-1];
    wire                    clr   = s_q[SW-2];
    wire                    valid = s_q[SW-3];
    wire                    sign  = s_q[SW-4];
    wire                    inf   = s_q[SW-5];
    wire                    nan   = s_q[SW-6];
    wire                    tcin  = s_q[ACC_W+1];
    wire                    tsgn  = s_q[ACC_W];
    wire signed [ACC_W-1:0] term  = s_q[ACC_W-1:0];

    reg  signed [ACC_W-1:0] base;
    reg                    base_nan, base_pinf, base_ninf, base_ovf;

    always @* begin
        // clr restarts from an empty sum
        base      = clr ? {ACC_W{1'b0}} : acc_q;
        base_nan  = clr ? 1'b0 : nan_q;
        base_pinf = clr ? 1'b0 : pinf_q;
        base_ninf = clr ? 1'b0 : ninf_q;
        base_ovf  = clr ? 1'b0 : ovf_q;
        acc_d  = base;
        nan_d  = base_nan;
        pinf_d = base_pinf;
        ninf_d = base_ninf;
        ovf_d  = base_ovf;
        if (valid) begin
            if (nan) begin
                nan_d = 1'b1;
            end else if (inf) begin
                pinf_d = base_pinf | ~sign;
                ninf_d = base_ninf | sign;
            end else begin
                acc_d = base + term;
                // wrapped iff both addends share a sign the sum does not
                ovf_d = base_ovf | ((base[ACC_W-1] == term[ACC_W-1]) &&
                                    (acc_d[ACC_W-1] != base[ACC_W-1]));
            end
        end
    end

    always @(posedge clk_i) begin
        if (rst) begin
            acc_q  <= {ACC_W{1'b0}};
            nan_q  <= 1'b0;
            pinf_q <= 1'b0;
            ninf_q <= 1'b0;
            ovf_q  <= 1'b0;
        end else begin
            acc_q  <= acc_d;
            nan_q  <= nan_d;
            pinf_q <= pinf_d;
            ninf_q <= ninf_d;
            ovf_q  <= ovf_d;
        end
    end

    wire   nan_c      = nan_q | (pinf_q & ninf_q);
    wire   inf_c      = ~nan_c & (pinf_q | ninf_q);

    generate
        if (SPLIT == 0) begin : g_one
            assign acc_o      = acc_q;
            assign ovf_o      = ovf_q;
            assign nan_o      = nan_c;
            assign inf_o      = inf_c;
            assign inf_sign_o = ninf_q;
            wire unused_tsgn = ^{tsgn, tcin};
        end else begin : g_split
            // The sum in two halves: lo_q (the low L bits), hi_q (the high
            // H bits) and c_q, the carry out of the low half's last add,
            // not yet added into hi_q. Value = (hi_q + c_q) * 2^L + lo_q.
            // Each cycle: {c, lo} = lo + term_lo (L bits), hi = hi + term_hi
            // + c (H bits, the old carry as carry-in): two carry chains of
            // L and H bits side by side instead of one of ACC_W in the loop.
            // acc_o resolves the value (one H-bit increment after the
            // registers, outside the loop). The wrap check needs the sign
            // of the sum after the add, known only once the carry is
            // resolved: the add's operand signs wait in registers and the
            // check runs two cycles later on the resolved sign, itself
            // registered (sgnr_q). acc_o and the flags are SPLIT = 0's, one
            // cycle later (the output register below).
            localparam integer L = ACC_W / 2;
            localparam integer H = ACC_W - L;
            reg  [L-1:0] lo_q;
            reg  [H-1:0] hi_q;
            reg          c_q, pend_q, psu_q, pst_q;
            // The wrap check of the add of cycle t runs at t + 2: the sign
            // of the resolved sum (after the add) in sgnr_q, the add's
            // operand signs delayed twice (pend2_q, psu2_q, pst2_q). h_q is
            // the flag before that add (cleared by a clr or rst of cycle t,
            // delayed in clr1_q); ovf_full = the flag after it.
            reg          sgnr_q, pend2_q, psu2_q, pst2_q, clr1_q, h_q;
            wire         sgn_q = hi_q[H-1] ^ (c_q & (&hi_q[H-2:0]));
            wire         chk2  = pend2_q & (psu2_q == pst2_q) & (sgnr_q != psu2_q);
            wire         ovf_full = h_q | chk2;
            wire         add   = valid & ~nan & ~inf;
            // The base of this cycle's add: 0 under clr. With an input stage
            // (STAGES >= 1) the next cycle's clr is known one cycle early
            // (ctl_y): a second copy of the halves (lob_q, hib_q, cb_q) is
            // then cleared by the register's synchronous reset, and the
            // carry chains start from registers. STAGES = 0: a select.
            reg  [L-1:0] lob_q;
            reg  [H-1:0] hib_q;
            reg          cb_q;
            wire [L-1:0] blo;
            wire [H-1:0] bhi;
            wire         bc;
            if (STAGES >= 1) begin : g_pre
                assign blo = lob_q;
                assign bhi = hib_q;
                assign bc  = cb_q;
            end else begin : g_sel
                assign blo = clr ? {L{1'b0}} : lo_q;
                assign bhi = clr ? {H{1'b0}} : hi_q;
                assign bc  = clr ? 1'b0 : c_q;
                wire unused_b = ^{lob_q, hib_q, cb_q};
            end
            wire         nclr  = (STAGES >= 1) ? ctl_y[4] : 1'b0;   // next cycle's clr
            // sign of the base (hib + cb: the same AND as sgn_q)
            wire         bsgn  = bhi[H-1] ^ (bc & (&bhi[H-2:0]));
            // term: 0 unless add, the one's complement of a negative term
            // (+ the carry-in cin)
            wire [L-1:0] tlo   = term[L-1:0];
            wire [H-1:0] thi   = term[ACC_W-1:L];
            wire         cin   = tcin;   // add & sign
            // lo + tlo + cin and hi + thi + c: each carry-in through an
            // extra low bit (one carry chain per half)
            wire [L+1:0] lo_s  = {1'b0, blo, 1'b1} + {1'b0, tlo, cin};
            wire [H:0]   hi_s  = {bhi, 1'b1} + {thi, bc};
            wire         unused_hs = ^{hi_s[0], lo_s[0]};
            always @(posedge clk_i) begin
                if (rst) begin
                    lo_q <= {L{1'b0}}; hi_q <= {H{1'b0}}; c_q <= 1'b0;
                    pend_q <= 1'b0; psu_q <= 1'b0; pst_q <= 1'b0;
                end else begin
                    lo_q   <= lo_s[L:1];
                    c_q    <= lo_s[L+1];
                    hi_q   <= hi_s[H:1];
                    pend_q <= add;
                    psu_q  <= bsgn;
                    pst_q  <= tsgn;
                end
                sgnr_q  <= sgn_q;
                pend2_q <= pend_q;
                psu2_q  <= psu_q;
                pst2_q  <= pst_q;
                clr1_q  <= clr | rst;
                h_q     <= clr1_q ? 1'b0 : ovf_full;
                if (rst || nclr) begin
                    lob_q <= {L{1'b0}}; hib_q <= {H{1'b0}}; cb_q <= 1'b0;
                end else begin
                    lob_q <= lo_s[L:1];
                    cb_q  <= lo_s[L+1];
                    hib_q <= hi_s[H:1];
                end
            end
            // output register: the resolved sum and the flags (the increment
            // of the high half and the wrap check end here, not in the
            // reader's logic): one more cycle of latency
            reg [ACC_W-1:0] acc_r;
            reg [3:0]       fl_r;
            always @(posedge clk_i) begin
                acc_r <= {hi_q + {{(H-1){1'b0}}, c_q}, lo_q};
                fl_r  <= {1'b0, ninf_q, inf_c, nan_c};
            end
            assign acc_o      = acc_r;
            assign nan_o      = fl_r[0];
            assign inf_o      = fl_r[1];
            assign inf_sign_o = fl_r[2];
            assign ovf_o      = ovf_full;   // from registers (two LUT levels)
            wire   unused_fl  = fl_r[3];
        end
    endgenerate
endmodule
`default_nettype wire
