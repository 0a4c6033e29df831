// spu_eq_mul_int8 -- miter: spu_mul_int8_pipe at STAGES against STAGES = 0
// fed LAT cycles late (LAT = STAGES for the proof, LAT != STAGES in the
// negative test). bad_o = 1 when, after the first LAT cycles, not the outputs agree.
`default_nettype none
module spu_eq_mul_int8 #(
    parameter integer STAGES = 1,
    parameter integer LAT    = STAGES
) (
    input  wire       clk_i,
    input  wire [7:0] a_i,
    input  wire [7:0] b_i,
    output wire             bad_o
);
    wire [15:0] in_d;
    wire [15:0] p_gold, p_gate;
    wire settled;
    spu_eq_delay #(.W(16), .D(LAT)) u_dl (.clk_i(clk_i), .d_i({a_i, b_i}), .q_o(in_d), .settled_o(settled));
    spu_mul_int8_pipe #(.STAGES(0)) u_gold (.clk_i(clk_i), .a_i(in_d[15:8]), .b_i(in_d[7:0]), .p_o(p_gold));
    spu_mul_int8_pipe #(.STAGES(STAGES)) u_gate (.clk_i(clk_i), .a_i(a_i), .b_i(b_i), .p_o(p_gate));
    wire eq = (p_gold == p_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
