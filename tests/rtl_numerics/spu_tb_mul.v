// spu_tb_mul -- test top for the multipliers: spu_mul_int8 and every
// spu_mul_fp configuration of the numerics issue, all driven by the same
// a_i / b_i (each uses its low bits). Packed outputs: see spu_tb_mulfp.
`default_nettype none
module spu_tb_mul (
    input  wire [15:0] a_i,
    input  wire [15:0] b_i,
    output wire [15:0] int8_o,
    output wire [63:0] e4m3_o,
    output wire [63:0] e5m2_o,
    output wire [63:0] e4m3_e5m2_o,
    output wire [63:0] bf16_o,
    output wire [63:0] e2m1_o,
    output wire [63:0] e2m3_o,
    output wire [63:0] e3m2_o
);
    spu_mul_int8 u_int8 (.a_i(a_i[7:0]), .b_i(b_i[7:0]), .p_o(int8_o));
    spu_tb_mulfp #(.A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_e4m3 (.a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(e4m3_o));
    spu_tb_mulfp #(.A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e5m2 (.a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(e5m2_o));
    spu_tb_mulfp #(.A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e4m3_e5m2 (.a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(e4m3_e5m2_o));
    spu_tb_mulfp #(.A_EXP(8), .A_MAN(7), .A_SPEC(1), .B_EXP(8), .B_MAN(7), .B_SPEC(1))
        u_bf16 (.a_i(a_i), .b_i(b_i), .o_o(bf16_o));
    spu_tb_mulfp #(.A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_e2m1 (.a_i(a_i[3:0]), .b_i(b_i[3:0]), .o_o(e2m1_o));
    spu_tb_mulfp #(.A_EXP(2), .A_MAN(3), .A_SPEC(0), .B_EXP(2), .B_MAN(3), .B_SPEC(0))
        u_e2m3 (.a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(e2m3_o));
    spu_tb_mulfp #(.A_EXP(3), .A_MAN(2), .A_SPEC(0), .B_EXP(3), .B_MAN(2), .B_SPEC(0))
        u_e3m2 (.a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(e3m2_o));
endmodule
`default_nettype wire
