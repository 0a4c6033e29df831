// spu_fx2f32 -- round a scaled two's-complement fixed-point number to fp32.
//
// Drive x_i with a signed W-bit integer X and e_i with a signed EW-bit
// exponent E; f32_o is the IEEE-754 binary32 nearest to X * 2^E under
// round-to-nearest-even (one rounding of the exact value), with gradual
// underflow (subnormals) and overflow to +-Inf. X = 0 gives +0.
// Special inputs take priority: nan_i -> quiet NaN 0x7FC00000 (sign 0);
// else inf_i -> Inf with sign inf_sign_i.
// Purely combinational. Used as the output stage of spu_mx_dot and to read
// out spu_acc_fx. C twin: spu_hw_fx2f32() in host/src/numerics_hw/.
`default_nettype none
module spu_fx2f32 #(
    parameter integer W  = 48,   // width of x_i (>= 2)
    parameter integer EW = 10    // width of e_i (<= 30)
) (
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output reg  [31:0]   f32_o
);
    // The normalized magnitude gets 26 zero bits below it so the kept
    // 24 bits, the round bit and one sticky bit always exist.
    localparam integer NW = W + 26;
    // Exponent arithmetic is done in 32-bit signed integers; W and EW are
    // small enough that nothing wraps.

    wire          neg = x_i[W-1];
    wire [W-1:0]  mag = neg ? (~x_i + 1'b1) : x_i;   // -2^(W-1) fits unsigned

    // Leading-one position of mag (priority encoder, lowest index wins last).
    integer       i;
    reg [31:0]    msb;      // position of the leading one, 0 if mag == 0
    always @* begin
        msb = 32'd0;
        for (i = 0; i < W; i = i + 1)
            if (mag[i]) msb = i;
    end

    reg  signed [31:0] t;        // unbiased exponent of the leading one
    reg  signed [31:0] under;    // how far t is below the normal range
    reg  [31:0]        d;        // extra right shift for subnormal results
    reg  [NW-1:0]      norm;     // mag, leading one at bit NW-1
    reg  [NW-1:0]      shifted;
    reg                sticky;
    reg  [23:0]        kept;
    reg                rnd;
    reg                up;
    reg  signed [31:0] field_m1; // biased exponent - 1 (normal), 0 (subnormal)
    reg  signed [33:0] code;     // wide enough to see the overflow

    always @* begin
        t        = $signed(msb) + {{(32-EW){e_i[EW-1]}}, e_i};
        norm     = {mag, 26'd0} << (W - 1 - msb);
        under    = -32'sd126 - t;
        // A shift of NW or more keeps nothing; clamp so the shift is defined.
        d        = (under <= 0) ? 32'd0 : (under >= NW) ? NW : under;
        shifted  = norm >> d;
        sticky   = |(norm & ~({NW{1'b1}} << d));
        kept     = shifted[NW-1:NW-24];
        rnd      = shifted[NW-25];
        sticky   = sticky | (|shifted[NW-26:0]);
        up       = rnd & (sticky | kept[0]);
        field_m1 = (under <= 0) ? (t + 32'sd126) : 32'sd0;
        if (t > 32'sd200)   // clamp: anything this large overflows anyway
            field_m1 = 32'sd400;
        code     = ({{2{field_m1[31]}}, field_m1} <<< 23) + {10'd0, kept} + {33'd0, up};

        if (nan_i)
            f32_o = 32'h7FC00000;
        else if (inf_i)
            f32_o = {inf_sign_i, 31'h7F800000};
        else if (mag == {W{1'b0}})
            f32_o = 32'h00000000;
        else if (code >= 34'sh7F800000)
            f32_o = {neg, 31'h7F800000};
        else
            f32_o = {neg, code[30:0]};
    end
endmodule
`default_nettype wire
