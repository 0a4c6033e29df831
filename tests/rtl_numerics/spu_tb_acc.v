// spu_tb_acc -- test top for spu_acc_fx in its e4m3 x e4m3 default
// configuration (48 bits, LSB 2^-18) and its e5m2 x e5m2 configuration
// (80 bits, LSB 2^-32), plus a standalone spu_fx2f32 (W = 64, EW = 10).
// The harness drives the accumulators with products from the C twin.
`default_nettype none
module spu_tb_acc (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clr_i,
    input  wire        valid_i,
    // product in the spu_mul_fp encoding, e4m3 x e4m3 accumulator
    input  wire        p8_sign_i,
    input  wire [6:0]  p8_exp_i,
    input  wire [7:0]  p8_sig_i,
    input  wire        p8_inf_i,
    input  wire        p8_nan_i,
    output wire [47:0] acc8_o,
    output wire [3:0]  flags8_o,     // {ovf, inf_sign, inf, nan}
    // e5m2 x e5m2 accumulator
    input  wire        p5_sign_i,
    input  wire [7:0]  p5_exp_i,
    input  wire [5:0]  p5_sig_i,
    input  wire        p5_inf_i,
    input  wire        p5_nan_i,
    output wire [79:0] acc5_o,
    output wire [3:0]  flags5_o,
    // standalone fixed point -> f32
    input  wire [63:0] fx_x_i,
    input  wire [9:0]  fx_e_i,
    input  wire        fx_nan_i,
    input  wire        fx_inf_i,
    input  wire        fx_inf_sign_i,
    output wire [31:0] fx_f32_o
);
    spu_acc_fx #(.SIG_W(8), .PE_W(7), .LSB_EXP(-18), .ACC_W(48)) u_acc8 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p8_sign_i), .exp_i(p8_exp_i), .sig_i(p8_sig_i),
        .inf_i(p8_inf_i), .nan_i(p8_nan_i), .acc_o(acc8_o),
        .nan_o(flags8_o[0]), .inf_o(flags8_o[1]), .inf_sign_o(flags8_o[2]), .ovf_o(flags8_o[3]));
    spu_acc_fx #(.SIG_W(6), .PE_W(8), .LSB_EXP(-32), .ACC_W(80)) u_acc5 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p5_sign_i), .exp_i(p5_exp_i), .sig_i(p5_sig_i),
        .inf_i(p5_inf_i), .nan_i(p5_nan_i), .acc_o(acc5_o),
        .nan_o(flags5_o[0]), .inf_o(flags5_o[1]), .inf_sign_o(flags5_o[2]), .ovf_o(flags5_o[3]));
    spu_fx2f32 #(.W(64), .EW(10)) u_fx (
        .x_i(fx_x_i), .e_i(fx_e_i), .nan_i(fx_nan_i), .inf_i(fx_inf_i),
        .inf_sign_i(fx_inf_sign_i), .f32_o(fx_f32_o));
endmodule
`default_nettype wire
