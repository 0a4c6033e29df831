// spu_requant -- output pipeline of one column for out=int8: q = round(acc /
// 2^shift) with rne / rtz / rna, exact on the 32-bit accumulator, then clamp
// to [-128, 127], then relu (max(q, 0)) when relu_i. Purely combinational;
// the drain unit instantiates COLS of them on the row it is writing.
//
// Written for area (there are COLS of these on the board): only the 8 low
// bits of floor(acc / 2^shift) are shifted out, plus the rounding bit g =
// acc[shift-1] and the sticky bit (any of acc[shift-2:0] set, from a prefix
// OR); "floor fits in int8" is "acc[31:shift+7] all equal the sign", from a
// suffix AND. Then rem > half = g && sticky, rem == half = g && !sticky,
// rem != 0 = g || sticky. tests/synth proves it equal to the plain
// formulation (floor, mask, rem, compare; see git history) with Yosys sat.
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
    // t[8:1] = floor(acc / 2^shift)[7:0], t[0] = g (0 when shift = 0)
    wire signed [32:0] t = $signed({acc_i, 1'b0}) >>> shift_i;
    wire [7:0] fl8 = t[8:1];
    wire       g   = t[0];
    wire [23:0] unused_t = t[32:9];      // only the low byte of the floor is kept

    // por[i] = |acc[i:0] (i < 30 is enough); same[i] = acc[31:i] all equal the sign
    reg [29:0] por;
    reg [31:0] same;
    integer i;
    always @* begin
        por[0] = acc_i[0];
        for (i = 1; i < 30; i = i + 1) por[i] = por[i-1] | acc_i[i];
        same[31] = 1'b1;
        for (i = 30; i >= 0; i = i - 1) same[i] = same[i+1] & (acc_i[i] == neg);
    end
    // sticky = |acc[shift-2:0] (0 for shift < 2); fits = same[min(shift+7, 31)]
    wire [31:0] por_x  = {por, 2'b00};
    wire [38:0] same_x = {{7{1'b1}}, same};
    wire sticky = por_x[shift_i];
    wire fits   = same_x[{1'b0, shift_i} + 6'd7];

    reg up;                 // add one to the floor
    always @* begin
        case (round_i)
            RND_RNE: up = g && (sticky || fl8[0]);
            RND_RTZ: up = neg && (g || sticky);
            RND_RNA: up = g && (sticky || !neg);
            default: up = 1'b0;
        endcase
        if (!fits)                          q_o = neg ? 8'h80 : 8'h7F;
        else if (up && fl8 == 8'h7F)        q_o = 8'h7F;
        else                                q_o = fl8 + {7'd0, up};
        if (relu_i && q_o[7])               q_o = 8'h00;
    end
endmodule
`default_nettype wire
