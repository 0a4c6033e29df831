// spu_cvt_f32_pipe -- spu_cvt_f32 with STAGES pipeline registers.
//
// Same ports (plus clk_i), parameters and results as spu_cvt_f32 (see
// there); code_o is the conversion of the inputs presented STAGES cycles
// earlier (latency = STAGES cycles, one conversion per cycle). Cut points:
//   A  after decoding f32_i (sign, classes, significand, binade distance d)
//   B1 after the coarse right shift (by a multiple of 8) and its lost bit
//   B  after the fine right shift by d (kept bits, the N bits D below, lost)
//   U  after the rounding decision (the increment, from D, lost and rand_i)
//   C  after the rounding add (the code before the overflow check)
//   STAGES = 0: none (this is spu_cvt_f32); 1: B; 2: B, C; 3: A, B, C;
//   4: A, B1, B, C; 5: A, B1, B, U, C.
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_cvt_f32() in host/src/numerics_hw/.
`default_nettype none
module spu_cvt_f32_pipe #(
    parameter integer STAGES = 2,       // 0..5
    parameter integer E    = 4,
    parameter integer M    = 3,
    parameter integer SPEC = 2,
    parameter integer N    = 23 - M     // SR random bits (docs/numerics.md)
) (
    input  wire         clk_i,
    input  wire [31:0]  f32_i,
    input  wire [1:0]   round_i,
    input  wire         ovf_i,
    input  wire [N-1:0] rand_i,
    output reg  [E+M:0] code_o
);
    localparam integer BIAS  = (1 << (E - 1)) - 1;
    // f32 biased exponent of the target's smallest normal binade
    localparam integer EMINB = 128 - BIAS;
    localparam [7:0]   EMINB8 = EMINB[7:0];
    localparam integer XW    = 24 + N;          // significand + SR/guard bits
    localparam integer CW    = M + 11;          // code before the overflow check
    // largest finite magnitude code
    localparam integer MAXC  = (SPEC == 2) ? (((1 << E) - 1) << M) | ((1 << M) - 2)
                                           : (((1 << E) - 2) << M) | ((1 << M) - 1);
    localparam integer CUT_A = (STAGES >= 3) ? 1 : 0;
    localparam integer CUT_B1 = (STAGES >= 4) ? 1 : 0;
    localparam integer CUT_B = (STAGES >= 1) ? 1 : 0;
    localparam integer CUT_U = (STAGES >= 5) ? 1 : 0;
    localparam integer CUT_C = (STAGES >= 2) ? 1 : 0;
    // bits every stage passes on: sign, NaN, Inf, NaN payload, round, ovf
    localparam integer PW    = 1 + 1 + 1 + (M - 1) + 2 + 1;

    wire [E+M-1:0] maxc = MAXC[E+M-1:0];
    wire [E+M-1:0] infc = (SPEC == 2) ? {(E+M){1'b1}} : {{E{1'b1}}, {M{1'b0}}};

    // ---- stage A: decode ---------------------------------------------------
    wire          s   = f32_i[31];
    wire [7:0]    ef  = f32_i[30:23];
    wire [22:0]   mf  = f32_i[22:0];
    wire          in_nan = (&ef) & (|mf);
    wire          in_inf = (&ef) & ~(|mf);
    wire [23:0]   sig = {|ef, mf};
    // effective biased exponent: subnormal inputs sit in binade 1
    wire [7:0]    ee  = ef | {7'd0, ~(|ef)};

    // d = EMINB - ee binades below the target's normal range (0 if none),
    // clamped to XW: a shift of XW or more keeps nothing, the clamp keeps
    // the shift defined. 8-bit arithmetic (EMINB, ee < 256, XW < 128).
    localparam [31:0] XWV = XW;
    wire [7:0]    dd    = EMINB8 - ee;
    wire          below = ee < EMINB8;
    wire [6:0]    d_a   = !below ? 7'd0 : (dd > XWV[7:0]) ? XWV[6:0] : dd[6:0];
    // biased target exponent - 1, or 0 below emin
    wire [7:0]    field_m1_a = (ee > EMINB8) ? (ee - EMINB8) : 8'd0;
    wire [PW-1:0] pass_a = {s, in_nan, in_inf, mf[21 -: M-1], round_i, ovf_i};

    localparam integer AW = PW + 24 + 7 + 8 + N;
    wire [AW-1:0] a_q;
    spu_pipe_stage #(.W(AW), .EN(CUT_A)) u_a (.clk_i(clk_i),
        .d_i({pass_a, sig, d_a, field_m1_a, rand_i}), .q_o(a_q));
    wire [PW-1:0] pass_b_in = a_q[AW-1 -: PW];
    wire [23:0]   sig_b  = a_q[8+7+N +: 24];
    wire [6:0]    d_b    = a_q[8+N +: 7];
    wire [7:0]    fm1_b  = a_q[N +: 8];
    wire [N-1:0]  rand_b = a_q[N-1:0];

    // ---- stage B1: coarse shift (a multiple of 8 binades) -------------------
    wire [XW-1:0] x   = {sig_b, {N{1'b0}}};
    wire [XW-1:0] x1  = x >> {d_b[6:3], 3'b000};
    wire          ls1 = |(x & ~({XW{1'b1}} << {d_b[6:3], 3'b000}));

    localparam integer B1W = PW + XW + 1 + 3 + 8 + N;
    wire [B1W-1:0] b1_q;
    spu_pipe_stage #(.W(B1W), .EN(CUT_B1)) u_b1 (.clk_i(clk_i),
        .d_i({pass_b_in, x1, ls1, d_b[2:0], fm1_b, rand_b}), .q_o(b1_q));
    wire [PW-1:0] pass_b2 = b1_q[B1W-1 -: PW];
    wire [XW-1:0] x1_b    = b1_q[N+8+3+1 +: XW];
    wire          ls1_b   = b1_q[N+8+3];
    wire [2:0]    df_b    = b1_q[N+8 +: 3];
    wire [7:0]    fm1_b2  = b1_q[N +: 8];
    wire [N-1:0]  rand_b2 = b1_q[N-1:0];

    // ---- stage B: fine shift into the target grid ---------------------------
    reg [XW-1:0]  xs;       // x >> d: kept | D | lower bits
    reg           lost;     // nonzero bits below D (shifted out or not)
    reg [M:0]     kept;     // kept magnitude bits (hidden bit on top)
    reg [N-1:0]   dbits;    // D: the N bits just below the kept LSB
    always @* begin
        xs       = x1_b >> df_b;
        kept     = xs[XW-1 -: M+1];
        dbits    = xs[XW-M-2 -: N];
        lost     = ls1_b | (|xs[XW-M-2-N:0]) | (|(x1_b & ~({XW{1'b1}} << df_b)));
    end

    localparam integer BW = PW + (M + 1) + N + 1 + 8 + N;
    wire [BW-1:0] b_q;
    spu_pipe_stage #(.W(BW), .EN(CUT_B)) u_b (.clk_i(clk_i),
        .d_i({pass_b2, kept, dbits, lost, fm1_b2, rand_b2}), .q_o(b_q));
    wire [PW-1:0] pass_c_in = b_q[BW-1 -: PW];
    wire [M:0]    kept_c  = b_q[N+8+1+N +: M+1];
    wire [N-1:0]  dbits_c = b_q[N+8+1 +: N];
    wire          lost_c  = b_q[N+8];
    wire [7:0]    fm1_c   = b_q[N +: 8];
    wire [N-1:0]  rand_c  = b_q[N-1:0];
    wire [1:0]    round_c = pass_c_in[1 +: 2];

    // ---- stage U: rounding decision ------------------------------------------
    reg           rb, st;
    reg [N:0]     srsum;
    reg           up;
    always @* begin
        rb       = dbits_c[N-1];
        st       = (|dbits_c[N-2:0]) | lost_c;
        srsum    = {1'b0, dbits_c} + {1'b0, rand_c};
        case (round_c)
            2'd0:    up = rb & (st | kept_c[0]);   // rne
            2'd1:    up = 1'b0;                    // rtz
            2'd2:    up = rb;                      // rna
            default: up = srsum[N];                // sr: carry out of D + R
        endcase
    end

    localparam integer UW = PW + (M + 1) + 1 + 8;
    wire [UW-1:0] u_q;
    spu_pipe_stage #(.W(UW), .EN(CUT_U)) u_u (.clk_i(clk_i),
        .d_i({pass_c_in, kept_c, up, fm1_c}), .q_o(u_q));
    wire [PW-1:0] pass_u = u_q[UW-1 -: PW];
    wire [M:0]    kept_u = u_q[9 +: M+1];
    wire          up_u   = u_q[8];
    wire [7:0]    fm1_u  = u_q[7:0];

    // ---- stage C: round ----------------------------------------------------
    // normal: (field-1)<<M plus kept with its hidden bit = field<<M | man;
    // subnormal: kept has no hidden bit. A carry rolls into the exponent.
    wire [CW-1:0] code = ({{(CW-8){1'b0}}, fm1_u} << M) + {{(CW-M-1){1'b0}}, kept_u} + {{(CW-1){1'b0}}, up_u};

    localparam integer CCW = PW + CW;
    wire [CCW-1:0] c_q;
    spu_pipe_stage #(.W(CCW), .EN(CUT_C)) u_c (.clk_i(clk_i),
        .d_i({pass_u, code}), .q_o(c_q));

    // ---- stage D: specials and overflow ------------------------------------
    wire          s_d     = c_q[CCW-1];
    wire          nan_d   = c_q[CCW-2];
    wire          inf_d   = c_q[CCW-3];
    wire [M-2:0]  nanm_d  = c_q[CW+3 +: M-1];
    wire [1:0]    round_d = c_q[CW+1 +: 2];
    wire          ovf_d   = c_q[CW];
    wire [CW-1:0] code_d  = c_q[CW-1:0];
    wire [E+M-1:0] nanc = (SPEC == 2) ? {(E+M){1'b1}} : {{E{1'b1}}, 1'b1, nanm_d};
    always @* begin
        if (nan_d)
            code_o = {s_d, nanc};
        else if (inf_d)
            code_o = {s_d, ovf_d ? infc : maxc};
        else if (code_d > {{(CW-E-M){1'b0}}, maxc})
            code_o = {s_d, (ovf_d && round_d != 2'd1) ? infc : maxc};
        else
            code_o = {s_d, code_d[E+M-1:0]};
    end
endmodule
`default_nettype wire
