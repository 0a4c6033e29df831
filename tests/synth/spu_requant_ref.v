// spu_requant_ref -- REFERENCE for tests/synth (not part of the RTL): the
// plain formulation of hw/rtl/core/spu_requant.v as first written (floor,
// mask, remainder compared with half), kept so the area-optimized module can
// be proved equal to it with Yosys sat (test Equivalence.RequantMatchesPlain).
//
// Original purpose block: q = round(acc /
// 2^shift) with rne / rtz / rna, exact on the 32-bit accumulator, then clamp
// to [-128, 127], then relu (max(q, 0)) when relu_i. Purely combinational;
// the drain unit instantiates COLS of them on the row it is writing.
`default_nettype none
module spu_requant_ref (
    input  wire [31:0] acc_i,
    input  wire [4:0]  shift_i,
    input  wire [1:0]  round_i,   // RND_*
    input  wire        relu_i,
    output reg  [7:0]  q_o
);
`include "spu_isa.vh"
    // floor(acc / 2^shift) and the remainder below the cut
    wire signed [31:0] fl   = $signed(acc_i) >>> shift_i;
    wire        [31:0] mask = ~(32'hFFFF_FFFF << shift_i);
    wire        [31:0] rem  = acc_i & mask;
    wire        [31:0] half = {1'b0, mask[31:1]} + 32'd1;   // 2^(shift-1), for shift > 0
    wire               neg  = acc_i[31];
    reg                up;                 // add one to the floor
    reg  signed [32:0] q;

    always @* begin
        up = 1'b0;
        if (shift_i != 5'd0) begin
            case (round_i)
                RND_RNE: up = (rem > half) || ((rem == half) && fl[0]);
                RND_RTZ: up = neg && (rem != 32'd0);
                RND_RNA: up = (rem > half) || ((rem == half) && !neg);
                default: up = 1'b0;
            endcase
        end
        q = {fl[31], fl} + {32'd0, up};
        q_o = q[7:0];
        if (q > 33'sd127)       q_o = 8'h7F;
        else if (q < -33'sd128) q_o = 8'h80;
        if (relu_i && q_o[7])   q_o = 8'h00;
    end
endmodule
`default_nettype wire
