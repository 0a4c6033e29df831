// spu_pipe_stage -- one optional pipeline register of the numerics units.
//
// EN = 1: q_o is d_i registered on the rising edge of clk_i (no reset: the
// pipelined units carry data only; valid/flag bits that must be cleared are
// reset by their owner). EN = 0: q_o = d_i, a wire, and clk_i is unused.
// The *_pipe units place one of these at each of their cut points and
// enable the cuts their STAGES parameter selects (docs/numerics-rtl.md).
`default_nettype none
module spu_pipe_stage #(
    parameter integer W  = 1,
    parameter integer EN = 1
) (
    input  wire         clk_i,
    input  wire [W-1:0] d_i,
    output wire [W-1:0] q_o
);
    generate
        if (EN != 0) begin : g_reg
            reg [W-1:0] q;
            always @(posedge clk_i) q <= d_i;
            assign q_o = q;
        end else begin : g_wire
            wire unused_clk = clk_i;
            assign q_o = d_i;
        end
    endgenerate
endmodule
`default_nettype wire
