// spu_ne -- a != b (ZERO = 1: a != 0, b unused), kept as its own module in
// synthesis (keep_hierarchy) so that Yosys's abc9 maps it alone, as the
// shallow XOR/OR tree it is (3 LUT levels for 32 bits), instead of relaxing
// it to the depth of the deepest cone around it: the branch compares of
// spu_sequencer feed the microcode read address, the UP5K's critical path.
`default_nettype none
(* keep_hierarchy *)
module spu_ne #(
    parameter integer W    = 32,
    parameter integer ZERO = 0
) (
    input  wire [W-1:0] a_i,
    input  wire [W-1:0] b_i,
    output wire         ne_o
);
    generate
        if (ZERO != 0) begin : g_zero
            assign ne_o = |a_i;
            wire [W-1:0] unused_b = b_i;
        end else begin : g_ne
            assign ne_o = |(a_i ^ b_i);
        end
    endgenerate
endmodule
`default_nettype wire
