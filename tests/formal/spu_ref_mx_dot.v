// spu_ref_mx_dot -- reference model for the proofs (not synthesized into
// anything): an OCP MX block dot product written from docs/numerics.md
// ("Exact decode", "Exact products", "OCP MX block formats",
// "Accumulation": spu_mx_dot_exact), not from hw/rtl/numerics/spu_mx_dot*.v.
// Each element is decoded exactly (sig * 2^exp; normal: sig = 2^m + M,
// exp = E - bias - m; subnormal: sig = M, exp = 1 - bias - m; mxint8:
// the signed byte v, exp = -6), each product is sig_a * sig_b * 2^(exp_a + exp_b),
// and the products are added one after the other, in element order, into
// a wide two's-complement integer whose LSB weighs 2^LSB (the smallest
// product exponent) -- exact, so the order is irrelevant. That sum times
// 2^(LSB + sa + sb - 254) is rounded once to fp32 by spu_ref_fx2f32 (the
// reference rounder, itself proven equal to spu_fx2f32).
// Specials: a scale 0xFF, a NaN product (NaN operand, 0 x Inf) or Inf
// products of both signs -> NaN; else an Inf product -> Inf of its sign.
// Element formats as spu_mul_fp (A_/B_ EXP, MAN, SPEC: 0 none, 1 IEEE,
// 2 OCP E4M3); INT8 = 1: mxint8 (A_/B_ unused, bytes of int8 * 2^-6).
`default_nettype none
module spu_ref_mx_dot #(
    parameter integer N      = 32,
    parameter integer INT8   = 0,
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
    input  wire [N*(1+A_EXP+A_MAN)-1:0] a_i,
    input  wire [N*(1+B_EXP+B_MAN)-1:0] b_i,
    input  wire [7:0]                   sa_i,
    input  wire [7:0]                   sb_i,
    output wire [31:0]                  f32_o
);
    localparam integer AW     = 1 + A_EXP + A_MAN;
    localparam integer BW     = 1 + B_EXP + B_MAN;
    localparam integer A_BIAS = (1 << (A_EXP - 1)) - 1;
    localparam integer B_BIAS = (1 << (B_EXP - 1)) - 1;
    localparam integer LSB    = (INT8 != 0) ? -12 : (1 - A_BIAS - A_MAN) + (1 - B_BIAS - B_MAN);
    // the largest product: significands of MAN+1 bits each, shifted by at
    // most the exponent range of each side; N of them and a sign bit
    localparam integer SPAN   = (INT8 != 0) ? 16
                              : (A_MAN + 1) + (B_MAN + 1) + ((1 << A_EXP) - 2) + ((1 << B_EXP) - 2);
    localparam integer SW     = SPAN + 1 + 6;        // N <= 64
    localparam integer EW     = 11;

    reg  signed [SW-1:0] sum, term;
    reg                  nan, pinf, ninf;
    reg  [AW-1:0]        ac;
    reg  [BW-1:0]        bc;
    reg                  as_, bs_, a_nan, b_nan, a_inf, b_inf;
    integer              ae, be, am, bm, asig, bsig, aexp, bexp, k;
    reg  [EW-1:0]        e_sum;

    always @* begin
        sum  = {SW{1'b0}};
        nan  = (sa_i == 8'hFF) || (sb_i == 8'hFF);
        pinf = 1'b0;
        ninf = 1'b0;
        for (k = 0; k < N; k = k + 1) begin
            ac = a_i[k*AW +: AW];
            bc = b_i[k*BW +: BW];
            if (INT8 != 0) begin
                // the sign goes with the value: the product of the two
                // signed bytes, added as it is (as_ = bs_ = 0 below)
                as_ = 1'b0;
                bs_ = 1'b0;
                asig = $signed(ac[7:0]);
                bsig = $signed(bc[7:0]);
                aexp = -6;
                bexp = -6;
                a_nan = 1'b0; b_nan = 1'b0; a_inf = 1'b0; b_inf = 1'b0;
            end else begin
                as_ = ac[AW-1];
                bs_ = bc[BW-1];
                ae  = (ac >> A_MAN) & ((1 << A_EXP) - 1);
                am  = ac & ((1 << A_MAN) - 1);
                be  = (bc >> B_MAN) & ((1 << B_EXP) - 1);
                bm  = bc & ((1 << B_MAN) - 1);
                a_nan = (A_SPEC == 1 && ae == (1 << A_EXP) - 1 && am != 0) ||
                        (A_SPEC == 2 && ae == (1 << A_EXP) - 1 && am == (1 << A_MAN) - 1);
                b_nan = (B_SPEC == 1 && be == (1 << B_EXP) - 1 && bm != 0) ||
                        (B_SPEC == 2 && be == (1 << B_EXP) - 1 && bm == (1 << B_MAN) - 1);
                a_inf = (A_SPEC == 1 && ae == (1 << A_EXP) - 1 && am == 0);
                b_inf = (B_SPEC == 1 && be == (1 << B_EXP) - 1 && bm == 0);
                asig = (ae == 0) ? am : (1 << A_MAN) + am;
                bsig = (be == 0) ? bm : (1 << B_MAN) + bm;
                aexp = ((ae == 0) ? 1 : ae) - A_BIAS - A_MAN;
                bexp = ((be == 0) ? 1 : be) - B_BIAS - B_MAN;
            end
            if (a_nan || b_nan || (a_inf && bsig == 0 && !b_inf) || (b_inf && asig == 0 && !a_inf))
                nan = 1'b1;
            else if (a_inf || b_inf) begin
                if (as_ ^ bs_) ninf = 1'b1;
                else pinf = 1'b1;
            end else begin
                term = asig * bsig;
                term = term <<< (aexp + bexp - LSB);
                sum  = (as_ ^ bs_) ? sum - term : sum + term;
            end
        end
        nan   = nan || (pinf && ninf);
        e_sum = LSB + sa_i + sb_i - 254;
    end

    spu_ref_fx2f32 #(.W(SW), .EW(EW)) u_round (.x_i(sum), .e_i(e_sum), .nan_i(nan), .inf_i(pinf | ninf),
        .inf_sign_i(ninf), .f32_o(f32_o));
endmodule
`default_nettype wire
