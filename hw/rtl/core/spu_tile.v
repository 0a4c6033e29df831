// spu_tile -- one processing element: product of the operands present at its
// inputs this cycle, added into its 32-bit accumulator (wrapping).
//
// Drive: a_i/b_i are the registered systolic operands (spu_array owns the
// east/south links); a zero operand pair is a no-op, which is how idle cycles
// flow through the array (no valid bits). clr_i zeroes the accumulator and
// drops this cycle's product. sum_o = acc + this cycle's product: the drain
// unit snapshots it on `st`, so a product landing in the swap cycle is kept.
`default_nettype none
module spu_tile (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clr_i,
    input  wire [3:0]  fmt_i,
    input  wire [7:0]  a_i,
    input  wire [7:0]  b_i,
    output wire [31:0] sum_o
);
    wire [31:0] prod;
    reg  [31:0] acc_q;

    spu_tile_mul u_mul (.fmt_i(fmt_i), .a_i(a_i), .b_i(b_i), .prod_o(prod));

    assign sum_o = acc_q + prod;

    always @(posedge clk_i) begin
        if (rst_i || clr_i) acc_q <= 32'd0;
        else                acc_q <= sum_o;
    end
endmodule
`default_nettype wire
