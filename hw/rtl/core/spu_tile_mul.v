// spu_tile_mul -- the format-generic product port of a tile: operand bytes A
// and B plus the cfg `in` dtype code -> the term the tile adds to its
// accumulator (docs/numerics.md "Datapath numerics").
//
// ACC_W = 32 (a build that carries int8 only, FORMATS = 1): term_o is the
// signed 8x8 product sign-extended to 32 bits; a plain `*` of two signed
// bytes so synthesis can map it to a DSP (SB_MAC16). The flags are 0.
// ACC_W > 32 (a build with a float format): term_o is the exact product on
// the accumulator's fixed-point grid, ACC_W-bit two's complement:
//   int8        the product (LSB weight 2^0);
//   e4m3, e5m2  sig * 2^(exp - FP_LSB) from spu_mul_fp (LSB weight 2^FP_LSB =
//               2^-32: every e4m3/e5m2 product is an integer multiple of it,
//               |product| < 2^32, so the term is exact and < 2^64);
// nan_o (a NaN operand, or 0 x Inf) and inf_o with sign_o (an Inf operand)
// replace the term (term_o = 0 then). Only the formats FORMATS carries get a
// multiplier; other codes give 0 (the sequencer traps such a cfg: FORMAT).
// Purely combinational.
`default_nettype none
module spu_tile_mul #(
    parameter [31:0]  FORMATS = 32'h1,
    parameter integer ACC_W   = 32,
    parameter integer FP_LSB  = -32
) (
    input  wire [3:0]       fmt_i,
    input  wire [7:0]       a_i,
    input  wire [7:0]       b_i,
    output reg  [ACC_W-1:0] term_o,
    output reg              nan_o,
    output reg              inf_o,
    output reg              sign_o
);
`include "spu_isa.vh"
    wire signed [15:0] p = $signed(a_i) * $signed(b_i);

    generate
        if (ACC_W == 32) begin : g_int8
            always @* begin
                term_o = 32'd0;
                nan_o  = 1'b0;
                inf_o  = 1'b0;
                sign_o = 1'b0;
                case (fmt_i)
                    DT_INT8: term_o = {{16{p[15]}}, p};
                    default: term_o = 32'd0;
                endcase
            end
        end else begin : g_wide
            // e4m3 x e4m3: sig 8 bits, exp of its LSB -18..10 (7-bit signed)
            wire        s43, z43, i43, n43;
            wire [6:0]  e43;
            wire [7:0]  g43;
            // e5m2 x e5m2: sig 6 bits, exp -32..26 (8-bit signed)
            wire        s52, z52, i52, n52;
            wire [7:0]  e52;
            wire [5:0]  g52;
            if (FORMATS[{1'b0, DT_E4M3}] != 1'b0) begin : g_e4m3
                spu_mul_fp #(.A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2)) u_m (
                    .a_i(a_i), .b_i(b_i), .sign_o(s43), .exp_o(e43), .sig_o(g43),
                    .zero_o(z43), .inf_o(i43), .nan_o(n43)
                );
            end else begin : g_no_e4m3
                assign {s43, z43, i43, n43, e43, g43} = 19'd0;
            end
            if (FORMATS[{1'b0, DT_E5M2}] != 1'b0) begin : g_e5m2
                spu_mul_fp #(.A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1)) u_m (
                    .a_i(a_i), .b_i(b_i), .sign_o(s52), .exp_o(e52), .sig_o(g52),
                    .zero_o(z52), .inf_o(i52), .nan_o(n52)
                );
            end else begin : g_no_e5m2
                assign {s52, z52, i52, n52, e52, g52} = 18'd0;
            end
            wire unused_z = &{1'b0, z43, z52};   // a zero product has sig 0: term 0

            // shift of the product's LSB onto the grid (>= 0 for both formats)
            wire [7:0] sh43 = {e43[6], e43} - FP_LSB[7:0];
            wire [7:0] sh52 = e52 - FP_LSB[7:0];
            reg  [ACC_W-1:0] mag;
            reg              neg;
            always @* begin
                mag    = {ACC_W{1'b0}};
                neg    = 1'b0;
                nan_o  = 1'b0;
                inf_o  = 1'b0;
                sign_o = 1'b0;
                case (fmt_i)
                    DT_INT8: begin
                        mag = {{(ACC_W-16){1'b0}}, (p[15] ? -p : p)};
                        neg = p[15];
                    end
                    DT_E4M3: begin
                        mag = {{(ACC_W-8){1'b0}}, g43} << sh43;
                        neg = s43;
                        nan_o = n43; inf_o = i43; sign_o = s43;
                    end
                    DT_E5M2: begin
                        mag = {{(ACC_W-6){1'b0}}, g52} << sh52;
                        neg = s52;
                        nan_o = n52; inf_o = i52; sign_o = s52;
                    end
                    default: ;
                endcase
                term_o = neg ? (~mag + {{(ACC_W-1){1'b0}}, 1'b1}) : mag;
            end
        end
    endgenerate
endmodule
`default_nettype wire
