// spu_tile -- one processing element: the term of the operands present at
// its inputs this cycle, added into its ACC_W-bit accumulator (wrapping).
//
// Drive: term_i is the product of the registered systolic operands on the
// accumulator's grid, computed by spu_array (spu_array owns the east/south
// links and the multipliers, so two tiles can share one iCE40 DSP block); a
// zero operand pair gives a zero term, a no-op, which is how idle cycles flow
// through the array (no valid bits). clr_i zeroes the accumulator (and the
// flags) and drops this cycle's term. acc_o is the accumulator register
// itself (the drain unit snapshots it one cycle after `st`, when the last
// product of an mm has landed -- spu_core), so the adder's LUTs pair with
// the accumulator flip-flops on the FPGA (a LUT output that also left the
// tile could not).
// FLAGS = 1 (builds with a float format; docs/numerics.md "Datapath
// numerics") adds sticky flags, flags_o = {ovf, ninf, pinf, nan}: a NaN
// product (nan_i), an Inf product of either sign (inf_i, sign_i; the term is
// then not added), and ovf when an addition wraps the ACC_W-bit register
// (both addends of one sign, the sum of the other). FLAGS = 0: flags_o = 0.
`default_nettype none
module spu_tile #(
    parameter integer ACC_W = 32,
    parameter integer FLAGS = 0
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             clr_i,
    input  wire [ACC_W-1:0] term_i,
    input  wire             nan_i,
    input  wire             inf_i,
    input  wire             sign_i,
    output wire [ACC_W-1:0] acc_o,
    output wire [3:0]       flags_o
);
    reg  [ACC_W-1:0] acc_q;
    wire [ACC_W-1:0] sum = acc_q + term_i;

    always @(posedge clk_i) begin
        if (rst_i || clr_i) acc_q <= {ACC_W{1'b0}};
        else                acc_q <= sum;
    end
    assign acc_o = acc_q;

    generate
        if (FLAGS != 0) begin : g_flags
            reg nan_q, pinf_q, ninf_q, ovf_q;
            always @(posedge clk_i) begin
                if (rst_i || clr_i) begin
                    nan_q <= 1'b0; pinf_q <= 1'b0; ninf_q <= 1'b0; ovf_q <= 1'b0;
                end else begin
                    nan_q  <= nan_q  | nan_i;
                    pinf_q <= pinf_q | (inf_i & ~sign_i);
                    ninf_q <= ninf_q | (inf_i & sign_i);
                    ovf_q  <= ovf_q  | ((acc_q[ACC_W-1] == term_i[ACC_W-1]) &&
                                        (sum[ACC_W-1] != acc_q[ACC_W-1]));
                end
            end
            assign flags_o = {ovf_q, ninf_q, pinf_q, nan_q};
        end else begin : g_no_flags
            assign flags_o = 4'd0;
            wire unused_f = &{1'b0, nan_i, inf_i, sign_i};
        end
    endgenerate
endmodule
`default_nettype wire
