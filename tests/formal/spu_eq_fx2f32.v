// spu_eq_fx2f32 -- miter: spu_fx2f32_pipe at STAGES against STAGES = 0 fed
// LAT cycles late. bad_o = 1 when, after the first LAT cycles, not the fp32 results agree.
`default_nettype none
module spu_eq_fx2f32 #(
    parameter integer STAGES = 1,
    parameter integer LAT    = STAGES,
    parameter integer W      = 48,
    parameter integer EW     = 10
) (
    input  wire          clk_i,
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output wire             bad_o
);
    localparam integer IW = W + EW + 3;
    wire [IW-1:0] in_d;
    wire [31:0]   f_gold, f_gate;
    wire settled;
    spu_eq_delay #(.W(IW), .D(LAT)) u_dl (.clk_i(clk_i),
        .d_i({x_i, e_i, nan_i, inf_i, inf_sign_i}), .q_o(in_d), .settled_o(settled));
    spu_fx2f32_pipe #(.STAGES(0), .W(W), .EW(EW)) u_gold (
        .clk_i(clk_i), .x_i(in_d[IW-1 -: W]), .e_i(in_d[3 +: EW]), .nan_i(in_d[2]),
        .inf_i(in_d[1]), .inf_sign_i(in_d[0]), .f32_o(f_gold));
    spu_fx2f32_pipe #(.STAGES(STAGES), .W(W), .EW(EW)) u_gate (
        .clk_i(clk_i), .x_i(x_i), .e_i(e_i), .nan_i(nan_i), .inf_i(inf_i),
        .inf_sign_i(inf_sign_i), .f32_o(f_gate));
    wire eq = (f_gold == f_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
