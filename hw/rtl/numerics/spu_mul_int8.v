// spu_mul_int8 -- exact signed int8 x int8 product.
//
// Drive a_i and b_i with two's-complement int8 values; p_o is their exact
// product as a two's-complement int16 (range -16256 .. 16384, so it never
// overflows). Purely combinational, no clock: the tile around it registers
// operands and results. This is spu_mul_int8_pipe at STAGES = 0; use that
// module for a pipelined multiplier (docs/numerics-rtl.md).
//
// On iCE40 UP5K Yosys maps this to one SB_MAC16 half (or LUTs on HX8K).
// C twin: spu_hw_mul_int8() in host/src/numerics_hw/.
`default_nettype none
module spu_mul_int8 (
    input  wire signed [7:0]  a_i,
    input  wire signed [7:0]  b_i,
    output wire signed [15:0] p_o
);
    spu_mul_int8_pipe #(.STAGES(0)) u_core (.clk_i(1'b0), .a_i(a_i), .b_i(b_i), .p_o(p_o));
endmodule
`default_nettype wire
