// spu_requant_pre -- the first half of spu_requant: the logarithmic right
// shifter and what the rounding needs of it. Purely combinational.
// pre_o = {neg, fits, sticky, g, fl8}:
//   fl8    floor(acc / 2^shift)[7:0]
//   g      the rounding bit acc[shift-1] (0 for shift = 0)
//   sticky any of acc[shift-2:0] set
//   fits   floor(acc / 2^shift) fits in int8 (acc[31:shift+7] all equal neg)
//   neg    acc < 0
// spu_requant_post turns these into q. spu_requant is the two in a row; the
// drain unit of the int8-only builds (the boards) registers pre_o between
// them (timing: docs/fpga.md). The shifter keeps at each stage (16, 8, 4, 2,
// 1, by the shift bits) only the bits that can still reach the output: the
// low byte of the floor and the rounding bit (position -1). The stage that
// shifts drops the bits below position -1: their OR, over all stages, is the
// sticky bit. A stage that does not shift checks the bits that end at or
// above position 7 whatever the later stages do ("fits"); a stage that
// shifts brings only sign copies or bits checked already to those positions.
// tests/synth proves spu_requant equal to the plain formulation
// (tests/synth/spu_requant_ref.v) with Yosys sat.
`default_nettype none
module spu_requant_pre (
    input  wire [31:0] acc_i,
    input  wire [4:0]  shift_i,
    output wire [11:0] pre_o
);
    wire neg = acc_i[31];
    // x*[p + 1] holds bit position p (p = -1 is the rounding bit's place)
    wire [32:0] e  = {acc_i, 1'b0};                                // p = -1..31
    wire [23:0] x4 = shift_i[4] ? {{7{neg}}, e[32:16]} : e[23:0];  // p = -1..22
    wire [15:0] x3 = shift_i[3] ? x4[23:8]  : x4[15:0];            // p = -1..14
    wire [11:0] x2 = shift_i[2] ? x3[15:4]  : x3[11:0];            // p = -1..10
    wire [9:0]  x1 = shift_i[1] ? x2[11:2]  : x2[9:0];             // p = -1..8
    wire [8:0]  x0 = shift_i[0] ? x1[9:1]   : x1[8:0];             // p = -1..7

    wire sticky = (shift_i[4] && (acc_i[14:0] != 15'd0)) ||
                  (shift_i[3] && (x4[7:0]     != 8'd0))  ||
                  (shift_i[2] && (x3[3:0]     != 4'd0))  ||
                  (shift_i[1] && (x2[1:0]     != 2'd0))  ||
                  (shift_i[0] && x1[0]);
    wire fits   = (shift_i[4] || (acc_i[30:22] == {9{neg}})) &&
                  (shift_i[3] || (x4[22:15]    == {8{neg}})) &&
                  (shift_i[2] || (x3[14:11]    == {4{neg}})) &&
                  (shift_i[1] || (x2[10:9]     == {2{neg}})) &&
                  (shift_i[0] || (x1[8]        == neg));
    assign pre_o = {neg, fits, sticky, x0[0], x0[8:1]};
endmodule
`default_nettype wire
