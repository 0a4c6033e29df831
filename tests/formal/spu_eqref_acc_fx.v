// spu_eqref_acc_fx -- miter: spu_acc_fx (STAGES = 0) against the reference
// model spu_ref_acc_fx, same inputs. bad_o = 1 when sums or flags differ.
// Proven by temporal induction from the all-zero state with the registers
// of both proven equal (test_formal.cc).
`default_nettype none
module spu_eqref_acc_fx #(
    parameter integer SIG_W   = 8,
    parameter integer PE_W    = 7,
    parameter integer LSB_EXP = -18,
    parameter integer ACC_W   = 48
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             clr_i,
    input  wire             valid_i,
    input  wire             sign_i,
    input  wire [PE_W-1:0]  exp_i,
    input  wire [SIG_W-1:0] sig_i,
    input  wire             inf_i,
    input  wire             nan_i,
    output wire             bad_o
);
    wire [ACC_W-1:0] acc_u, acc_r;
    wire [3:0]       fl_u, fl_r;
    spu_acc_fx #(.SIG_W(SIG_W), .PE_W(PE_W), .LSB_EXP(LSB_EXP), .ACC_W(ACC_W)) u_unit (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i), .sign_i(sign_i),
        .exp_i(exp_i), .sig_i(sig_i), .inf_i(inf_i), .nan_i(nan_i), .acc_o(acc_u),
        .nan_o(fl_u[0]), .inf_o(fl_u[1]), .inf_sign_o(fl_u[2]), .ovf_o(fl_u[3]));
    spu_ref_acc_fx #(.SIG_W(SIG_W), .PE_W(PE_W), .LSB_EXP(LSB_EXP), .ACC_W(ACC_W)) u_ref (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i), .sign_i(sign_i),
        .exp_i(exp_i), .sig_i(sig_i), .inf_i(inf_i), .nan_i(nan_i), .acc_o(acc_r),
        .nan_o(fl_r[0]), .inf_o(fl_r[1]), .inf_sign_o(fl_r[2]), .ovf_o(fl_r[3]));
    assign bad_o = (acc_u != acc_r) || (fl_u != fl_r);
endmodule
`default_nettype wire
