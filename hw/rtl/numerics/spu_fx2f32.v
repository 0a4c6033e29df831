// spu_fx2f32 -- round a scaled two's-complement fixed-point number to fp32.
//
// Drive x_i with a signed W-bit integer X and e_i with a signed EW-bit
// exponent E; f32_o is the IEEE-754 binary32 nearest to X * 2^E under
// round-to-nearest-even (one rounding of the exact value), with gradual
// underflow (subnormals) and overflow to +-Inf. X = 0 gives +0.
// Special inputs take priority: nan_i -> quiet NaN 0x7FC00000 (sign 0);
// else inf_i -> Inf with sign inf_sign_i.
// Purely combinational: spu_fx2f32_pipe at STAGES = 0 (use that module for
// a pipelined rounder, docs/numerics-rtl.md). Used as the output stage of spu_mx_dot and to read
// out spu_acc_fx. C twin: spu_hw_fx2f32() in host/src/numerics_hw/.
`default_nettype none
module spu_fx2f32 #(
    parameter integer W  = 48,   // width of x_i (>= 2)
    parameter integer EW = 10    // width of e_i (<= 30)
) (
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output wire [31:0]   f32_o
);
    spu_fx2f32_pipe #(.STAGES(0), .W(W), .EW(EW)) u_core (
        .clk_i(1'b0), .x_i(x_i), .e_i(e_i), .nan_i(nan_i), .inf_i(inf_i),
        .inf_sign_i(inf_sign_i), .f32_o(f32_o));
endmodule
`default_nettype wire
