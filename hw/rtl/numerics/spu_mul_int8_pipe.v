// spu_mul_int8_pipe -- spu_mul_int8 with STAGES pipeline registers.
//
// p_o is the exact product a_i * b_i of the inputs presented STAGES cycles
// earlier (latency = STAGES cycles, one result per cycle):
//   STAGES = 0  combinational (this is spu_mul_int8)
//   STAGES = 1  cut after the two partial products a * b[3:0] (unsigned
//               nibble) and a * b[7:4] (signed nibble), which the next
//               stage adds with a 4-bit offset
//   STAGES = 2  that cut plus a register on the product
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_mul_int8() in host/src/numerics_hw/.
`default_nettype none
module spu_mul_int8_pipe #(
    parameter integer STAGES = 1    // 0..2
) (
    input  wire               clk_i,
    input  wire signed [7:0]  a_i,
    input  wire signed [7:0]  b_i,
    output wire signed [15:0] p_o
);
    localparam integer C_PP  = (STAGES >= 1) ? 1 : 0;
    localparam integer C_OUT = (STAGES >= 2) ? 1 : 0;

    generate
        if (STAGES == 0) begin : g_comb
            wire unused_clk = clk_i;
            assign p_o = a_i * b_i;
        end else begin : g_pipe
            wire signed [12:0] pl_d = a_i * $signed({1'b0, b_i[3:0]});   // 8 x 4 unsigned
            wire signed [11:0] ph_d = a_i * $signed(b_i[7:4]);          // 8 x 4 signed
            wire [24:0]        pp_q;
            spu_pipe_stage #(.W(25), .EN(C_PP)) u_pp (.clk_i(clk_i), .d_i({pl_d, ph_d}), .q_o(pp_q));
            wire signed [12:0] pl = pp_q[24:12];
            wire signed [11:0] ph = pp_q[11:0];
            wire signed [15:0] p_d = {{3{pl[12]}}, pl} + {ph, 4'd0};
            spu_pipe_stage #(.W(16), .EN(C_OUT)) u_out (.clk_i(clk_i), .d_i(p_d), .q_o(p_o));
        end
    endgenerate
endmodule
`default_nettype wire
