// spu_ref_fx2f32 -- reference model for the proofs (not synthesized into
// anything): fp32 = RNE(x * 2^e), written from docs/numerics.md and
// IEEE 754 (round to nearest, ties to even, gradual underflow, overflow to
// Inf), not from hw/rtl/numerics/spu_fx2f32.v. It works in units of the
// fp32 grid: u = the ulp exponent of the result's binade (never below
// -149), k = u - e low bits of |x| are dropped, and the dropped remainder
// is compared with half an ulp. nan_i -> 0x7FC00000; else inf_i -> Inf of
// inf_sign_i; x = 0 -> +0; a nonzero x that rounds to zero keeps its sign.
`default_nettype none
module spu_ref_fx2f32 #(
    parameter integer W  = 48,
    parameter integer EW = 10
) (
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output reg  [31:0]   f32_o
);
    localparam integer QW = (W + 2 > 26) ? W + 2 : 26;
    reg            sign;
    reg  [W:0]     mag;        // |x|, one bit wider: |-2^(W-1)| fits
    reg  [QW-1:0]  q;          // |x| in ulps of 2^u, rounded
    reg  [QW-1:0]  rem;        // dropped bits
    reg  [QW-1:0]  half;       // half an ulp, in units of 2^e
    reg  [QW-1:0]  one;
    integer        p;          // position of the leading one of mag
    integer        ee;         // e as an integer
    integer        u;          // ulp exponent of the result
    integer        k;          // bits dropped: u - e
    integer        i;
    integer        biased;
    reg            found;

    always @* begin
        sign  = x_i[W-1];
        mag   = sign ? ({1'b0, ~x_i} + 1'b1) : {1'b0, x_i};
        ee    = $signed({{(32-EW){e_i[EW-1]}}, e_i});
        p     = 0;
        found = 1'b0;
        for (i = W; i >= 0; i = i - 1)
            if (!found && mag[i]) begin
                p = i;
                found = 1'b1;
            end
        // the value lies in [2^(p+e), 2^(p+e+1)); 24 significant bits there,
        // but never finer than the subnormal ulp 2^-149
        u = p + ee - 23;
        if (u < -149) u = -149;
        k = u - ee;
        one  = {{(QW-1){1'b0}}, 1'b1};
        q    = {QW{1'b0}};
        rem  = {QW{1'b0}};
        half = {QW{1'b0}};
        if (k <= 0) begin
            q = {{(QW-W-1){1'b0}}, mag} << (-k);   // exact: no bits dropped
        end else if (k > W + 1) begin
            q = {QW{1'b0}};                        // |x| < 2^W <= half an ulp: rounds to 0
        end else begin
            q    = {{(QW-W-1){1'b0}}, mag} >> k;
            rem  = {{(QW-W-1){1'b0}}, mag} - (q << k);
            half = one << (k - 1);
            if (rem > half || (rem == half && q[0]))
                q = q + 1'b1;
        end
        // a carry to 2^24 ulps moves to the next binade
        if (q == (one << 24)) begin
            q = q >> 1;
            u = u + 1;
        end
        biased = u + 150;                      // exponent field if q has 24 bits
        if (nan_i)
            f32_o = 32'h7FC00000;
        else if (inf_i)
            f32_o = {inf_sign_i, 8'hFF, 23'd0};
        else if (!found)
            f32_o = 32'h00000000;
        else if (q < (one << 23))
            f32_o = {sign, 8'd0, q[22:0]};      // subnormal (u = -149) or zero
        else if (biased >= 255)
            f32_o = {sign, 8'hFF, 23'd0};       // overflow
        else
            f32_o = {sign, biased[7:0], q[22:0]};
    end
endmodule
`default_nettype wire
