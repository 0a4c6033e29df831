// spu_mul8x2_ref -- REFERENCE for tests/synth (not part of the RTL): two
// plain signed 8x8 multipliers, the behaviour spu_mul8x2 must have with its
// SB_MAC16 path (test Equivalence.Mul8x2DspMatchesMultiply).
`default_nettype none
module spu_mul8x2_ref (
    input  wire        clk_i,      // (spu_mul8x2's REG = 1 clock; unused at REG = 0)
    input  wire [7:0]  a0_i,
    input  wire [7:0]  b0_i,
    input  wire [7:0]  a1_i,
    input  wire [7:0]  b1_i,
    output wire [15:0] p0_o,
    output wire [15:0] p1_o
);
    assign p0_o = $signed(a0_i) * $signed(b0_i);
    assign p1_o = $signed(a1_i) * $signed(b1_i);
    wire unused_clk = clk_i;
endmodule
`default_nettype wire
