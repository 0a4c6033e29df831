// spu_mul_fp -- exact product of two small floating-point codes.
//
// One parameterized unit serves every fp pair of the numerics issue:
//   e4m3 x e4m3, e5m2 x e5m2, e4m3 x e5m2, bf16 x bf16 and the MX element
//   pairs e2m1 x e2m1, e2m3 x e2m3, e3m2 x e3m2 (see docs/numerics-rtl.md).
// Operand formats are sign + A_EXP exponent bits + A_MAN mantissa bits, bias
// 2^(A_EXP-1)-1, with the special-value convention A_SPEC:
//   0 = none (MX element types: every code is finite)
//   1 = IEEE (all-ones exponent: mantissa 0 -> Inf, else NaN; e5m2, bf16)
//   2 = OCP E4M3 (only the all-ones exponent AND mantissa is NaN, no Inf)
//
// Output encoding (exact, no rounding):
//   finite:  value = (-1)^sign_o * sig_o * 2^exp_o, sig_o the integer product
//            of the two significands (hidden bit included), exp_o a signed
//            two's-complement exponent of sig_o's LSB; zero_o = (sig_o == 0)
//            and then exp_o = 0.
//   nan_o:   either operand NaN, or 0 x Inf;  inf_o: otherwise an Inf operand.
//            In both cases sig_o = 0 and exp_o = 0 so the fields are canonical.
//   sign_o is always the XOR of the operand signs (also for zero/Inf/NaN).
// Purely combinational. C twin: spu_hw_mul_fp() in host/src/numerics_hw/.
`default_nettype none
module spu_mul_fp #(
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2,
    // derived widths: leave at their defaults
    parameter integer SIG_W  = A_MAN + B_MAN + 2,
    parameter integer PE_W   = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3
) (
    input  wire [A_EXP+A_MAN:0] a_i,
    input  wire [B_EXP+B_MAN:0] b_i,
    output reg                  sign_o,
    output reg  [PE_W-1:0]      exp_o,
    output reg  [SIG_W-1:0]     sig_o,
    output reg                  zero_o,
    output reg                  inf_o,
    output reg                  nan_o
);
    localparam integer A_BIAS = (1 << (A_EXP - 1)) - 1;
    localparam integer B_BIAS = (1 << (B_EXP - 1)) - 1;
    // Exponent of the product LSB = ea + eb - OFFSET, ea/eb the effective
    // (subnormal -> 1) biased exponents.
    localparam integer OFFSET = A_BIAS + A_MAN + B_BIAS + B_MAN;

    wire [A_EXP-1:0] a_e = a_i[A_EXP+A_MAN-1:A_MAN];
    wire [A_MAN-1:0] a_m = a_i[A_MAN-1:0];
    wire [B_EXP-1:0] b_e = b_i[B_EXP+B_MAN-1:B_MAN];
    wire [B_MAN-1:0] b_m = b_i[B_MAN-1:0];

    wire a_emax = &a_e;
    wire b_emax = &b_e;
    wire a_nan = (A_SPEC == 1) ? (a_emax & (|a_m)) : (A_SPEC == 2) ? (a_emax & (&a_m)) : 1'b0;
    wire b_nan = (B_SPEC == 1) ? (b_emax & (|b_m)) : (B_SPEC == 2) ? (b_emax & (&b_m)) : 1'b0;
    wire a_inf = (A_SPEC == 1) & a_emax & ~(|a_m);
    wire b_inf = (B_SPEC == 1) & b_emax & ~(|b_m);
    wire a_zero = ~(|a_e) & ~(|a_m);
    wire b_zero = ~(|b_e) & ~(|b_m);

    // Significands with the hidden bit (0 for subnormals and zero).
    wire [A_MAN:0] a_sig = {|a_e, a_m};
    wire [B_MAN:0] b_sig = {|b_e, b_m};
    // Effective biased exponents, widened so the sum cannot wrap.
    wire [PE_W-1:0] a_ee = {{(PE_W-A_EXP){1'b0}}, a_e | {{(A_EXP-1){1'b0}}, ~(|a_e)}};
    wire [PE_W-1:0] b_ee = {{(PE_W-B_EXP){1'b0}}, b_e | {{(B_EXP-1){1'b0}}, ~(|b_e)}};
    wire [PE_W-1:0] offset = OFFSET[PE_W-1:0];

    always @* begin
        sign_o = a_i[A_EXP+A_MAN] ^ b_i[B_EXP+B_MAN];
        nan_o  = a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero);
        inf_o  = ~nan_o & (a_inf | b_inf);
        zero_o = ~nan_o & ~inf_o & (a_zero | b_zero);
        sig_o  = a_sig * b_sig;
        exp_o  = a_ee + b_ee - offset;
        if (nan_o | inf_o | zero_o) begin
            sig_o = {SIG_W{1'b0}};
            exp_o = {PE_W{1'b0}};
        end
    end
endmodule
`default_nettype wire
