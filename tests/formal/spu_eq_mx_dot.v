// spu_eq_mx_dot -- miter: spu_mx_dot_pipe at STAGES against STAGES = 0 fed
// LAT cycles late. bad_o = 1 when, after the first LAT cycles, not the fp32 results agree.
`default_nettype none
module spu_eq_mx_dot #(
    parameter integer STAGES = 1,
    parameter integer LAT    = STAGES,
    parameter integer N      = 8,
    parameter integer INT8   = 0,
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
    input  wire                         clk_i,
    input  wire [N*(1+A_EXP+A_MAN)-1:0] a_i,
    input  wire [N*(1+B_EXP+B_MAN)-1:0] b_i,
    input  wire [7:0]                   sa_i,
    input  wire [7:0]                   sb_i,
    output wire             bad_o
);
    localparam integer AW = N * (1 + A_EXP + A_MAN);
    localparam integer BW = N * (1 + B_EXP + B_MAN);
    localparam integer IW = AW + BW + 16;
    wire [IW-1:0] in_d;
    wire [31:0]   f_gold, f_gate;
    wire settled;
    spu_eq_delay #(.W(IW), .D(LAT)) u_dl (.clk_i(clk_i), .d_i({a_i, b_i, sa_i, sb_i}), .q_o(in_d), .settled_o(settled));
    spu_mx_dot_pipe #(.STAGES(0), .N(N), .INT8(INT8), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                      .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_gold (
        .clk_i(clk_i), .a_i(in_d[IW-1 -: AW]), .b_i(in_d[16 +: BW]), .sa_i(in_d[15:8]),
        .sb_i(in_d[7:0]), .f32_o(f_gold));
    spu_mx_dot_pipe #(.STAGES(STAGES), .N(N), .INT8(INT8), .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                      .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)) u_gate (
        .clk_i(clk_i), .a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(f_gate));
    wire eq = (f_gold == f_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
