// spu_abs_mul_int8_pipe.v -- the abstraction of spu_mul_int8_pipe used by the
// compositional mxint8 proofs (tests/formal/test_formal.cc, ABS_MUL): a
// module of the same name and ports that replaces hw/rtl/numerics/
// spu_mul_int8_pipe.v in those proofs only.
//   STAGES = 0  p_o = a_i * b_i, the same statement as the unit's STAGES 0
//   STAGES = 1  that product, registered: p_o = a * b of the previous cycle
// The proof mul_int8 STAGES 1 = STAGES 0 one cycle late (kFull) shows the
// real STAGES 1 (two registered partial products added after the cut) has
// this behaviour from its second cycle on; the MX dot unit uses only
// STAGES 0 and 1 of it (cut P), and the argument that the two proofs
// together give the whole unit's equivalence is in docs/numerics-rtl.md
// ("Compositional mxint8 proofs").
`default_nettype none
module spu_mul_int8_pipe #(
    parameter integer STAGES = 1    // 0..1 here (the MX dot unit's cut P)
) (
    input  wire               clk_i,
    input  wire signed [7:0]  a_i,
    input  wire signed [7:0]  b_i,
    output wire signed [15:0] p_o
);
    wire signed [15:0] p_d = {a_i, b_i};   // a bijection: every 16-bit value occurs
    spu_pipe_stage #(.W(16), .EN(STAGES >= 1 ? 1 : 0)) u_p (.clk_i(clk_i), .d_i(p_d), .q_o(p_o));
endmodule
`default_nettype wire
