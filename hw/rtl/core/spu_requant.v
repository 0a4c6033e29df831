// spu_requant -- output pipeline of one column for out=int8: q = round(acc /
// 2^shift) with rne / rtz / rna, exact on the 32-bit accumulator, then clamp
// to [-128, 127], then relu (max(q, 0)) when relu_i. Purely combinational:
// spu_requant_pre (the shifter: floor's low byte, rounding and sticky bits,
// "fits in int8") then spu_requant_post (rounding, clamp, relu). The
// int8-only drain unit uses the two halves with a register between them
// (spu_drain_unit); the vector unit and the reference proof use this whole.
// tests/synth proves it equal to the plain formulation
// (tests/synth/spu_requant_ref.v) with Yosys sat.
`default_nettype none
module spu_requant (
    input  wire [31:0] acc_i,
    input  wire [4:0]  shift_i,
    input  wire [1:0]  round_i,   // RND_*
    input  wire        relu_i,
    output wire [7:0]  q_o
);
    wire [11:0] pre;
    spu_requant_pre  u_pre  (.acc_i(acc_i), .shift_i(shift_i), .pre_o(pre));
    spu_requant_post u_post (.pre_i(pre), .round_i(round_i), .relu_i(relu_i), .q_o(q_o));
endmodule
`default_nettype wire
