// spu_mul_fp_pipe -- spu_mul_fp with STAGES pipeline registers.
//
// Same operands, parameters and output encoding as spu_mul_fp (see there);
// the outputs are those of the operands presented STAGES cycles earlier
// (latency = STAGES cycles, one product per cycle):
//   STAGES = 0  combinational (this is spu_mul_fp)
//   STAGES = 1  cut after decode: sign, classes, exponent sum and the two
//               partial products a_sig * b_sig[low half] and
//               a_sig * b_sig[high half]; the next stage adds them
//   STAGES = 2  that cut plus a register on the outputs
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_mul_fp() in host/src/numerics_hw/.
`default_nettype none
module spu_mul_fp_pipe #(
    parameter integer STAGES = 1,   // 0..2
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2,
    // derived widths: leave at their defaults
    parameter integer SIG_W  = A_MAN + B_MAN + 2,
    parameter integer PE_W   = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3
) (
    input  wire                 clk_i,
    input  wire [A_EXP+A_MAN:0] a_i,
    input  wire [B_EXP+B_MAN:0] b_i,
    output wire                 sign_o,
    output wire [PE_W-1:0]      exp_o,
    output wire [SIG_W-1:0]     sig_o,
    output wire                 zero_o,
    output wire                 inf_o,
    output wire                 nan_o
);
    localparam integer A_BIAS = (1 << (A_EXP - 1)) - 1;
    localparam integer B_BIAS = (1 << (B_EXP - 1)) - 1;
    // Exponent of the product LSB = ea + eb - OFFSET, ea/eb the effective
    // (subnormal -> 1) biased exponents.
    localparam integer OFFSET = A_BIAS + A_MAN + B_BIAS + B_MAN;

    wire [A_EXP-1:0] a_e = a_i[A_EXP+A_MAN-1:A_MAN];
    wire [A_MAN-1:0] a_m = a_i[A_MAN-1:0];
    wire [B_EXP-1:0] b_e = b_i[B_EXP+B_MAN-1:B_MAN];
    wire [B_MAN-1:0] b_m = b_i[B_MAN-1:0];

    wire a_emax = &a_e;
    wire b_emax = &b_e;
    wire a_nan = (A_SPEC == 1) ? (a_emax & (|a_m)) : (A_SPEC == 2) ? (a_emax & (&a_m)) : 1'b0;
    wire b_nan = (B_SPEC == 1) ? (b_emax & (|b_m)) : (B_SPEC == 2) ? (b_emax & (&b_m)) : 1'b0;
    wire a_inf = (A_SPEC == 1) & a_emax & ~(|a_m);
    wire b_inf = (B_SPEC == 1) & b_emax & ~(|b_m);
    wire a_zero = ~(|a_e) & ~(|a_m);
    wire b_zero = ~(|b_e) & ~(|b_m);

    // Significands with the hidden bit (0 for subnormals and zero).
    wire [A_MAN:0] a_sig = {|a_e, a_m};
    wire [B_MAN:0] b_sig = {|b_e, b_m};
    // Effective biased exponents, widened so the sum cannot wrap.
    wire [PE_W-1:0] a_ee = {{(PE_W-A_EXP){1'b0}}, a_e | {{(A_EXP-1){1'b0}}, ~(|a_e)}};
    wire [PE_W-1:0] b_ee = {{(PE_W-B_EXP){1'b0}}, b_e | {{(B_EXP-1){1'b0}}, ~(|b_e)}};
    wire [PE_W-1:0] offset = OFFSET[PE_W-1:0];

    // ---- stage 1: decode, classes, exponent sum, partial products --------
    localparam integer BL = (B_MAN + 1) / 2;          // low half of b_sig
    localparam integer BH = B_MAN + 1 - BL;           // high half
    localparam integer OUT_W = 4 + PE_W + SIG_W;

    wire            s1_sign = a_i[A_EXP+A_MAN] ^ b_i[B_EXP+B_MAN];
    wire            s1_nan  = a_nan | b_nan | (a_inf & b_zero) | (b_inf & a_zero);
    wire            s1_inf  = ~s1_nan & (a_inf | b_inf);
    wire            s1_zero = ~s1_nan & ~s1_inf & (a_zero | b_zero);
    wire [PE_W-1:0] s1_exp  = a_ee + b_ee - offset;
    wire            s1_spec = s1_nan | s1_inf | s1_zero;
    wire [OUT_W-1:0] out_d;

    generate
        if (STAGES == 0) begin : g_comb
            // one multiplier, exactly the combinational unit
            wire unused_clk = clk_i;
            wire [SIG_W-1:0] sig = a_sig * b_sig;
            assign out_d = {s1_sign, s1_zero, s1_inf, s1_nan,
                            s1_spec ? {PE_W{1'b0}} : s1_exp,
                            s1_spec ? {SIG_W{1'b0}} : sig};
        end else begin : g_pipe
            localparam integer PL_W = A_MAN + 1 + BL;
            localparam integer PH_W = A_MAN + 1 + BH;
            localparam integer S1_W = 5 + PE_W;
            wire [PL_W-1:0] pl_d = a_sig * b_sig[BL-1:0];
            wire [PH_W-1:0] ph_d = a_sig * b_sig[B_MAN:BL];
            // Three registers, not one: Yosys 0.23 ice40_dsp packs a
            // multiplier's output register into its SB_MAC16 and, when two
            // multipliers feed one $dff cell, loses the second one's bits
            // (synth_ice40 -dsp then empties the whole design).
            wire [S1_W-1:0] s1_q;
            wire [PL_W-1:0] pl;
            wire [PH_W-1:0] ph;
            spu_pipe_stage #(.W(S1_W), .EN(1)) u_s1 (
                .clk_i(clk_i),
                .d_i({s1_sign, s1_zero, s1_inf, s1_nan, s1_spec, s1_exp}),
                .q_o(s1_q));
            spu_pipe_stage #(.W(PL_W), .EN(1)) u_pl (.clk_i(clk_i), .d_i(pl_d), .q_o(pl));
            spu_pipe_stage #(.W(PH_W), .EN(1)) u_ph (.clk_i(clk_i), .d_i(ph_d), .q_o(ph));
            wire [PE_W-1:0]  exp_q = s1_q[PE_W-1:0];
            wire             spec  = s1_q[PE_W];
            wire [3:0]       cls   = s1_q[S1_W-1 -: 4];
            // ---- stage 2: add the partial products, canonical specials ---
            wire [SIG_W-1:0] sig = {{(SIG_W-PL_W){1'b0}}, pl} +
                                   ({{(SIG_W-PH_W){1'b0}}, ph} << BL);
            wire [OUT_W-1:0] o2 = {cls, spec ? {PE_W{1'b0}} : exp_q,
                                   spec ? {SIG_W{1'b0}} : sig};
            spu_pipe_stage #(.W(OUT_W), .EN(STAGES >= 2 ? 1 : 0)) u_s2 (
                .clk_i(clk_i), .d_i(o2), .q_o(out_d));
        end
    endgenerate

    assign {sign_o, zero_o, inf_o, nan_o} = out_d[OUT_W-1 -: 4];
    assign exp_o = out_d[SIG_W +: PE_W];
    assign sig_o = out_d[SIG_W-1:0];
endmodule
`default_nettype wire
