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
// Purely combinational: spu_mul_fp_pipe at STAGES = 0 (use that module for
// a pipelined multiplier, docs/numerics-rtl.md). C twin: spu_hw_mul_fp() in host/src/numerics_hw/.
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
    output wire                 sign_o,
    output wire [PE_W-1:0]      exp_o,
    output wire [SIG_W-1:0]     sig_o,
    output wire                 zero_o,
    output wire                 inf_o,
    output wire                 nan_o
);
    spu_mul_fp_pipe #(
        .STAGES(0),
        .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
        .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC),
        .SIG_W(SIG_W), .PE_W(PE_W)
    ) u_core (
        .clk_i(1'b0), .a_i(a_i), .b_i(b_i), .sign_o(sign_o), .exp_o(exp_o), .sig_o(sig_o),
        .zero_o(zero_o), .inf_o(inf_o), .nan_o(nan_o)
    );
endmodule
`default_nettype wire
