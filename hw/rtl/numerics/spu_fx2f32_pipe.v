// spu_fx2f32_pipe -- spu_fx2f32 with STAGES pipeline registers.
//
// Same ports (plus clk_i), parameters and results as spu_fx2f32 (see
// there); f32_o is the rounding of the inputs presented STAGES cycles
// earlier (latency = STAGES cycles, one result per cycle). Cut points:
//   A  after the magnitude and its leading-one position
//   B  after the normalizing left shift (and the exponent arithmetic)
//   C  after the subnormal right shift, round and sticky bits
//   D  after the rounding add (before the specials / overflow select)
//   STAGES = 0: none (this is spu_fx2f32); 1: B; 2: A, C; 3: A, B, C;
//   4: A, B, C, D.
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_fx2f32() in host/src/numerics_hw/.
`default_nettype none
module spu_fx2f32_pipe #(
    parameter integer STAGES = 2,    // 0..4
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
    localparam integer CUT_A = (STAGES >= 2) ? 1 : 0;
    localparam integer CUT_B = (STAGES == 1 || STAGES >= 3) ? 1 : 0;
    localparam integer CUT_C = (STAGES >= 2) ? 1 : 0;
    localparam integer CUT_D = (STAGES >= 4) ? 1 : 0;
    // bits every stage passes on: nan, inf, inf sign, result sign, x == 0
    localparam integer PW = 5;

    // ---- stage A: magnitude and leading one ---------------------------------
    wire          neg = x_i[W-1];
    wire [W-1:0]  mag = neg ? (~x_i + 1'b1) : x_i;   // -2^(W-1) fits unsigned

    // Leading-one position of mag (priority encoder, lowest index wins last).
    integer       i;
    reg [31:0]    msb;      // position of the leading one, 0 if mag == 0
    always @* begin
        msb = 32'd0;
        for (i = 0; i < W; i = i + 1)
            if (mag[i]) msb = i;
    end
    wire [PW-1:0] pass_a = {nan_i, inf_i, inf_sign_i, neg, mag == {W{1'b0}}};

    localparam integer AW = PW + W + 8 + EW;
    wire [AW-1:0] a_q;
    spu_pipe_stage #(.W(AW), .EN(CUT_A)) u_a (.clk_i(clk_i),
        .d_i({pass_a, mag, msb[7:0], e_i}), .q_o(a_q));
    wire [PW-1:0] pass_b = a_q[AW-1 -: PW];
    wire [W-1:0]  mag_b  = a_q[8+EW +: W];
    wire [31:0]   msb_b  = {24'd0, a_q[EW +: 8]};
    wire [EW-1:0] e_b    = a_q[EW-1:0];

    // ---- stage B: normalize, exponent ----------------------------------------
    reg  signed [31:0] t;        // unbiased exponent of the leading one
    reg  signed [31:0] under;    // how far t is below the normal range
    reg  [31:0]        d;        // extra right shift for subnormal results
    reg  [NW-1:0]      norm;     // mag, leading one at bit NW-1
    reg  signed [31:0] field_m1; // biased exponent - 1 (normal), 0 (subnormal)
    always @* begin
        t        = $signed(msb_b) + {{(32-EW){e_b[EW-1]}}, e_b};
        norm     = {mag_b, 26'd0} << (W - 1 - msb_b);
        under    = -32'sd126 - t;
        // A shift of NW or more keeps nothing; clamp so the shift is defined.
        d        = (under <= 0) ? 32'd0 : (under >= NW) ? NW : under;
        field_m1 = (under <= 0) ? (t + 32'sd126) : 32'sd0;
        if (t > 32'sd200)   // clamp: anything this large overflows anyway
            field_m1 = 32'sd400;
    end

    // msb, d < 256 and 0 <= field_m1 <= 400 for W <= 200: the high bits are 0
    wire unused_hi = ^{msb[31:8], d[31:8], field_m1[31:10]};

    localparam integer BW = PW + NW + 8 + 10;
    wire [BW-1:0] b_q;
    spu_pipe_stage #(.W(BW), .EN(CUT_B)) u_b (.clk_i(clk_i),
        .d_i({pass_b, norm, d[7:0], field_m1[9:0]}), .q_o(b_q));
    wire [PW-1:0] pass_c = b_q[BW-1 -: PW];
    wire [NW-1:0] norm_c = b_q[18 +: NW];
    wire [31:0]   d_c    = {24'd0, b_q[10 +: 8]};
    wire [9:0]    fm1_c  = b_q[9:0];

    // ---- stage C: subnormal shift, round and sticky bits -----------------------
    reg  [NW-1:0]      shifted;
    reg                sticky;
    reg  [23:0]        kept;
    reg                rnd;
    always @* begin
        shifted  = norm_c >> d_c;
        sticky   = |(norm_c & ~({NW{1'b1}} << d_c));
        kept     = shifted[NW-1:NW-24];
        rnd      = shifted[NW-25];
        sticky   = sticky | (|shifted[NW-26:0]);
    end

    localparam integer CCW = PW + 24 + 1 + 1 + 10;
    wire [CCW-1:0] c_q;
    spu_pipe_stage #(.W(CCW), .EN(CUT_C)) u_c (.clk_i(clk_i),
        .d_i({pass_c, kept, rnd, sticky, fm1_c}), .q_o(c_q));
    wire [PW-1:0] pass_d  = c_q[CCW-1 -: PW];
    wire [23:0]   kept_d  = c_q[12 +: 24];
    wire          rnd_d   = c_q[11];
    wire          st_d    = c_q[10];
    wire [9:0]    fm1_d   = c_q[9:0];

    // ---- stage D: round -------------------------------------------------------
    wire               up   = rnd_d & (st_d | kept_d[0]);
    wire signed [33:0] code = ({24'd0, fm1_d} <<< 23) + {10'd0, kept_d} + {33'd0, up};

    localparam integer DW = PW + 34;
    wire [DW-1:0] d_q;
    spu_pipe_stage #(.W(DW), .EN(CUT_D)) u_d (.clk_i(clk_i),
        .d_i({pass_d, code}), .q_o(d_q));
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
        else if (code_e >= 34'sh7F800000)
            f32_o = {neg_e, 31'h7F800000};
        else
            f32_o = {neg_e, code_e[30:0]};
    end
endmodule
`default_nettype wire
