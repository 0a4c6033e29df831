// spu_requant -- output pipeline of one column for out=int8: q = round(acc /
// 2^shift) with rne / rtz / rna, exact on the 32-bit accumulator, then clamp
// to [-128, 127], then relu (max(q, 0)) when relu_i. Purely combinational;
// the drain unit instantiates COLS of them on the row it is writing.
//
// Written for area (there are COLS of these on the board). One logarithmic
// right shifter (stages 16, 8, 4, 2, 1, selected by the shift bits) keeps at
// each stage only the bits that can still reach the output: the low byte of
// floor(acc / 2^shift) and the rounding bit g = acc[shift-1] (position -1).
// The stage that shifts drops the bits below position -1: their OR, over all
// stages, is the sticky bit (any of acc[shift-2:0] set). "floor fits in
// int8" is "acc[31:shift+7] all equal the sign"; a stage that does not shift
// checks the bits that end at or above position 7 whatever the later stages
// do, a stage that shifts brings only sign copies or bits checked already to
// those positions. Then rem > half = g && sticky, rem == half = g && !sticky,
// rem != 0 = g || sticky. tests/synth proves it equal to the plain
// formulation (floor, mask, rem, compare: tests/synth/spu_requant_ref.v)
// with Yosys sat.
`default_nettype none
module spu_requant (
    input  wire [31:0] acc_i,
    input  wire [4:0]  shift_i,
    input  wire [1:0]  round_i,   // RND_*
    input  wire        relu_i,
    output reg  [7:0]  q_o
);
`include "spu_isa.vh"
    wire neg = acc_i[31];
    // x*[p + 1] holds bit position p (p = -1 is the rounding bit's place)
    wire [32:0] e  = {acc_i, 1'b0};                                // p = -1..31
    wire [23:0] x4 = shift_i[4] ? {{7{neg}}, e[32:16]} : e[23:0];  // p = -1..22
    wire [15:0] x3 = shift_i[3] ? x4[23:8]  : x4[15:0];            // p = -1..14
    wire [11:0] x2 = shift_i[2] ? x3[15:4]  : x3[11:0];            // p = -1..10
    wire [9:0]  x1 = shift_i[1] ? x2[11:2]  : x2[9:0];             // p = -1..8
    wire [8:0]  x0 = shift_i[0] ? x1[9:1]   : x1[8:0];             // p = -1..7
    wire [7:0]  fl8 = x0[8:1];           // floor(acc / 2^shift)[7:0]
    wire        g   = x0[0];

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

    reg up;                 // add one to the floor
    always @* begin
        case (round_i)
            RND_RNE: up = g && (sticky || fl8[0]);
            RND_RTZ: up = neg && (g || sticky);
            RND_RNA: up = g && (sticky || !neg);
            default: up = 1'b0;
        endcase
    end
    // q = floor + up, clamped, relu'd. The floor 127 rounded up (128) has
    // neg = 0, so it takes the 7F of a positive value that does not fit.
    wire [7:0] sum  = fl8 + {7'd0, up};
    wire       fitr = fits && !(up && fl8 == 8'h7F);    // the rounded value fits
    wire       pass = fitr && !(relu_i && sum[7]);      // q is sum
    wire       clo  = !fitr && !neg;                    // else 7F, 80 or 00
    wire       chi  = !fitr && neg && !relu_i;
    always @* q_o = pass ? sum : {chi, {7{clo}}};
endmodule
`default_nettype wire
