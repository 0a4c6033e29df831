// synth/ice40_mul8s_csa.v -- Yosys techmap for the board flow on devices
// without DSP blocks (HX8K): every signed 8 x 8 -> 16-bit `$mul` (the tile
// multipliers) becomes Baugh-Wooley partial products summed in a
// carry-save array (each full adder is two 4-input LUTs that absorb the
// partial-product ANDs) and one final 16-bit adder. 145-149 SB_LUT4 per
// multiplier against 168 for Yosys 0.23's own mapping (docs/fpga.md);
// any other `$mul` is left alone (_TECHMAP_FAIL_). Equal to the signed
// product for all 2^16 inputs: build/tests/spu_synth_tests
// (Equivalence.Mul8sCsaMatchesMultiply, Yosys sat).
//
// Baugh-Wooley: p = sum over i, j of a_i b_j 2^(i+j), with the partial
// products of exactly one sign bit (i == 7 xor j == 7) inverted, plus 2^8
// and 2^15, modulo 2^16.
(* techmap_celltype = "$mul" *)
module _spu_mul8s_csa (A, B, Y);
    parameter A_SIGNED = 0;
    parameter B_SIGNED = 0;
    parameter A_WIDTH = 1;
    parameter B_WIDTH = 1;
    parameter Y_WIDTH = 1;
    (* force_downto *) input  wire [A_WIDTH-1:0] A;
    (* force_downto *) input  wire [B_WIDTH-1:0] B;
    (* force_downto *) output wire [Y_WIDTH-1:0] Y;

    wire _TECHMAP_FAIL_ = !(A_SIGNED && B_SIGNED && A_WIDTH == 8 && B_WIDTH == 8 && Y_WIDTH == 16);

    genvar i, j;
    generate
        if (A_SIGNED && B_SIGNED && A_WIDTH == 8 && B_WIDTH == 8 && Y_WIDTH == 16) begin : g_csa
            // row j (bits 16j .. 16j+15): the partial products of b_j at weights j .. j+7
            wire [127:0] row;
            for (j = 0; j < 8; j = j + 1) begin : g_row
                for (i = 0; i < 16; i = i + 1) begin : g_bit
                    if (i >= j && i < j + 8) begin : g_pp
                        if (((i - j) == 7) != (j == 7)) begin : g_inv
                            assign row[16*j + i] = ~(A[i - j] & B[j]);
                        end else begin : g_pos
                            assign row[16*j + i] = A[i - j] & B[j];
                        end
                    end else begin : g_zero
                        assign row[16*j + i] = 1'b0;
                    end
                end
            end
            // carry-save accumulation: (s, c) + row j -> (s, c), step j in bits 16j ..
            wire [127:0] s, c;
            assign s[15:0] = row[15:0];
            assign c[15:0] = 16'h8100;   // the Baugh-Wooley constants 2^15 + 2^8
            for (j = 1; j < 8; j = j + 1) begin : g_csa_row
                wire [15:0] sp = s[16*(j-1) +: 16], cp = c[16*(j-1) +: 16], r = row[16*j +: 16];
                assign s[16*j +: 16] = sp ^ cp ^ r;
                assign c[16*j +: 16] = {(sp[14:0] & cp[14:0]) | (sp[14:0] & r[14:0]) | (cp[14:0] & r[14:0]), 1'b0};
            end
            assign Y = s[127:112] + c[127:112];
        end else begin : g_none
            assign Y = {Y_WIDTH{1'b0}};
        end
    endgenerate
endmodule
