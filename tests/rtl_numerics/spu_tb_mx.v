// spu_tb_mx -- test top for spu_mx_dot (N = 32) in the element pairings
// e4m3, e5m2, e3m2, e2m3, e2m1 (same format both sides) and e4m3 x e5m2.
// Element k of a block is byte k of a_i / b_i; each configuration uses the
// low bits of the byte. All share the scales sa_i / sb_i.
`default_nettype none
module spu_tb_mx (
    input  wire [255:0] a_i,
    input  wire [255:0] b_i,
    input  wire [7:0]   sa_i,
    input  wire [7:0]   sb_i,
    output wire [31:0]  e4m3_o,
    output wire [31:0]  e5m2_o,
    output wire [31:0]  e3m2_o,
    output wire [31:0]  e2m3_o,
    output wire [31:0]  e2m1_o,
    output wire [31:0]  e4m3_e5m2_o
);
    wire [32*6-1:0] a6, b6;
    wire [32*4-1:0] a4, b4;
    genvar k;
    generate
        for (k = 0; k < 32; k = k + 1) begin : g_pack
            assign a6[k*6 +: 6] = a_i[k*8 +: 6];
            assign b6[k*6 +: 6] = b_i[k*8 +: 6];
            assign a4[k*4 +: 4] = a_i[k*8 +: 4];
            assign b4[k*4 +: 4] = b_i[k*8 +: 4];
        end
    endgenerate
    spu_mx_dot #(.A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_e4m3 (.a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e4m3_o));
    spu_mx_dot #(.A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e5m2 (.a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e5m2_o));
    spu_mx_dot #(.A_EXP(3), .A_MAN(2), .A_SPEC(0), .B_EXP(3), .B_MAN(2), .B_SPEC(0))
        u_e3m2 (.a_i(a6), .b_i(b6), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e3m2_o));
    spu_mx_dot #(.A_EXP(2), .A_MAN(3), .A_SPEC(0), .B_EXP(2), .B_MAN(3), .B_SPEC(0))
        u_e2m3 (.a_i(a6), .b_i(b6), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e2m3_o));
    spu_mx_dot #(.A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_e2m1 (.a_i(a4), .b_i(b4), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e2m1_o));
    spu_mx_dot #(.A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e4m3_e5m2 (.a_i(a_i), .b_i(b_i), .sa_i(sa_i), .sb_i(sb_i), .f32_o(e4m3_e5m2_o));
endmodule
`default_nettype wire
