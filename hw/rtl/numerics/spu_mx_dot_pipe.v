// spu_mx_dot_pipe -- spu_mx_dot with STAGES pipeline registers, and mxint8.
//
// Same ports (plus clk_i), parameters and results as spu_mx_dot (see
// there); f32_o is the dot product of the block presented STAGES cycles
// earlier (latency = STAGES cycles, one block per cycle). Cut points:
//   R  the exact sum at the root of the adder tree (and the specials)
//   P  the products (spu_mul_fp_pipe's partial-product cut, or the int8
//      multipliers' partial products), before the shift into the grid
//   T  the middle of the adder tree (level ceil(log2(N)/2) of the heap)
//   F  spu_fx2f32_pipe's cuts, STAGES - 3 of them (1..9)
//   STAGES = 0: none (this is spu_mx_dot); 1: R; 2: R, P; 3: R, P, T;
//   4..12: R, P, T and the rounder at spu_fx2f32_pipe STAGES 1..9.
// INT8 = 1 makes it an mxint8 unit (OCP MX: element = int8 * 2^-6, scale
// E8M0): a_i / b_i hold N two's-complement bytes, the products are exact
// int8 x int8 (spu_mul_int8_pipe), the A_/B_ format parameters are unused
// and only a 0xFF scale gives NaN. Same single RNE rounding to fp32.
// Proven equal to STAGES = 0 delayed by STAGES (tests/formal/).
// C twin: spu_hw_mx_dot() in host/src/numerics_hw/ (mxint8: the exact
// integer sum through spu_hw_fx2f32(), tests/rtl_numerics/test_pipe.cc).
`default_nettype none
module spu_mx_dot_pipe #(
    parameter integer STAGES = 3,    // 0..12
    parameter integer N      = 32,
    parameter integer INT8   = 0,    // 1: mxint8 elements (A_/B_ unused)
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
    input  wire                         clk_i,
    input  wire [N*(1+A_EXP+A_MAN)-1:0] a_i,
    input  wire [N*(1+B_EXP+B_MAN)-1:0] b_i,
    input  wire [7:0]                   sa_i,
    input  wire [7:0]                   sb_i,
    output wire [31:0]                  f32_o
);
    function integer clog2;
        input integer v;
        integer r;
        begin
            r = 0;
            while ((1 << r) < v) r = r + 1;
            clog2 = r;
        end
    endfunction

    localparam integer AW     = 1 + A_EXP + A_MAN;
    localparam integer BW     = 1 + B_EXP + B_MAN;
    localparam integer SIG_W  = A_MAN + B_MAN + 2;
    localparam integer PE_W   = ((A_EXP > B_EXP) ? A_EXP : B_EXP) + 3;
    localparam integer A_BIAS = (1 << (A_EXP - 1)) - 1;
    localparam integer B_BIAS = (1 << (B_EXP - 1)) - 1;
    // weight of the fixed-point LSB: the smallest product exponent
    // (mxint8: 2^-6 * 2^-6)
    localparam integer LSB_EXP = (INT8 != 0) ? -12 : (1 - A_BIAS - A_MAN) + (1 - B_BIAS - B_MAN);
    // largest shift of a product significand above that LSB
    localparam integer SHM    = ((1 << A_EXP) - 2) + ((1 << B_EXP) - 2);
    // sum width: product magnitude + sign + growth of N additions
    localparam integer SW     = (INT8 != 0) ? (16 + clog2(N)) : (SIG_W + SHM + 1 + clog2(N));
    localparam integer EW     = 11;   // holds LSB_EXP + sa + sb - 254 for all formats here
    localparam integer CUT_R  = (STAGES >= 1) ? 1 : 0;
    localparam integer CUT_P  = (STAGES >= 2) ? 1 : 0;
    localparam integer CUT_T  = (STAGES >= 3) ? 1 : 0;
    localparam integer FX_ST  = (STAGES >= 4) ? STAGES - 3 : 0;
    // the tree cut: heap nodes K .. 2K are registered (K = 2^LC - 1)
    localparam integer LC     = (clog2(N) + 1) / 2;
    localparam integer K      = (1 << LC) - 1;

    // ---- exact products, as fixed-point terms ---------------------------
    wire [N-1:0]      p_nan;
    wire [N-1:0]      p_pinf;
    wire [N-1:0]      p_ninf;
    wire [N*SW-1:0]   terms;

    genvar k;
    generate
        for (k = 0; k < N; k = k + 1) begin : g_lane
            if (INT8 != 0) begin : g_int
                wire signed [15:0] p;
                spu_mul_int8_pipe #(.STAGES(CUT_P)) u_mul (
                    .clk_i(clk_i), .a_i(a_i[k*AW +: 8]), .b_i(b_i[k*BW +: 8]), .p_o(p));
                assign terms[k*SW +: SW] = {{(SW-16){p[15]}}, p};
                assign p_nan[k]  = 1'b0;
                assign p_pinf[k] = 1'b0;
                assign p_ninf[k] = 1'b0;
                if (AW > 8 || BW > 8) begin : g_unused
                    wire unused_hi = ^{a_i[k*AW +: AW], b_i[k*BW +: BW]};
                end
            end else begin : g_fp
                wire             sign, zero, inf, nan;
                wire [PE_W-1:0]  exp;
                wire [SIG_W-1:0] sig;
                spu_mul_fp_pipe #(
                    .STAGES(CUT_P),
                    .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                    .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)
                ) u_mul (
                    .clk_i(clk_i), .a_i(a_i[k*AW +: AW]), .b_i(b_i[k*BW +: BW]),
                    .sign_o(sign), .exp_o(exp), .sig_o(sig),
                    .zero_o(zero), .inf_o(inf), .nan_o(nan)
                );
                // exp >= LSB_EXP for every finite product; zero/Inf/NaN have
                // sig = 0 and contribute nothing to the sum.
                wire signed [31:0] sh  = $signed({{(32-PE_W){exp[PE_W-1]}}, exp}) - LSB_EXP;
                wire [SW-1:0]      mag = {{(SW-SIG_W){1'b0}}, sig} << sh;
                assign terms[k*SW +: SW] = sign ? (~mag + 1'b1) : mag;
                assign p_nan[k]  = nan;
                assign p_pinf[k] = inf & ~sign;
                assign p_ninf[k] = inf & sign;
                wire unused_zero = zero;   // zero products need no flag
            end
        end
    endgenerate

    // the scales follow the products through cut P
    wire [15:0] sc_p;
    spu_pipe_stage #(.W(16), .EN(CUT_P)) u_sc_p (.clk_i(clk_i), .d_i({sa_i, sb_i}), .q_o(sc_p));

    // ---- balanced adder tree (heap order: node i = node 2i+1 + 2i+2) ----
    // Two always blocks (not a generate of assigns) so the tree reads as a
    // sequence; cut T registers nodes K .. 2K between them.
    reg [(2*N-1)*SW-1:0] node;
    reg [(2*N-1)*SW-1:0] node2;
    integer j;
    always @* begin
        node = {(2*N-1)*SW{1'b0}};
        node[(N-1)*SW +: N*SW] = terms;
        for (j = N - 2; j >= K; j = j - 1)
            node[j*SW +: SW] = node[(2*j+1)*SW +: SW] + node[(2*j+2)*SW +: SW];
    end
    localparam integer KW = (2*K < 2*N-1) ? (K + 1) * SW : (2*N-1-K) * SW;
    localparam integer TW = KW + 16 + 3;
    wire [TW-1:0] t_q;
    spu_pipe_stage #(.W(TW), .EN(CUT_T)) u_t (.clk_i(clk_i),
        .d_i({node[K*SW +: KW], sc_p, |p_nan, |p_pinf, |p_ninf}), .q_o(t_q));
    wire [15:0] sc_t = t_q[3 +: 16];
    always @* begin
        node2 = node;
        node2[K*SW +: KW] = t_q[TW-1 -: KW];
        for (j = K - 1; j >= 0; j = j - 1)
            node2[j*SW +: SW] = node2[(2*j+1)*SW +: SW] + node2[(2*j+2)*SW +: SW];
    end

    // ---- scale and round once ------------------------------------------
    wire        any_pinf = t_q[1];
    wire        any_ninf = t_q[0];
    wire        nan = t_q[2] | (&sc_t[15:8]) | (&sc_t[7:0]) | (any_pinf & any_ninf);
    wire        inf = any_pinf | any_ninf;
    wire [EW-1:0] e = LSB_EXP[EW-1:0] + {3'd0, sc_t[15:8]} + {3'd0, sc_t[7:0]} - 11'd254;

    localparam integer RW = SW + EW + 3;
    wire [RW-1:0] r_q;
    spu_pipe_stage #(.W(RW), .EN(CUT_R)) u_r (.clk_i(clk_i),
        .d_i({node2[0 +: SW], e, nan, inf, any_ninf}), .q_o(r_q));

    spu_fx2f32_pipe #(.STAGES(FX_ST), .W(SW), .EW(EW)) u_round (
        .clk_i(clk_i),
        .x_i(r_q[RW-1 -: SW]), .e_i(r_q[3 +: EW]),
        .nan_i(r_q[2]), .inf_i(r_q[1]), .inf_sign_i(r_q[0]),
        .f32_o(f32_o)
    );
endmodule
`default_nettype wire
