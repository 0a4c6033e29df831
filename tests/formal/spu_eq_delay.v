// spu_eq_delay -- D cycles of delay on a W-bit bus (D = 0: a wire), for the
// equivalence miters: the combinational unit sees its inputs D cycles late.
// settled_o rises D cycles after the start (registers start at 0): from
// then on both sides of a miter have seen only real inputs.
`default_nettype none
module spu_eq_delay #(
    parameter integer W = 1,
    parameter integer D = 1
) (
    input  wire         clk_i,
    input  wire [W-1:0] d_i,
    output wire [W-1:0] q_o,
    output wire         settled_o
);
    reg [D:0] settle_q = {(D+1){1'b0}};
    always @(posedge clk_i) settle_q <= {settle_q[D-1:0], 1'b1};
    assign settled_o = (D == 0) ? 1'b1 : settle_q[D-1];
    wire [W*(D+1)-1:0] chain;
    assign chain[W-1:0] = d_i;
    genvar k;
    generate
        for (k = 0; k < D; k = k + 1) begin : g_stage
            reg [W-1:0] q;
            always @(posedge clk_i) q <= chain[k*W +: W];
            assign chain[(k+1)*W +: W] = q;
        end
    endgenerate
    assign q_o = chain[D*W +: W];
endmodule
`default_nettype wire
