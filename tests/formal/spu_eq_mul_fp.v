// spu_eq_mul_fp -- miter: spu_mul_fp_pipe at STAGES against STAGES =
// GOLD_STAGES (default 0, the combinational unit) fed LAT cycles late
// (LAT = STAGES - GOLD_STAGES: a chain of proofs STAGES 2 = 1 = 0). bad_o = 1 when, after the first LAT cycles, not all outputs agree.
`default_nettype none
module spu_eq_mul_fp #(
    parameter integer STAGES = 1,
    parameter integer GOLD_STAGES = 0,
    parameter integer LAT    = STAGES - GOLD_STAGES,
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
    output wire             bad_o
);
    localparam integer AW    = A_EXP + A_MAN + 1;
    localparam integer BW    = B_EXP + B_MAN + 1;
    localparam integer SIG_W = A_MAN + B_MAN + 2;
    localparam integer PE_W  = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3;
    localparam integer OW    = 4 + PE_W + SIG_W;
    wire [AW+BW-1:0] in_d;
    wire [OW-1:0]    o_gold, o_gate;
    wire settled, unused_settled;
    wire [0:0] unused_st;
    spu_eq_delay #(.W(AW+BW), .D(LAT)) u_dl (.clk_i(clk_i), .d_i({a_i, b_i}), .q_o(in_d), .settled_o(unused_settled));
    // compared once the deeper side's registers hold only real inputs
    spu_eq_delay #(.W(1), .D(STAGES)) u_st (.clk_i(clk_i), .d_i(1'b0), .q_o(unused_st), .settled_o(settled));
    spu_mul_fp_pipe #(.STAGES(GOLD_STAGES), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                      .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_gold (
        .clk_i(clk_i), .a_i(in_d[AW+BW-1:BW]), .b_i(in_d[BW-1:0]),
        .sign_o(o_gold[OW-1]), .zero_o(o_gold[OW-2]), .inf_o(o_gold[OW-3]), .nan_o(o_gold[OW-4]),
        .exp_o(o_gold[SIG_W +: PE_W]), .sig_o(o_gold[SIG_W-1:0]));
    spu_mul_fp_pipe #(.STAGES(STAGES), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                      .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_gate (
        .clk_i(clk_i), .a_i(a_i), .b_i(b_i),
        .sign_o(o_gate[OW-1]), .zero_o(o_gate[OW-2]), .inf_o(o_gate[OW-3]), .nan_o(o_gate[OW-4]),
        .exp_o(o_gate[SIG_W +: PE_W]), .sig_o(o_gate[SIG_W-1:0]));
    wire eq = (o_gold == o_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
