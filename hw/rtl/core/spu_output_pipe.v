// spu_output_pipe -- what `st` does to one accumulator on its way to the
// scratchpad (docs/numerics.md "Output pipeline"), one lane of the drain unit.
// Purely combinational; spu_drain_unit instantiates LANES of them on the
// group it is writing. In this order:
//   1. bias: sum = acc + bias on the ACC_W-bit register (bias_i is already on
//      the accumulator's grid); a wrap sets the ovf flag, as a MAC's does.
//   2. relu (relu_i): a negative value becomes +0, NaN stays. Negative is
//      the sign of the low 32 bits for out = int8 / int32 (the value those
//      write), else the register's sign, or -Inf alone.
//   3. one rounding to out_i:
//        int32 : the low 32 bits;
//        int8  : spu_requant (shift, round; clamp to [-128, 127]);
//        f32   : spu_fx2f32, RNE of sum * 2^LSB (LSB = 0 for cfg in = int8,
//                -32 for the float inputs) -- as before this module;
//        bf16 / f16 / e4m3 / e5m2 : sum rounded to odd at 24 significant
//                bits (exact below 2^24; else the top 24 bits with the last
//                one ORed with every bit below), then spu_cvt_f32 (RNE, sat
//                or ovf as ovf_i says). Round-to-odd at >= p + 2 bits followed
//                by RNE at p bits is RNE of the exact value: the accumulator
//                is rounded once. Every such sum is a normal binary32
//                (2^-32 <= |sum * 2^LSB| < 2^80).
//      Flags: NaN (a NaN product, +Inf and -Inf, or a wrapped sum) gives
//      the format's NaN (f32 0x7FC00000; via spu_cvt_f32 for the narrow
//      ones), one Inf sign gives that Inf (sat: +-max).
// el_o holds the element in its low bytes (1, 2 or 4 of them by out_i).
// HAS_FP = 0 (ACC_W = 32, the int8-only builds): only int8 and int32 (the
// decoder traps the float outs as FORMAT), no converters are built.
// spu_drain_unit instantiates this module only in the int8-only builds; with a
// float format it evaluates the same arithmetic as its functions fn_lane /
// fn_requant / fn_cvt inside a clocked block (simulation speed, docs/rtl.md
// "Drain guard"): a change to the HAS_FP = 1 path here must be made there too.
`default_nettype none
module spu_output_pipe #(
    parameter integer ACC_W  = 80,
    parameter integer HAS_FP = 1,
    // PRE = 1 (HAS_FP = 0 only: the int8-only drain lanes): the requantizer's
    // shifter stage is not built here; pre_i carries its result for acc_i
    // (spu_requant_pre of the same value and shift_i, registered by the
    // drain unit one cycle ahead; timing: docs/fpga.md)
    parameter integer PRE    = 0
) (
    input  wire [ACC_W-1:0] acc_i,
    input  wire [3:0]       flags_i,   // {ovf, ninf, pinf, nan}
    input  wire [ACC_W-1:0] bias_i,
    input  wire             fpin_i,    // cfg in is a float format (LSB 2^-32)
    input  wire [3:0]       out_i,
    input  wire             relu_i,
    input  wire             ovf_i,     // narrow float outs: 0 sat, 1 ovf
    input  wire [4:0]       shift_i,
    input  wire [1:0]       round_i,
    input  wire [11:0]      pre_i,     // PRE = 1: spu_requant_pre of acc_i, shift_i
    output reg  [31:0]      el_o
);
`include "spu_isa.vh"
    wire [ACC_W-1:0] sum  = acc_i + bias_i;
    wire             wrap = (acc_i[ACC_W-1] == bias_i[ACC_W-1]) && (sum[ACC_W-1] != acc_i[ACC_W-1]);
    wire             ninf = flags_i[2];
    wire             isnan = flags_i[0] | flags_i[3] | (flags_i[1] & flags_i[2]) | wrap;
    wire             isinf = !isnan && (flags_i[1] | flags_i[2]);
    wire             isint = (out_i == DT_INT8) || (out_i == DT_INT32);
    wire             neg   = isint ? sum[31] : isinf ? ninf : (!isnan && sum[ACC_W-1]);
    wire             zero  = relu_i && neg;
    wire [ACC_W-1:0] val     = zero ? {ACC_W{1'b0}} : sum;
    wire             inf_v = isinf && !zero;

    // int8: the requantizer applies the relu itself, after its rounding
    // (equal to relu first: a negative sum rounds to <= 0), so relu_i is not
    // in front of its shifter (timing: the boards' critical path)
    wire [7:0] q8;
    generate
        if (PRE != 0 && HAS_FP == 0) begin : g_rq_post
            spu_requant_post u_rqp (.pre_i(pre_i), .round_i(round_i), .relu_i(relu_i), .q_o(q8));
            wire unused_sh = &{1'b0, shift_i};
        end else begin : g_rq
            spu_requant u_rq (
                .acc_i(sum[31:0]), .shift_i(shift_i), .round_i(round_i), .relu_i(relu_i), .q_o(q8)
            );
            wire unused_pre = &{1'b0, pre_i};
        end
    endgenerate

    generate
        if (HAS_FP != 0) begin : g_fp
            wire [31:0] f32;
            spu_fx2f32 #(.W(ACC_W), .EW(7)) u_f32 (
                .x_i(val), .e_i(fpin_i ? 7'h60 : 7'h00),   // 2^-32 | 2^0
                .nan_i(isnan), .inf_i(inf_v), .inf_sign_i(ninf), .f32_o(f32)
            );
            // round to odd at 24 bits: |v| normalized by its leading zeros
            wire [ACC_W-1:0] mag = val[ACC_W-1] ? (~val + {{(ACC_W-1){1'b0}}, 1'b1}) : val;
            reg  [7:0] lz;
            integer i;
            always @* begin
                lz = 8'd0;
                for (i = 0; i < ACC_W; i = i + 1)
                    if (mag[i]) lz = ACC_W[7:0] - 8'd1 - i[7:0];
            end
            wire [ACC_W-1:0] norm   = mag << lz;
            wire             sticky = |norm[ACC_W-25:0];
            wire [22:0]      frac   = {norm[ACC_W-2:ACC_W-23], norm[ACC_W-24] | sticky};   // below the leading one
            // biased exponent: (ACC_W - 1 - lz) + LSB + 127
            wire [8:0]       bexp   = (ACC_W[8:0] + 9'd126 - {1'b0, lz}) - (fpin_i ? 9'd32 : 9'd0);
            wire [31:0] ro = isnan ? 32'h7FC00000
                           : inf_v ? {ninf, 8'hFF, 23'd0}
                           : (val == {ACC_W{1'b0}}) ? 32'd0
                           : {val[ACC_W-1], bexp[7:0], frac};
            wire [15:0] c_bf16, c_f16;
            wire [7:0]  c_e4m3, c_e5m2;
            spu_cvt_f32 #(.E(8), .M(7),  .SPEC(1)) u_bf16 (
                .f32_i(ro), .round_i(RND_RNE), .ovf_i(ovf_i), .rand_i(16'd0), .code_o(c_bf16));
            spu_cvt_f32 #(.E(5), .M(10), .SPEC(1)) u_f16 (
                .f32_i(ro), .round_i(RND_RNE), .ovf_i(ovf_i), .rand_i(13'd0), .code_o(c_f16));
            spu_cvt_f32 #(.E(4), .M(3),  .SPEC(2)) u_e4m3 (
                .f32_i(ro), .round_i(RND_RNE), .ovf_i(ovf_i), .rand_i(20'd0), .code_o(c_e4m3));
            spu_cvt_f32 #(.E(5), .M(2),  .SPEC(1)) u_e5m2 (
                .f32_i(ro), .round_i(RND_RNE), .ovf_i(ovf_i), .rand_i(21'd0), .code_o(c_e5m2));
            wire unused_b = bexp[8];
            always @* begin
                case (out_i)
                    DT_INT32: el_o = val[31:0];
                    DT_F32:   el_o = f32;
                    DT_BF16:  el_o = {16'd0, c_bf16};
                    DT_F16:   el_o = {16'd0, c_f16};
                    DT_E4M3:  el_o = {24'd0, c_e4m3};
                    DT_E5M2:  el_o = {24'd0, c_e5m2};
                    default:  el_o = {24'd0, q8};
                endcase
            end
        end else begin : g_int
            always @* el_o = (out_i == DT_INT32) ? val[31:0] : {24'd0, q8};
            wire unused_fp = &{1'b0, fpin_i, ovf_i, inf_v};
        end
    endgenerate
endmodule
`default_nettype wire
