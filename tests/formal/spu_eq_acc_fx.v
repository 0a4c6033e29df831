// spu_eq_acc_fx -- miter: spu_acc_fx at STAGES (and SPLIT) against STAGES = 0 with all
// of its inputs (rst_i included) LAT cycles late. bad_o = 1 when, after the first LAT cycles, not the sums
// and flags agree. The proof (tests/formal/) is a temporal induction from
// the all-zero state that also proves the two accumulators' sum and flag
// registers equal at every step (SPLIT = 0).
`default_nettype none
module spu_eq_acc_fx #(
    parameter integer STAGES  = 1,
    parameter integer LAT     = STAGES,
    parameter integer SIG_W   = 8,
    parameter integer PE_W    = 7,
    parameter integer LSB_EXP = -18,
    parameter integer ACC_W   = 48,
    parameter integer SPLIT   = 0      // the gate's SPLIT (the gold: 0)
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
    localparam integer IW = 6 + PE_W + SIG_W;
    wire [IW-1:0]    d;
    wire [ACC_W-1:0] acc_gold, acc_gate;
    wire [3:0]       fl_gold, fl_gate;
    wire settled;
    spu_eq_delay #(.W(IW), .D(LAT)) u_dl (.clk_i(clk_i),
        .d_i({rst_i, clr_i, valid_i, sign_i, inf_i, nan_i, exp_i, sig_i}), .q_o(d), .settled_o(settled));
    spu_acc_fx #(.SIG_W(SIG_W), .PE_W(PE_W), .LSB_EXP(LSB_EXP), .ACC_W(ACC_W), .STAGES(0)) u_gold (
        .clk_i(clk_i), .rst_i(d[IW-1]), .clr_i(d[IW-2]), .valid_i(d[IW-3]), .sign_i(d[IW-4]),
        .inf_i(d[IW-5]), .nan_i(d[IW-6]), .exp_i(d[SIG_W +: PE_W]), .sig_i(d[SIG_W-1:0]),
        .acc_o(acc_gold), .nan_o(fl_gold[0]), .inf_o(fl_gold[1]), .inf_sign_o(fl_gold[2]),
        .ovf_o(fl_gold[3]));
    spu_acc_fx #(.SIG_W(SIG_W), .PE_W(PE_W), .LSB_EXP(LSB_EXP), .ACC_W(ACC_W), .STAGES(STAGES),
        .SPLIT(SPLIT)) u_gate (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i), .sign_i(sign_i),
        .inf_i(inf_i), .nan_i(nan_i), .exp_i(exp_i), .sig_i(sig_i),
        .acc_o(acc_gate), .nan_o(fl_gate[0]), .inf_o(fl_gate[1]), .inf_sign_o(fl_gate[2]),
        .ovf_o(fl_gate[3]));
    wire eq = (acc_gold == acc_gate) && (fl_gold == fl_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
