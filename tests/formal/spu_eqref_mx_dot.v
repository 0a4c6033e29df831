// spu_eqref_mx_dot -- miter: spu_mx_dot_pipe at STAGES = 0 (spu_mx_dot, and
// the mxint8 unit) against the reference model spu_ref_mx_dot. bad_o = 1
// when they differ.
`default_nettype none
module spu_eqref_mx_dot #(
    parameter integer N      = 8,
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
    output wire                         bad_o
);
    wire [31:0] f_unit, f_ref;
    spu_mx_dot_pipe #(.STAGES(0), .N(N), .INT8(INT8), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                      .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_unit (
        .clk_i(1'b0), .a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(f_unit));
    spu_ref_mx_dot #(.N(N), .INT8(INT8), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                     .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_ref (
        .a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(f_ref));
    assign bad_o = (f_unit != f_ref);
endmodule
`default_nettype wire
