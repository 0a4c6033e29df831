// spu_mx_dot -- OCP MX block dot product: N element pairs and two E8M0
// scales -> one fp32.
//
// Drive a_i / b_i with N packed element codes (element k in bits
// [k*AW +: AW], AW = 1 + A_EXP + A_MAN; same for b_i) and sa_i / sb_i with
// the blocks' E8M0 shared scales (2^(s-127); 0xFF is NaN). f32_o is
//   RNE_fp32( 2^(sa-127) * 2^(sb-127) * sum_k a_k * b_k )
// with ONE rounding: the N products are exact (spu_mul_fp), they are summed
// exactly in two's-complement fixed point (a balanced adder tree, so the
// order does not matter) and spu_fx2f32 rounds the scaled sum to fp32 with
// subnormals and overflow to Inf. An exact zero sum gives +0.
// Specials: a scale of 0xFF, a NaN element product (NaN operand or 0 x Inf)
// or Inf products of both signs -> NaN 0x7FC00000; otherwise an Inf product
// -> Inf of its sign.
// Element formats follow spu_mul_fp's A_/B_ parameters; defaults: mxfp8 E4M3
// both sides (e.g. mxfp4: A_EXP=2 A_MAN=1 A_SPEC=0, same for B).
// Purely combinational: spu_mx_dot_pipe at STAGES = 0 (use that module for a
// pipelined unit or mxint8, docs/numerics-rtl.md). C twin: spu_hw_mx_dot() in host/src/numerics_hw/.
`default_nettype none
module spu_mx_dot #(
    parameter integer N      = 32,
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
    spu_mx_dot_pipe #(
        .STAGES(0), .N(N), .INT8(0),
        .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
        .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)
    ) u_core (
        .clk_i(1'b0), .a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(f32_o)
    );
endmodule
`default_nettype wire
