// spu_fx2f32_pipe -- spu_fx2f32 with STAGES pipeline registers.
//
// Same ports (plus clk_i), parameters and results as spu_fx2f32 (see
// there); f32_o is the rounding of the inputs presented STAGES cycles
// earlier (latency = STAGES cycles, one result per cycle). Cut points:
//   N1 after the low half of the magnitude (negation) and its carry
//   N  after the magnitude (the negation of x_i)
//   A  after the leading-one position (a tree: log2 W levels of 2:1 muxes)
//   B1 after the exponent sums (fr = t + 126, under = -126 - t) and the
//      coarse normalizing shift (by a multiple of 8)
//   B  after the fine normalizing shift (0..7), the subnormal distance d
//      and the exponent field (clamps of fr, under)
//   C1 after the coarse subnormal right shift and its sticky bit
//   C  after the fine subnormal right shift, round and sticky bits
//   D1 after the low half of the rounding add (kept[22:0] + up, 24 bits
//      with its carry out of the fraction)
//   D  after the rounding add (the 11-bit exponent part: field - 1 +
//      the hidden bit + that carry; before the specials / overflow select)
//   STAGES = 0: none (this is spu_fx2f32); 1: B; 2: A, C; 3: A, B, C;
//   4: A, B, C, D; 5: A, B1, B, C, D; 6: N, A, B1, B, C, D;
//   7: N, A, B1, B, C1, C, D; 8: N1, N, A, B1, B, C1, C, D;
//   9: N1, N, A, B1, B, C1, C, D1, D.
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_fx2f32() in host/src/numerics_hw/.
`default_nettype none
module spu_fx2f32_pipe #(
    parameter integer STAGES = 2,    // 0..9
    parameter integer W  = 48,   // width of x_i (2 .. 200)
    parameter integer EW = 10    // width of e_i (<= 30)
) (
    input  wire          clk_i,
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output reg  [31:0]   f32_o
);
    // The normalized magnitude gets 26 zero bits below it so the kept
    // 24 bits, the round bit and one sticky bit always exist.
    localparam integer NW = W + 26;
    // Exponent arithmetic is done in 32-bit signed integers; W and EW are
    // small enough that nothing wraps.
    localparam integer CUT_N1 = (STAGES >= 8) ? 1 : 0;
    localparam integer CUT_N  = (STAGES >= 6) ? 1 : 0;
    localparam integer CUT_A  = (STAGES >= 2) ? 1 : 0;
    localparam integer CUT_B1 = (STAGES >= 5) ? 1 : 0;
    localparam integer CUT_B  = (STAGES == 1 || STAGES >= 3) ? 1 : 0;
    localparam integer CUT_C1 = (STAGES >= 7) ? 1 : 0;
    localparam integer CUT_C  = (STAGES >= 2) ? 1 : 0;
    localparam integer CUT_D1 = (STAGES >= 9) ? 1 : 0;
    localparam integer CUT_D  = (STAGES >= 4) ? 1 : 0;
    // bits every stage passes on: nan, inf, inf sign, result sign, x == 0
    localparam integer PW = 5;

    // ceil(log2(v)), v >= 2
    function integer clog2(input integer v);
        integer r;
        begin
            r = 0;
            while ((1 << r) < v) r = r + 1;
            clog2 = r;
        end
    endfunction
    // offset of level l's positions in lz_p: sum of k * (P >> k), k = 1..l-1
    function integer pofs(input integer l);
        integer k, r;
        begin
            r = 0;
            for (k = 1; k < l; k = k + 1) r = r + k * ((1 << clog2(W)) >> k);
            pofs = r;
        end
    endfunction

    // ---- stage N1: low half of the magnitude ------------------------------------
    // |x| = ~x + 1 for negative x (-2^(W-1) fits unsigned), in two halves:
    // the low H bits and their carry here, the high bits in stage N.
    localparam integer H = W / 2;
    wire          neg   = x_i[W-1];
    wire [H:0]    lo_n1 = neg ? ({1'b0, ~x_i[H-1:0]} + 1'b1) : {1'b0, x_i[H-1:0]};
    wire [PW-1:0] pass_n1 = {nan_i, inf_i, inf_sign_i, neg, x_i == {W{1'b0}}};

    localparam integer N1W = PW + (W - H) + H + 1 + EW;
    wire [N1W-1:0] n1_q;
    spu_pipe_stage #(.W(N1W), .EN(CUT_N1)) u_n1 (.clk_i(clk_i),
        .d_i({pass_n1, x_i[W-1:H], lo_n1, e_i}), .q_o(n1_q));
    wire [PW-1:0]  pass_n = n1_q[N1W-1 -: PW];
    wire [W-H-1:0] xh_n   = n1_q[EW+H+1 +: W-H];
    wire [H-1:0]   lo_n   = n1_q[EW +: H];
    wire           cy_n   = n1_q[EW+H];
    wire [EW-1:0]  e_n    = n1_q[EW-1:0];

    // ---- stage N: magnitude ----------------------------------------------------
    wire           neg_n  = pass_n[1];
    wire [W-H-1:0] hi_n   = neg_n ? (~xh_n + {{(W-H-1){1'b0}}, cy_n}) : xh_n;
    // without the N1 cut, one W-bit negation (one carry chain, not two in series)
    wire [W-1:0]   mag_one = neg ? (~x_i + 1'b1) : x_i;
    wire [W-1:0]   mag_n  = (CUT_N1 != 0) ? {hi_n, lo_n} : mag_one;

    localparam integer NQW = PW + W + EW;
    wire [NQW-1:0] n_q;
    spu_pipe_stage #(.W(NQW), .EN(CUT_N)) u_n (.clk_i(clk_i),
        .d_i({pass_n, mag_n, e_n}), .q_o(n_q));
    wire [PW-1:0] pass_a = n_q[NQW-1 -: PW];
    wire [W-1:0]  mag    = n_q[EW +: W];
    wire [EW-1:0] e_a    = n_q[EW-1:0];

    // ---- stage A: leading one ---------------------------------------------------
    // Position of the highest set bit of mag (0 if mag == 0): a binary tree
    // over P = 2^LG >= W bits; level l holds P >> l nodes, each a valid bit
    // and an l-bit position within its 2^l bits (the upper half wins).
    localparam integer LG = clog2(W);
    localparam integer P  = 1 << LG;
    wire [P:0]        lz_ext = {{(P - W + 1){1'b0}}, mag};
    wire [2*P-1:0]    lz_v /*verilator split_var*/;  // level l at offset 2P - 2(P >> l)
    localparam integer LZ_PW = pofs(LG + 1) + 1;
    wire [LZ_PW-1:0]  lz_p /*verilator split_var*/;  // level l at offset pofs(l)
    assign lz_v[P-1:0] = lz_ext[P-1:0];
    genvar gl, gj;
    generate
        for (gl = 1; gl <= LG; gl = gl + 1) begin : g_lz
            localparam integer VO = 2*P - 2*(P >> gl);        // this level's valid bits
            localparam integer VI = 2*P - 2*(P >> (gl - 1));  // the level below
            localparam integer PO = pofs(gl);                 // this level's positions
            localparam integer PI = pofs(gl - 1);             // the level below
            for (gj = 0; gj < (P >> gl); gj = gj + 1) begin : g_n
                wire vh = lz_v[VI + 2*gj + 1];
                wire vl = lz_v[VI + 2*gj];
                assign lz_v[VO + gj] = vh | vl;
                if (gl == 1) begin : g_leaf
                    assign lz_p[PO + gj] = vh;
                end else begin : g_inner
                    assign lz_p[PO + gl*gj +: gl] = vh
                        ? {1'b1, lz_p[PI + (gl-1)*(2*gj+1) +: gl-1]}
                        : {1'b0, lz_p[PI + (gl-1)*(2*gj) +: gl-1]};
                end
            end
        end
    endgenerate
    assign lz_p[LZ_PW-1 -: 1] = 1'b0;        // spare bit (pofs(1) = 0 level is empty)
    localparam integer PROOT = pofs(LG);
    wire [31:0] msb = {{(32-LG){1'b0}}, lz_p[PROOT +: LG]};
    wire unused_lz = ^{lz_ext[P], lz_v[2*P-1], lz_p[LZ_PW-1]};

    // The exponent arithmetic runs in FW-bit signed words (enough for
    // e + 126 + msb and -126 - e - msb); e + 126 and -126 - e are formed
    // here, beside the leading-one tree, so stage B1 holds one short add.
    localparam integer FW = ((EW > 9) ? EW : 9) + 2;
    wire signed [FW-1:0] e_x    = {{(FW-EW){e_a[EW-1]}}, e_a};
    wire signed [FW-1:0] e126   = e_x + 126;     // e + 126
    wire signed [FW-1:0] ne126  = -126 - e_x;    // -126 - e

    localparam integer AW = PW + W + 8 + 2*FW;
    wire [AW-1:0] a_q;
    spu_pipe_stage #(.W(AW), .EN(CUT_A)) u_a (.clk_i(clk_i),
        .d_i({pass_a, mag, msb[7:0], e126, ne126}), .q_o(a_q));
    wire [PW-1:0] pass_b = a_q[AW-1 -: PW];
    wire [W-1:0]  mag_b  = a_q[8+2*FW +: W];
    wire [7:0]    msb_b  = a_q[2*FW +: 8];
    wire signed [FW-1:0] e126_b  = a_q[FW +: FW];
    wire signed [FW-1:0] ne126_b = a_q[FW-1:0];

    // ---- stage B1: exponent, coarse normalizing shift ----------------------------
    // t = msb + e is the unbiased exponent of the leading one; fr = t + 126
    // the biased exponent - 1 of a normal result; under = -126 - t how far
    // t is below the normal range (under <= 0 <=> fr >= 0).
    wire signed [FW-1:0] msb_x = {{(FW-8){1'b0}}, msb_b};
    wire signed [FW-1:0] fr    = e126_b + msb_x;
    wire signed [FW-1:0] under = ne126_b - msb_x;
    localparam [31:0] WM1 = W - 1;
    localparam [31:0] NWV = NW;
    wire signed [FW-1:0] nwf = NWV[FW-1:0];
    wire [7:0]    sh    = WM1[7:0] - msb_b;        // normalizing left shift
    wire [NW-1:0] norm1 = {mag_b, 26'd0} << {sh[7:3], 3'b000};
    // msb < 256 for W <= 200
    wire unused_hi = ^msb[31:8];

    localparam integer B1W = PW + NW + 3 + 2*FW;
    wire [B1W-1:0] b1_q;
    spu_pipe_stage #(.W(B1W), .EN(CUT_B1)) u_b1 (.clk_i(clk_i),
        .d_i({pass_b, norm1, sh[2:0], fr, under}), .q_o(b1_q));
    wire [PW-1:0]        pass_b2 = b1_q[B1W-1 -: PW];
    wire [NW-1:0]        norm1_b = b1_q[3+2*FW +: NW];
    wire [2:0]           shf_b   = b1_q[2*FW +: 3];
    wire signed [FW-1:0] fr_b    = b1_q[FW +: FW];
    wire signed [FW-1:0] under_b = b1_q[FW-1:0];

    // ---- stage B: fine normalizing shift, subnormal distance, exponent field ------
    wire [NW-1:0] norm = norm1_b << shf_b;   // leading one at bit NW-1
    reg  [7:0]    d;        // extra right shift for subnormal results
    reg  [9:0]    field_m1; // biased exponent - 1 (normal), 0 (subnormal)
    always @* begin
        // A shift of NW or more keeps nothing; clamp so the shift is defined.
        if (under_b <= 0)
            d = 8'd0;
        else if (under_b >= nwf)
            d = NW[7:0];
        else
            d = under_b[7:0];
        if (fr_b > 326)         // t > 200: anything this large overflows anyway
            field_m1 = 10'd400;
        else if (under_b <= 0)
            field_m1 = fr_b[9:0];
        else
            field_m1 = 10'd0;
    end

    wire [7:0]    d_b2   = d;
    wire [9:0]    fm1_b2 = field_m1;

    localparam integer BW = PW + NW + 8 + 10;
    wire [BW-1:0] b_q;
    spu_pipe_stage #(.W(BW), .EN(CUT_B)) u_b (.clk_i(clk_i),
        .d_i({pass_b2, norm, d_b2, fm1_b2}), .q_o(b_q));
    wire [PW-1:0] pass_c = b_q[BW-1 -: PW];
    wire [NW-1:0] norm_c = b_q[18 +: NW];
    wire [7:0]    d_c    = b_q[10 +: 8];
    wire [9:0]    fm1_c  = b_q[9:0];

    // ---- stage C1: coarse subnormal shift (a multiple of 8) -----------------------
    wire [NW-1:0] r1  = norm_c >> {d_c[7:3], 3'b000};
    wire          st1 = |(norm_c & ~({NW{1'b1}} << {d_c[7:3], 3'b000}));

    localparam integer C1W = PW + NW + 1 + 3 + 10;
    wire [C1W-1:0] c1_q;
    spu_pipe_stage #(.W(C1W), .EN(CUT_C1)) u_c1 (.clk_i(clk_i),
        .d_i({pass_c, r1, st1, d_c[2:0], fm1_c}), .q_o(c1_q));
    wire [PW-1:0] pass_c2 = c1_q[C1W-1 -: PW];
    wire [NW-1:0] r1_c    = c1_q[14 +: NW];
    wire          st1_c   = c1_q[13];
    wire [2:0]    df_c    = c1_q[10 +: 3];
    wire [9:0]    fm1_c2  = c1_q[9:0];

    // ---- stage C: fine subnormal shift, round and sticky bits --------------------
    reg  [NW-1:0]      shifted;
    reg                sticky;
    reg  [23:0]        kept;
    reg                rnd;
    always @* begin
        shifted  = r1_c >> df_c;
        sticky   = st1_c | (|(r1_c & ~({NW{1'b1}} << df_c)));
        kept     = shifted[NW-1:NW-24];
        rnd      = shifted[NW-25];
        sticky   = sticky | (|shifted[NW-26:0]);
    end

    localparam integer CCW = PW + 24 + 1 + 1 + 10;
    wire [CCW-1:0] c_q;
    spu_pipe_stage #(.W(CCW), .EN(CUT_C)) u_c (.clk_i(clk_i),
        .d_i({pass_c2, kept, rnd, sticky, fm1_c2}), .q_o(c_q));
    wire [PW-1:0] pass_d  = c_q[CCW-1 -: PW];
    wire [23:0]   kept_d  = c_q[12 +: 24];
    wire          rnd_d   = c_q[11];
    wire          st_d    = c_q[10];
    wire [9:0]    fm1_d   = c_q[9:0];

    // ---- stage D1: round, the fraction part -------------------------------------
    // code = (field - 1) * 2^23 + kept + up, in two carry chains: the 23
    // fraction bits plus up (its carry out cy), then the exponent part
    // fm1 + kept[23] + cy (11 bits; never above 0x3FF + 2).
    wire        up     = rnd_d & (st_d | kept_d[0]);
    wire [23:0] frac_u = {1'b0, kept_d[22:0]} + {23'd0, up};

    localparam integer D1W = PW + 24 + 1 + 10;
    wire [D1W-1:0] d1_q;
    spu_pipe_stage #(.W(D1W), .EN(CUT_D1)) u_d1 (.clk_i(clk_i),
        .d_i({pass_d, frac_u, kept_d[23], fm1_d}), .q_o(d1_q));
    wire [PW-1:0] pass_d2 = d1_q[D1W-1 -: PW];
    wire [23:0]   frac_d  = d1_q[11 +: 24];
    wire          hid_d   = d1_q[10];
    wire [9:0]    fm1_d2  = d1_q[9:0];

    // ---- stage D: round, the exponent part --------------------------------------
    wire [10:0]        hi_u = {1'b0, fm1_d2} + {10'd0, hid_d} + {10'd0, frac_d[23]};
    wire signed [33:0] code = {hi_u, frac_d[22:0]};

    localparam integer DW = PW + 34;
    wire [DW-1:0] d_q;
    spu_pipe_stage #(.W(DW), .EN(CUT_D)) u_d (.clk_i(clk_i),
        .d_i({pass_d2, code}), .q_o(d_q));
    wire               nan_e  = d_q[DW-1];
    wire               inf_e  = d_q[DW-2];
    wire               infs_e = d_q[DW-3];
    wire               neg_e  = d_q[DW-4];
    wire               zero_e = d_q[DW-5];
    wire signed [33:0] code_e = d_q[33:0];

    // ---- stage E: specials, zero, overflow --------------------------------------
    always @* begin
        if (nan_e)
            f32_o = 32'h7FC00000;
        else if (inf_e)
            f32_o = {infs_e, 31'h7F800000};
        else if (zero_e)
            f32_o = 32'h00000000;
        else if (code_e[33:23] >= 11'd255)   // code >= 0x7F800000 (code >= 0)
            f32_o = {neg_e, 31'h7F800000};
        else
            f32_o = {neg_e, code_e[30:0]};
    end
endmodule
`default_nettype wire
