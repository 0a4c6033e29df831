// spu_tb_pipe -- test top for the pipelined numerics units: every unit at
// every depth STAGES >= 1 (and mxint8 at 0), one clock for all. Results are
// packed in slots; tests/rtl_numerics/test_pipe.cc holds the same tables
// (kMul, kCvt, kFx, kMx) and checks each slot against the C twin of the
// inputs presented STAGES cycles earlier. Inputs as in spu_tb_mul (a_i /
// b_i low bits), spu_tb_cvt, spu_tb_acc (fx_*, p8_*, p5_*) and spu_tb_mx
// (byte k of mx_a_i / mx_b_i is element k; N = 8 uses bytes 0..7).
`default_nettype none
module spu_tb_pipe (
    input  wire          clk_i,
    input  wire [15:0]   a_i,
    input  wire [15:0]   b_i,
    output wire [1279:0] mul_o,     // 20 slots of 64 bits
    input  wire [31:0]   f32_i,
    input  wire [1:0]    round_i,
    input  wire          ovf_i,
    input  wire [20:0]   rand_i,
    output wire [239:0]  cvt_o,     // 15 slots of 16 bits
    input  wire [63:0]   fx_x_i,
    input  wire [9:0]    fx_e_i,
    input  wire          fx_nan_i,
    input  wire          fx_inf_i,
    input  wire          fx_inf_sign_i,
    output wire [287:0]  fx_o,      // 9 slots of 32 bits (STAGES 1..9)
    input  wire          rst_i,
    input  wire          clr_i,
    input  wire          valid_i,
    input  wire          p8_sign_i,
    input  wire [6:0]    p8_exp_i,
    input  wire [7:0]    p8_sig_i,
    input  wire          p8_inf_i,
    input  wire          p8_nan_i,
    output wire [47:0]   acc8_o,
    output wire [3:0]    flags8_o,
    input  wire          p5_sign_i,
    input  wire [7:0]    p5_exp_i,
    input  wire [5:0]    p5_sig_i,
    input  wire          p5_inf_i,
    input  wire          p5_nan_i,
    output wire [79:0]   acc5_o,
    output wire [3:0]    flags5_o,
    output wire [47:0]   acc8s3_o,  // the e4m3 accumulator at STAGES 3 (latency 4)
    output wire [3:0]    flags8s3_o,
    output wire [79:0]   acc5s2_o,  // the e5m2 accumulator at STAGES 2 (latency 3)
    output wire [3:0]    flags5s2_o,
    output wire [47:0]   acc8sp_o,  // e4m3 accumulator, STAGES 3, SPLIT 1 (latency 5)
    output wire [3:0]    flags8sp_o,
    output wire [79:0]   acc5sp_o,  // e5m2 accumulator, STAGES 2, SPLIT 1 (latency 4)
    output wire [3:0]    flags5sp_o,
    input  wire [255:0]  mx_a_i,
    input  wire [255:0]  mx_b_i,
    input  wire [7:0]    sa_i,
    input  wire [7:0]    sb_i,
    output wire [639:0]  mx_o       // 20 slots of 32 bits
);
    // ---- multipliers -------------------------------------------------------
    spu_mul_int8_pipe #(.STAGES(1)) u_int8_s1 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .p_o(mul_o[0 +: 16]));
    assign mul_o[16 +: 48] = 48'd0;
    spu_mul_int8_pipe #(.STAGES(2)) u_int8_s2 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .p_o(mul_o[64 +: 16]));
    assign mul_o[80 +: 48] = 48'd0;
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_e4m3_s1 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[128 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_e4m3_s2 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[192 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e5m2_s1 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[256 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e5m2_s2 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[320 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e4m3_e5m2_s1 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[384 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_e4m3_e5m2_s2 (.clk_i(clk_i), .a_i(a_i[7:0]), .b_i(b_i[7:0]), .o_o(mul_o[448 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(8), .A_MAN(7), .A_SPEC(1), .B_EXP(8), .B_MAN(7), .B_SPEC(1))
        u_bf16_s1 (.clk_i(clk_i), .a_i(a_i[15:0]), .b_i(b_i[15:0]), .o_o(mul_o[512 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(8), .A_MAN(7), .A_SPEC(1), .B_EXP(8), .B_MAN(7), .B_SPEC(1))
        u_bf16_s2 (.clk_i(clk_i), .a_i(a_i[15:0]), .b_i(b_i[15:0]), .o_o(mul_o[576 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_e2m1_s1 (.clk_i(clk_i), .a_i(a_i[3:0]), .b_i(b_i[3:0]), .o_o(mul_o[640 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_e2m1_s2 (.clk_i(clk_i), .a_i(a_i[3:0]), .b_i(b_i[3:0]), .o_o(mul_o[704 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(2), .A_MAN(3), .A_SPEC(0), .B_EXP(2), .B_MAN(3), .B_SPEC(0))
        u_e2m3_s1 (.clk_i(clk_i), .a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(mul_o[768 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(2), .A_MAN(3), .A_SPEC(0), .B_EXP(2), .B_MAN(3), .B_SPEC(0))
        u_e2m3_s2 (.clk_i(clk_i), .a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(mul_o[832 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(3), .A_MAN(2), .A_SPEC(0), .B_EXP(3), .B_MAN(2), .B_SPEC(0))
        u_e3m2_s1 (.clk_i(clk_i), .a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(mul_o[896 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(3), .A_MAN(2), .A_SPEC(0), .B_EXP(3), .B_MAN(2), .B_SPEC(0))
        u_e3m2_s2 (.clk_i(clk_i), .a_i(a_i[5:0]), .b_i(b_i[5:0]), .o_o(mul_o[960 +: 64]));
    spu_tb_mulfp_p #(.STAGES(1), .A_EXP(5), .A_MAN(10), .A_SPEC(1), .B_EXP(5), .B_MAN(10), .B_SPEC(1))
        u_fp16_s1 (.clk_i(clk_i), .a_i(a_i[15:0]), .b_i(b_i[15:0]), .o_o(mul_o[1024 +: 64]));
    spu_tb_mulfp_p #(.STAGES(2), .A_EXP(5), .A_MAN(10), .A_SPEC(1), .B_EXP(5), .B_MAN(10), .B_SPEC(1))
        u_fp16_s2 (.clk_i(clk_i), .a_i(a_i[15:0]), .b_i(b_i[15:0]), .o_o(mul_o[1088 +: 64]));
    assign mul_o[1152 +: 128] = 128'd0;
    // ---- fp32 -> narrow converters (bf16, e4m3, e5m2 x STAGES 1..3) ----------
    spu_cvt_f32_pipe #(.STAGES(1), .E(8), .M(7), .SPEC(1)) u_cvt_bf16_s1 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(cvt_o[0 +: 16]));
    spu_cvt_f32_pipe #(.STAGES(2), .E(8), .M(7), .SPEC(1)) u_cvt_bf16_s2 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(cvt_o[16 +: 16]));
    spu_cvt_f32_pipe #(.STAGES(3), .E(8), .M(7), .SPEC(1)) u_cvt_bf16_s3 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(cvt_o[32 +: 16]));
    spu_cvt_f32_pipe #(.STAGES(1), .E(4), .M(3), .SPEC(2)) u_cvt_e4m3_s1 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(cvt_o[48 +: 8]));
    assign cvt_o[56 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(2), .E(4), .M(3), .SPEC(2)) u_cvt_e4m3_s2 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(cvt_o[64 +: 8]));
    assign cvt_o[72 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(3), .E(4), .M(3), .SPEC(2)) u_cvt_e4m3_s3 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(cvt_o[80 +: 8]));
    assign cvt_o[88 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(1), .E(5), .M(2), .SPEC(1)) u_cvt_e5m2_s1 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[20:0]), .code_o(cvt_o[96 +: 8]));
    assign cvt_o[104 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(2), .E(5), .M(2), .SPEC(1)) u_cvt_e5m2_s2 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[20:0]), .code_o(cvt_o[112 +: 8]));
    assign cvt_o[120 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(3), .E(5), .M(2), .SPEC(1)) u_cvt_e5m2_s3 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[20:0]), .code_o(cvt_o[128 +: 8]));
    assign cvt_o[136 +: 8] = 8'd0;
    // STAGES 4, 5 (the split shift and the rounding decision in stages of their own)
    spu_cvt_f32_pipe #(.STAGES(4), .E(8), .M(7), .SPEC(1)) u_cvt_bf16_s4 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(cvt_o[144 +: 16]));
    spu_cvt_f32_pipe #(.STAGES(5), .E(8), .M(7), .SPEC(1)) u_cvt_bf16_s5 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(cvt_o[160 +: 16]));
    spu_cvt_f32_pipe #(.STAGES(4), .E(4), .M(3), .SPEC(2)) u_cvt_e4m3_s4 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(cvt_o[176 +: 8]));
    assign cvt_o[184 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(5), .E(4), .M(3), .SPEC(2)) u_cvt_e4m3_s5 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(cvt_o[192 +: 8]));
    assign cvt_o[200 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(4), .E(5), .M(2), .SPEC(1)) u_cvt_e5m2_s4 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[20:0]), .code_o(cvt_o[208 +: 8]));
    assign cvt_o[216 +: 8] = 8'd0;
    spu_cvt_f32_pipe #(.STAGES(5), .E(5), .M(2), .SPEC(1)) u_cvt_e5m2_s5 (.clk_i(clk_i),
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[20:0]), .code_o(cvt_o[224 +: 8]));
    assign cvt_o[232 +: 8] = 8'd0;
    // ---- fixed point -> fp32 (W = 64, EW = 10, STAGES 1..8) -------------------
    spu_fx2f32_pipe #(.STAGES(1), .W(64), .EW(10)) u_fx_s1 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[0 +: 32]));
    spu_fx2f32_pipe #(.STAGES(2), .W(64), .EW(10)) u_fx_s2 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[32 +: 32]));
    spu_fx2f32_pipe #(.STAGES(3), .W(64), .EW(10)) u_fx_s3 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[64 +: 32]));
    spu_fx2f32_pipe #(.STAGES(4), .W(64), .EW(10)) u_fx_s4 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[96 +: 32]));
    spu_fx2f32_pipe #(.STAGES(5), .W(64), .EW(10)) u_fx_s5 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[128 +: 32]));
    spu_fx2f32_pipe #(.STAGES(6), .W(64), .EW(10)) u_fx_s6 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[160 +: 32]));
    spu_fx2f32_pipe #(.STAGES(7), .W(64), .EW(10)) u_fx_s7 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[192 +: 32]));
    spu_fx2f32_pipe #(.STAGES(8), .W(64), .EW(10)) u_fx_s8 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[224 +: 32]));
    spu_fx2f32_pipe #(.STAGES(9), .W(64), .EW(10)) u_fx_s9 (.clk_i(clk_i), .x_i(fx_x_i), .e_i(fx_e_i),
        .nan_i(fx_nan_i), .inf_i(fx_inf_i), .inf_sign_i(fx_inf_sign_i), .f32_o(fx_o[256 +: 32]));
    // ---- accumulators at STAGES = 1 (latency 2) ---------------------------------
    spu_acc_fx #(.SIG_W(8), .PE_W(7), .LSB_EXP(-18), .ACC_W(48), .STAGES(1)) u_acc8 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p8_sign_i), .exp_i(p8_exp_i), .sig_i(p8_sig_i),
        .inf_i(p8_inf_i), .nan_i(p8_nan_i), .acc_o(acc8_o),
        .nan_o(flags8_o[0]), .inf_o(flags8_o[1]), .inf_sign_o(flags8_o[2]), .ovf_o(flags8_o[3]));
    spu_acc_fx #(.SIG_W(6), .PE_W(8), .LSB_EXP(-32), .ACC_W(80), .STAGES(1)) u_acc5 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p5_sign_i), .exp_i(p5_exp_i), .sig_i(p5_sig_i),
        .inf_i(p5_inf_i), .nan_i(p5_nan_i), .acc_o(acc5_o),
        .nan_o(flags5_o[0]), .inf_o(flags5_o[1]), .inf_sign_o(flags5_o[2]), .ovf_o(flags5_o[3]));
    // ---- accumulators at STAGES = 3 / 2 (latency 4 / 3) --------------------------
    spu_acc_fx #(.SIG_W(8), .PE_W(7), .LSB_EXP(-18), .ACC_W(48), .STAGES(3)) u_acc8_s3 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p8_sign_i), .exp_i(p8_exp_i), .sig_i(p8_sig_i),
        .inf_i(p8_inf_i), .nan_i(p8_nan_i), .acc_o(acc8s3_o),
        .nan_o(flags8s3_o[0]), .inf_o(flags8s3_o[1]), .inf_sign_o(flags8s3_o[2]), .ovf_o(flags8s3_o[3]));
    spu_acc_fx #(.SIG_W(6), .PE_W(8), .LSB_EXP(-32), .ACC_W(80), .STAGES(2)) u_acc5_s2 (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p5_sign_i), .exp_i(p5_exp_i), .sig_i(p5_sig_i),
        .inf_i(p5_inf_i), .nan_i(p5_nan_i), .acc_o(acc5s2_o),
        .nan_o(flags5s2_o[0]), .inf_o(flags5s2_o[1]), .inf_sign_o(flags5s2_o[2]), .ovf_o(flags5s2_o[3]));
    // ---- the same with the split loop (SPLIT = 1) --------------------------------
    spu_acc_fx #(.SIG_W(8), .PE_W(7), .LSB_EXP(-18), .ACC_W(48), .STAGES(3), .SPLIT(1)) u_acc8_sp (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p8_sign_i), .exp_i(p8_exp_i), .sig_i(p8_sig_i),
        .inf_i(p8_inf_i), .nan_i(p8_nan_i), .acc_o(acc8sp_o),
        .nan_o(flags8sp_o[0]), .inf_o(flags8sp_o[1]), .inf_sign_o(flags8sp_o[2]), .ovf_o(flags8sp_o[3]));
    spu_acc_fx #(.SIG_W(6), .PE_W(8), .LSB_EXP(-32), .ACC_W(80), .STAGES(2), .SPLIT(1)) u_acc5_sp (
        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .valid_i(valid_i),
        .sign_i(p5_sign_i), .exp_i(p5_exp_i), .sig_i(p5_sig_i),
        .inf_i(p5_inf_i), .nan_i(p5_nan_i), .acc_o(acc5sp_o),
        .nan_o(flags5sp_o[0]), .inf_o(flags5sp_o[1]), .inf_sign_o(flags5sp_o[2]), .ovf_o(flags5sp_o[3]));
    // ---- MX block dot products ----------------------------------------------------
    wire [32*6-1:0] a6, b6;
    wire [32*4-1:0] a4, b4;
    genvar k;
    generate
        for (k = 0; k < 32; k = k + 1) begin : g_pack
            assign a6[k*6 +: 6] = mx_a_i[k*8 +: 6];
            assign b6[k*6 +: 6] = mx_b_i[k*8 +: 6];
            assign a4[k*4 +: 4] = mx_a_i[k*8 +: 4];
            assign b4[k*4 +: 4] = mx_b_i[k*8 +: 4];
        end
    endgenerate
    spu_mx_dot_pipe #(.STAGES(1), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx0_e4m3_n32_s1 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[0 +: 32]));
    spu_mx_dot_pipe #(.STAGES(2), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx1_e4m3_n32_s2 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[32 +: 32]));
    spu_mx_dot_pipe #(.STAGES(3), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx2_e4m3_n32_s3 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[64 +: 32]));
    spu_mx_dot_pipe #(.STAGES(5), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx3_e4m3_n32_s5 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[96 +: 32]));
    spu_mx_dot_pipe #(.STAGES(7), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx4_e4m3_n32_s7 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[128 +: 32]));
    spu_mx_dot_pipe #(.STAGES(2), .N(32), .INT8(0), .A_EXP(5), .A_MAN(2), .A_SPEC(1), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_mx5_e5m2_n32_s2 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[160 +: 32]));
    spu_mx_dot_pipe #(.STAGES(4), .N(32), .INT8(0), .A_EXP(3), .A_MAN(2), .A_SPEC(0), .B_EXP(3), .B_MAN(2), .B_SPEC(0))
        u_mx6_e3m2_n32_s4 (.clk_i(clk_i), .a_i(a6[191:0]), .b_i(b6[191:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[192 +: 32]));
    spu_mx_dot_pipe #(.STAGES(6), .N(32), .INT8(0), .A_EXP(2), .A_MAN(3), .A_SPEC(0), .B_EXP(2), .B_MAN(3), .B_SPEC(0))
        u_mx7_e2m3_n32_s6 (.clk_i(clk_i), .a_i(a6[191:0]), .b_i(b6[191:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[224 +: 32]));
    spu_mx_dot_pipe #(.STAGES(5), .N(32), .INT8(0), .A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_mx8_e2m1_n32_s5 (.clk_i(clk_i), .a_i(a4[127:0]), .b_i(b4[127:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[256 +: 32]));
    spu_mx_dot_pipe #(.STAGES(3), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(5), .B_MAN(2), .B_SPEC(1))
        u_mx9_e4m3_e5m2_n32_s3 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[288 +: 32]));
    spu_mx_dot_pipe #(.STAGES(0), .N(32), .INT8(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx10_int8_n32_s0 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[320 +: 32]));
    spu_mx_dot_pipe #(.STAGES(4), .N(32), .INT8(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx11_int8_n32_s4 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[352 +: 32]));
    spu_mx_dot_pipe #(.STAGES(3), .N(8), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx12_e4m3_n8_s3 (.clk_i(clk_i), .a_i(mx_a_i[63:0]), .b_i(mx_b_i[63:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[384 +: 32]));
    spu_mx_dot_pipe #(.STAGES(2), .N(8), .INT8(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx13_int8_n8_s2 (.clk_i(clk_i), .a_i(mx_a_i[63:0]), .b_i(mx_b_i[63:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[416 +: 32]));
    spu_mx_dot_pipe #(.STAGES(10), .N(32), .INT8(0), .A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_mx14_e2m1_n32_s10 (.clk_i(clk_i), .a_i(a4[127:0]), .b_i(b4[127:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[448 +: 32]));
    spu_mx_dot_pipe #(.STAGES(9), .N(32), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx15_e4m3_n32_s9 (.clk_i(clk_i), .a_i(mx_a_i[255:0]), .b_i(mx_b_i[255:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[480 +: 32]));
    // the depths no slot above has (8, 11, 12; N = 8 keeps the model small) and
    // the N = 32 mxfp4 unit at the depth of its PPA row (STAGES 12)
    spu_mx_dot_pipe #(.STAGES(8), .N(8), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx16_e4m3_n8_s8 (.clk_i(clk_i), .a_i(mx_a_i[63:0]), .b_i(mx_b_i[63:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[512 +: 32]));
    spu_mx_dot_pipe #(.STAGES(11), .N(8), .INT8(0), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx17_e4m3_n8_s11 (.clk_i(clk_i), .a_i(mx_a_i[63:0]), .b_i(mx_b_i[63:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[544 +: 32]));
    spu_mx_dot_pipe #(.STAGES(12), .N(8), .INT8(1), .A_EXP(4), .A_MAN(3), .A_SPEC(2), .B_EXP(4), .B_MAN(3), .B_SPEC(2))
        u_mx18_int8_n8_s12 (.clk_i(clk_i), .a_i(mx_a_i[63:0]), .b_i(mx_b_i[63:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[576 +: 32]));
    spu_mx_dot_pipe #(.STAGES(12), .N(32), .INT8(0), .A_EXP(2), .A_MAN(1), .A_SPEC(0), .B_EXP(2), .B_MAN(1), .B_SPEC(0))
        u_mx19_e2m1_n32_s12 (.clk_i(clk_i), .a_i(a4[127:0]), .b_i(b4[127:0]), .sa_i(sa_i), .sb_i(sb_i), .f32_o(mx_o[608 +: 32]));
endmodule
`default_nettype wire
