// spu_mx_dot -- OCP MX block dot product: N element pairs and two E8M0
// scales -> one fp32.
//
// Drive a_i / b_i with N packed element codes (element k in bits
// [k*AW +: AW], AW = 1 + A_EXP + A_MAN; same for b_i) and sa_i / sb_i with
// the blocks' E8M0 shared scales (2^(s-127); 0xFF is NaN). f32_o is
//   RNE_fp32( 2^(sa-127) * 2^(sb-127) * sum_k a_k * b_k )
// with ONE rounding: the N products are exact (spu_mul_fp), they are summed
// exactly in two's-complement fixed point (a balanced adder tree, so the
// order does not matter) and spu_fx2f32 rounds the scaled sum to fp32 with
// subnormals and overflow to Inf. An exact zero sum gives +0.
// Specials: a scale of 0xFF, a NaN element product (NaN operand or 0 x Inf)
// or Inf products of both signs -> NaN 0x7FC00000; otherwise an Inf product
// -> Inf of its sign.
// Element formats follow spu_mul_fp's A_/B_ parameters; defaults: mxfp8 E4M3
// both sides (e.g. mxfp4: A_EXP=2 A_MAN=1 A_SPEC=0, same for B).
// Purely combinational. C twin: spu_hw_mx_dot() in host/src/numerics_hw/.
`default_nettype none
module spu_mx_dot #(
    parameter integer N      = 32,
    parameter integer A_EXP  = 4,
    parameter integer A_MAN  = 3,
    parameter integer A_SPEC = 2,
    parameter integer B_EXP  = 4,
    parameter integer B_MAN  = 3,
    parameter integer B_SPEC = 2
) (
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
    localparam integer LSB_EXP = (1 - A_BIAS - A_MAN) + (1 - B_BIAS - B_MAN);
    // largest shift of a product significand above that LSB
    localparam integer SHM    = ((1 << A_EXP) - 2) + ((1 << B_EXP) - 2);
    // sum width: product magnitude + sign + growth of N additions
    localparam integer SW     = SIG_W + SHM + 1 + clog2(N);
    localparam integer EW     = 11;   // holds LSB_EXP + sa + sb - 254 for all formats here

    // ---- exact products, as fixed-point terms ---------------------------
    wire [N-1:0]      p_nan;
    wire [N-1:0]      p_pinf;
    wire [N-1:0]      p_ninf;
    wire [N*SW-1:0]   terms;

    genvar k;
    generate
        for (k = 0; k < N; k = k + 1) begin : g_lane
            wire             sign, zero, inf, nan;
            wire [PE_W-1:0]  exp;
            wire [SIG_W-1:0] sig;
            spu_mul_fp #(
                .A_EXP(A_EXP), .A_MAN(A_MAN), .A_SPEC(A_SPEC),
                .B_EXP(B_EXP), .B_MAN(B_MAN), .B_SPEC(B_SPEC)
            ) u_mul (
                .a_i(a_i[k*AW +: AW]), .b_i(b_i[k*BW +: BW]),
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
    endgenerate

    // ---- balanced adder tree (heap order: node i = node 2i+1 + 2i+2) ----
    // One always block (not a generate of assigns) so the tree reads as a
    // sequence and the simulator does not see a self-referencing vector.
    reg [(2*N-1)*SW-1:0] node;
    integer j;
    always @* begin
        node = {(2*N-1)*SW{1'b0}};
        node[(N-1)*SW +: N*SW] = terms;
        for (j = N - 2; j >= 0; j = j - 1)
            node[j*SW +: SW] = node[(2*j+1)*SW +: SW] + node[(2*j+2)*SW +: SW];
    end

    // ---- scale and round once ------------------------------------------
    wire        nan = (|p_nan) | (&sa_i) | (&sb_i) | ((|p_pinf) & (|p_ninf));
    wire        inf = (|p_pinf) | (|p_ninf);
    wire [EW-1:0] e = LSB_EXP[EW-1:0] + {3'd0, sa_i} + {3'd0, sb_i} - 11'd254;

    spu_fx2f32 #(.W(SW), .EW(EW)) u_round (
        .x_i(node[0 +: SW]), .e_i(e),
        .nan_i(nan), .inf_i(inf), .inf_sign_i(|p_ninf),
        .f32_o(f32_o)
    );
endmodule
`default_nettype wire
