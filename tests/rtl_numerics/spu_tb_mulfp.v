// spu_tb_mulfp -- test wrapper: one spu_mul_fp configuration with its
// outputs packed into one 64-bit word for the Verilator harness:
//   [31:0] sig (zero-extended), [47:32] exp (sign-extended),
//   [48] sign, [49] zero, [50] inf, [51] nan, [63:52] zero.
// a_i / b_i are 16 bits; each configuration uses their low bits.
`default_nettype none
module spu_tb_mulfp #(
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
    input  wire [A_EXP+A_MAN:0] a_i,
    input  wire [B_EXP+B_MAN:0] b_i,
    output wire [63:0]          o_o
);
    localparam integer SIG_W = A_MAN + B_MAN + 2;
    localparam integer PE_W  = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3;
    wire             sign, zero, inf, nan;
    wire [PE_W-1:0]  exp;
    wire [SIG_W-1:0] sig;
    spu_mul_fp #(
        .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
        .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)
    ) u_dut (
        .a_i(a_i), .b_i(b_i), .sign_o(sign), .exp_o(exp), .sig_o(sig),
        .zero_o(zero), .inf_o(inf), .nan_o(nan)
    );
    assign o_o = {12'd0, nan, inf, zero, sign,
                  {(16-PE_W){exp[PE_W-1]}}, exp, {(32-SIG_W){1'b0}}, sig};
endmodule
`default_nettype wire
