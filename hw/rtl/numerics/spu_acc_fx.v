// spu_acc_fx -- exact fixed-point accumulator for exact fp products.
//
// Accumulates products in the spu_mul_fp output encoding (sign, exp, sig,
// zero/inf/nan) into a two's-complement register of ACC_W bits whose LSB
// weighs 2^LSB_EXP. Every product whose exp_i >= LSB_EXP and whose shifted
// magnitude fits is added exactly, so the sum is exact and independent of
// the order of the products (no rounding anywhere). Read it out as a float
// with spu_fx2f32 (x_i = acc_o, e_i = LSB_EXP).
//
// Drive: one product per cycle with valid_i high. clr_i high starts a new
// sum: the register takes this cycle's product (or 0 when valid_i is low)
// instead of adding to the old sum. Latency 1: acc_o and the flags show the
// sum including the product presented in the previous cycle.
// Flags (sticky until clr_i): nan_o (a NaN product, or +Inf and -Inf both
// seen), inf_o / inf_sign_o (Inf products of one sign only), ovf_o (the
// two's-complement sum wrapped; acc_o is then the sum modulo 2^ACC_W).
//
// Defaults fit e4m3 x e4m3 products (|p| < 2^18, LSB 2^-18): 36 magnitude
// bits, a sign and 11 guard bits, so any 2048 products sum without
// overflow. docs/numerics-rtl.md lists the settings for the other pairs.
// Reset: synchronous, active-high rst_i clears the sum and the flags.
// Pipelining: STAGES = 0 (default) is the unit above, latency 1. STAGES = 1
// registers the shifted, signed term (and rst_i, clr_i, valid_i and the
// product's flags with it) before the accumulating adder, so every input,
// rst_i included, takes effect one cycle later: latency 1 + STAGES; proven
// equal to STAGES = 0 with its inputs delayed by STAGES (tests/formal/).
// C twin: spu_hw_acc_fx_*() in host/src/numerics_hw/.
`default_nettype none
module spu_acc_fx #(
    parameter integer SIG_W   = 8,     // width of sig_i
    parameter integer PE_W    = 7,     // width of exp_i (signed)
    parameter integer LSB_EXP = -18,   // weight of acc_o's LSB: 2^LSB_EXP
    parameter integer ACC_W   = 48,    // accumulator width
    parameter integer STAGES  = 0      // 0..1 input pipeline registers
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    clr_i,
    input  wire                    valid_i,
    input  wire                    sign_i,
    input  wire [PE_W-1:0]         exp_i,
    input  wire [SIG_W-1:0]        sig_i,
    input  wire                    inf_i,
    input  wire                    nan_i,
    output wire signed [ACC_W-1:0] acc_o,
    output wire                    nan_o,
    output wire                    inf_o,
    output wire                    inf_sign_o,
    output wire                    ovf_o
);
    reg signed [ACC_W-1:0] acc_q, acc_d;
    reg                    nan_q, nan_d;
    reg                    pinf_q, pinf_d;   // +Inf seen
    reg                    ninf_q, ninf_d;   // -Inf seen
    reg                    ovf_q, ovf_d;

    // Shift of the product into the accumulator grid. A (mis)configured
    // LSB_EXP above the product's exponent would make it negative; the
    // product is then dropped (documented limit, the twin does the same).
    wire signed [31:0]     sh = $signed({{(32-PE_W){exp_i[PE_W-1]}}, exp_i}) - LSB_EXP;
    wire [ACC_W-1:0]       term_mag = (sh < 0) ? {ACC_W{1'b0}} : ({{(ACC_W-SIG_W){1'b0}}, sig_i} << sh);
    wire signed [ACC_W-1:0] term_i  = sign_i ? -$signed(term_mag) : $signed(term_mag);

    // optional input stage: the term and the controls, registered together
    localparam integer SW = ACC_W + 6;
    wire [SW-1:0] s_q;
    spu_pipe_stage #(.W(SW), .EN(STAGES >= 1 ? 1 : 0)) u_in (.clk_i(clk_i),
        .d_i({rst_i, clr_i, valid_i, sign_i, inf_i, nan_i, term_i}), .q_o(s_q));
    wire                    rst   = s_q[SW-1];
    wire                    clr   = s_q[SW-2];
    wire                    valid = s_q[SW-3];
    wire                    sign  = s_q[SW-4];
    wire                    inf   = s_q[SW-5];
    wire                    nan   = s_q[SW-6];
    wire signed [ACC_W-1:0] term  = s_q[ACC_W-1:0];

    reg  signed [ACC_W-1:0] base;
    reg                    base_nan, base_pinf, base_ninf, base_ovf;

    always @* begin
        // clr restarts from an empty sum
        base      = clr ? {ACC_W{1'b0}} : acc_q;
        base_nan  = clr ? 1'b0 : nan_q;
        base_pinf = clr ? 1'b0 : pinf_q;
        base_ninf = clr ? 1'b0 : ninf_q;
        base_ovf  = clr ? 1'b0 : ovf_q;
        acc_d  = base;
        nan_d  = base_nan;
        pinf_d = base_pinf;
        ninf_d = base_ninf;
        ovf_d  = base_ovf;
        if (valid) begin
            if (nan) begin
                nan_d = 1'b1;
            end else if (inf) begin
                pinf_d = base_pinf | ~sign;
                ninf_d = base_ninf | sign;
            end else begin
                acc_d = base + term;
                // wrapped iff both addends share a sign the sum does not
                ovf_d = base_ovf | ((base[ACC_W-1] == term[ACC_W-1]) &&
                                    (acc_d[ACC_W-1] != base[ACC_W-1]));
            end
        end
    end

    always @(posedge clk_i) begin
        if (rst) begin
            acc_q  <= {ACC_W{1'b0}};
            nan_q  <= 1'b0;
            pinf_q <= 1'b0;
            ninf_q <= 1'b0;
            ovf_q  <= 1'b0;
        end else begin
            acc_q  <= acc_d;
            nan_q  <= nan_d;
            pinf_q <= pinf_d;
            ninf_q <= ninf_d;
            ovf_q  <= ovf_d;
        end
    end

    assign acc_o      = acc_q;
    assign nan_o      = nan_q | (pinf_q & ninf_q);
    assign inf_o      = ~nan_o & (pinf_q | ninf_q);
    assign inf_sign_o = ninf_q;
    assign ovf_o      = ovf_q;
endmodule
`default_nettype wire
