// spu_tile_mac -- one format-generic processing element (USE_ICE40_DSP = 0):
// the product of the operand bytes present at its inputs this cycle, in the
// cfg `in` format fmt_i, added into its ACC_W-bit accumulator (wrapping).
// docs/numerics.md "Datapath numerics" gives the arithmetic:
//   ACC_W = 32 (a build that carries int8 only, FORMATS = 1): the signed 8x8
//               product sign-extended (a plain `*`; no flags, flags_o = 0).
//   ACC_W > 32 (a build with a float format): the exact product on the
//               accumulator's fixed-point grid, ACC_W-bit two's complement:
//     int8        the product (LSB weight 2^0);
//     e4m3, e5m2  sig * 2^(exp - FP_LSB), LSB weight 2^FP_LSB = 2^-32: every
//                 e4m3/e5m2 product is an integer multiple of it and below
//                 2^32 in magnitude, so the term is exact and < 2^64;
//   and the sticky flags flags_o = {ovf, ninf, pinf, nan}: a NaN product (a
//   NaN operand, or 0 x Inf), an Inf product of either sign (the term is
//   then 0), ovf when an addition wraps the ACC_W-bit register (both addends
//   of one sign, the sum of the other). A format FORMATS does not carry
//   gives a zero term (the sequencer traps such a cfg: FORMAT).
// The product is the exact product of spu_mul_fp (hw/rtl/numerics; C twin
// spu_hw_mul_fp), written here as a function evaluated inside the clocked
// block: the whole multiply-accumulate sits behind act_i, so a simulator
// (Verilator) does no work for an idle tile -- docs/sim.md "Speed of the 8x8
// sim". In hardware act_i is a clock enable on the accumulator.
//
// Drive (spu_array): act_i = 0 promises that a_i = b_i = 0 this cycle (the
// term is then 0 in every format: +0 x +0, no flags), so the tile holds.
// clr_i zeroes the accumulator and the flags and drops this cycle's term.
`default_nettype none
module spu_tile_mac #(
    parameter [31:0]  FORMATS = 32'h1,
    parameter integer ACC_W   = 32,
    parameter integer FP_LSB  = -32
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             clr_i,
    input  wire             act_i,
    input  wire [3:0]       fmt_i,
    input  wire [7:0]       a_i,
    input  wire [7:0]       b_i,
    output wire [ACC_W-1:0] acc_o,
    output wire [3:0]       flags_o
);
`include "spu_isa.vh"
    localparam integer HAS_E4M3 = (FORMATS[{1'b0, DT_E4M3}] != 1'b0) ? 1 : 0;
    localparam integer HAS_E5M2 = (FORMATS[{1'b0, DT_E5M2}] != 1'b0) ? 1 : 0;
    localparam [7:0]   LSB8     = FP_LSB[7:0];

    generate
        if (ACC_W == 32) begin : g_int8
            reg [31:0] acc_q;
            wire unused_fmt = &{1'b0, fmt_i};
            always @(posedge clk_i) begin
                if (rst_i || clr_i)
                    acc_q <= 32'd0;
                else if (act_i)
                    acc_q <= acc_q + prod32(a_i, b_i);
            end
            assign acc_o   = acc_q;
            assign flags_o = 4'd0;
        end else begin : g_wide
            // {ovf, ninf, pinf, nan, acc}: one register, one assignment
            reg [ACC_W+3:0] st_q;
            always @(posedge clk_i) begin
                if (rst_i || clr_i)
                    st_q <= {(ACC_W+4){1'b0}};
                else if (act_i)
                    st_q <= mac(st_q, fmt_i, a_i, b_i);
            end
            assign acc_o   = st_q[ACC_W-1:0];
            assign flags_o = st_q[ACC_W +: 4];
        end
    endgenerate

    function [31:0] prod32(input [7:0] a, input [7:0] b);
        reg [15:0] p;
        begin
            p = $signed(a) * $signed(b);
            prod32 = {{16{p[15]}}, p};
        end
    endfunction

    // One multiply-accumulate step (ACC_W > 32): state {ovf, ninf, pinf, nan,
    // acc} -> the next state. The product is spu_mul_fp's exact product
    // (value (-1)^sgn * sig * 2^ex, ex the signed exponent of sig's LSB;
    // biased exponent 0 counts as 1: subnormals), shifted onto the grid.
    function [ACC_W+3:0] mac(input [ACC_W+3:0] st, input [3:0] fmt,
                             input [7:0] a, input [7:0] b);
        reg [ACC_W-1:0] acc, term, sum, mag;
        reg [15:0]      p;
        reg [7:0]       sig, ex, sh;
        reg [4:0]       ae, be;
        reg [3:0]       as, bs;
        reg             sgn, pnan, pinf, an, bn, ai, bi, az, bz, ovf;
        begin
            acc  = st[ACC_W-1:0];
            sgn  = a[7] ^ b[7];
            pnan = 1'b0;
            pinf = 1'b0;
            term = {ACC_W{1'b0}};
            if (fmt == DT_INT8) begin
                p    = $signed(a) * $signed(b);
                term = {{(ACC_W-16){p[15]}}, p};
            end else if (fmt == DT_E4M3 && HAS_E4M3 != 0) begin
                // 1.4.3, bias 7; NaN = S.1111.111; no Inf
                ae   = {1'b0, a[6:3] | {3'd0, ~(|a[6:3])}};
                be   = {1'b0, b[6:3] | {3'd0, ~(|b[6:3])}};
                as   = {|a[6:3], a[2:0]};
                bs   = {|b[6:3], b[2:0]};
                pnan = (&a[6:0]) | (&b[6:0]);
                sig  = {4'd0, as} * {4'd0, bs};
                ex   = {3'd0, ae} + {3'd0, be} - 8'd20;   // 2 x (bias + mantissa bits)
                sh   = ex - LSB8;
                mag  = {{(ACC_W-8){1'b0}}, sig} << sh;
                term = pnan ? {ACC_W{1'b0}} : (sgn ? (~mag + 1'b1) : mag);
            end else if (fmt == DT_E5M2 && HAS_E5M2 != 0) begin
                // 1.5.2, bias 15; IEEE Inf / NaN
                ae   = a[6:2] | {4'd0, ~(|a[6:2])};
                be   = b[6:2] | {4'd0, ~(|b[6:2])};
                as   = {1'b0, |a[6:2], a[1:0]};
                bs   = {1'b0, |b[6:2], b[1:0]};
                an   = (&a[6:2]) & (|a[1:0]);
                bn   = (&b[6:2]) & (|b[1:0]);
                ai   = (&a[6:2]) & ~(|a[1:0]);
                bi   = (&b[6:2]) & ~(|b[1:0]);
                az   = ~(|a[6:0]);
                bz   = ~(|b[6:0]);
                pnan = an | bn | (ai & bz) | (bi & az);
                pinf = ~pnan & (ai | bi);
                sig  = {4'd0, as} * {4'd0, bs};
                ex   = {3'd0, ae} + {3'd0, be} - 8'd34;
                sh   = ex - LSB8;
                mag  = {{(ACC_W-8){1'b0}}, sig} << sh;
                term = (pnan | pinf) ? {ACC_W{1'b0}} : (sgn ? (~mag + 1'b1) : mag);
            end
            sum = acc + term;
            ovf = (acc[ACC_W-1] == term[ACC_W-1]) && (sum[ACC_W-1] != acc[ACC_W-1]);
            mac = {st[ACC_W+3] | ovf, st[ACC_W+2] | (pinf & sgn), st[ACC_W+1] | (pinf & ~sgn),
                   st[ACC_W] | pnan, sum};
        end
    endfunction
endmodule
`default_nettype wire
