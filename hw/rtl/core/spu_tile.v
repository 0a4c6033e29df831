// spu_tile -- one processing element of the UP5K's DSP path (spu_array,
// USE_ICE40_DSP = 1, int8 only): term_i, the product of the registered
// operands from the SB_MAC16 pair spu_array shares between two tiles, added
// into the 32-bit accumulator (wrapping). A zero operand pair gives a zero
// term, a no-op, which is how idle cycles flow through the array (no valid
// bits). clr_i zeroes the accumulator and drops this cycle's term. acc_o is
// the accumulator register itself (the drain unit snapshots it one cycle after
// `st`, when the last product of an mm has landed -- spu_core), so the adder's
// LUTs pair with the accumulator flip-flops on the FPGA (a LUT output that
// also left the tile could not). The format-generic tiles (USE_ICE40_DSP = 0)
// live in spu_array itself (one register file behind an activity guard).
`default_nettype none
module spu_tile #(
    parameter integer ACC_W = 32
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             clr_i,
    input  wire [ACC_W-1:0] term_i,
    output wire [ACC_W-1:0] acc_o
);
    reg [ACC_W-1:0] acc_q;
    always @(posedge clk_i) begin
        if (rst_i || clr_i) acc_q <= {ACC_W{1'b0}};
        else                acc_q <= acc_q + term_i;
    end
    assign acc_o = acc_q;
endmodule
`default_nettype wire
