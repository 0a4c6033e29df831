// spu_tile -- one processing element: the product of the operands present at
// its inputs this cycle, added into its 32-bit accumulator (wrapping).
//
// Drive: prod_i is the product of the registered systolic operands, computed
// by spu_array (spu_array owns the east/south links and the multipliers, so
// two tiles can share one iCE40 DSP block); a zero operand pair gives a zero
// product, a no-op, which is how idle cycles flow through the array (no valid
// bits). clr_i zeroes the accumulator and
// drops this cycle's product. acc_o is the accumulator register itself (the
// drain unit snapshots it one cycle after `st`, when the last product of an
// mm has landed -- spu_core), so the adder's LUTs pair with the accumulator
// flip-flops on the FPGA (a LUT output that also left the tile could not).
`default_nettype none
module spu_tile (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clr_i,
    input  wire [31:0] prod_i,
    output wire [31:0] acc_o
);
    reg  [31:0] acc_q;

    always @(posedge clk_i) begin
        if (rst_i || clr_i) acc_q <= 32'd0;
        else                acc_q <= acc_q + prod_i;
    end
    assign acc_o = acc_q;
endmodule
`default_nettype wire
