// spu_tb_mulfp_p -- test wrapper: one spu_mul_fp_pipe configuration at
// STAGES, outputs packed as in spu_tb_mulfp (64 bits).
`default_nettype none
module spu_tb_mulfp_p #(
    parameter integer STAGES = 1,
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
    input  wire                 clk_i,
    input  wire [A_EXP+A_MAN:0] a_i,
    input  wire [B_EXP+B_MAN:0] b_i,
    output wire [63:0]          o_o
);
    localparam integer SIG_W = A_MAN + B_MAN + 2;
    localparam integer PE_W  = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3;
    wire             sign, zero, inf, nan;
    wire [PE_W-1:0]  exp;
    wire [SIG_W-1:0] sig;
    spu_mul_fp_pipe #(
        .STAGES(STAGES),
        .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
        .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)
    ) u_dut (
        .clk_i(clk_i), .a_i(a_i), .b_i(b_i), .sign_o(sign), .exp_o(exp), .sig_o(sig),
        .zero_o(zero), .inf_o(inf), .nan_o(nan)
    );
    assign o_o = {12'd0, nan, inf, zero, sign,
                  {(16-PE_W){exp[PE_W-1]}}, exp, {(32-SIG_W){1'b0}}, sig};
endmodule
`default_nettype wire
