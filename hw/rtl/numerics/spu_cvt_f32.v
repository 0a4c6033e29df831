// spu_cvt_f32 -- convert an fp32 to a narrower float (bf16, e4m3, e5m2).
//
// Drive f32_i with IEEE binary32 bits, round_i with the spu_round code
// (0 rne, 1 rtz, 2 rna, 3 sr; the same codes as the cfg `round` field),
// ovf_i with the spu_overflow code (0 sat, 1 ovf) and, for sr, rand_i with
// N random bits (the low N bits of the library's random word). code_o is
// the target code, bit-identical to spu_f32_to_code() of docs/numerics.md:
//   finite x: |x| rounded on the target grid, ulp 2^(max(e, emin) - M), with
//     gradual underflow and an unbounded exponent range; sr adds rand_i at
//     the N bit positions just below the kept LSB and truncates (bits
//     further below are ignored). A rounded magnitude above max finite
//     gives +-max (sat, and always under rtz) or +-Inf / NaN (ovf).
//   +-Inf: sat -> +-max; ovf -> +-Inf (IEEE targets) or NaN (E4M3).
//   NaN: IEEE targets keep the sign and the top mantissa bits, quiet bit
//     set; E4M3 gives S.1111.111.  The sign is always kept (-0 too).
// Target: E exponent bits, M mantissa bits, bias 2^(E-1)-1, SPEC 1 = IEEE
// (bf16 E8M7, e5m2 E5M2) or 2 = OCP E4M3 (no Inf, only S.1111.111 is NaN).
// Targets must have emin >= -126 (true for all three).
// Purely combinational. C twin: spu_hw_cvt_f32() in host/src/numerics_hw/.
`default_nettype none
module spu_cvt_f32 #(
    parameter integer E    = 4,
    parameter integer M    = 3,
    parameter integer SPEC = 2,
    parameter integer N    = 23 - M     // SR random bits (docs/numerics.md)
) (
    input  wire [31:0]  f32_i,
    input  wire [1:0]   round_i,
    input  wire         ovf_i,
    input  wire [N-1:0] rand_i,
    output reg  [E+M:0] code_o
);
    localparam integer BIAS  = (1 << (E - 1)) - 1;
    // f32 biased exponent of the target's smallest normal binade
    localparam integer EMINB = 128 - BIAS;
    localparam [7:0]   EMINB8 = EMINB[7:0];
    localparam integer XW    = 24 + N;          // significand + SR/guard bits
    localparam integer CW    = M + 11;          // code before the overflow check
    // largest finite magnitude code
    localparam integer MAXC  = (SPEC == 2) ? (((1 << E) - 1) << M) | ((1 << M) - 2)
                                           : (((1 << E) - 2) << M) | ((1 << M) - 1);

    wire          s   = f32_i[31];
    wire [7:0]    ef  = f32_i[30:23];
    wire [22:0]   mf  = f32_i[22:0];
    wire          in_nan = (&ef) & (|mf);
    wire          in_inf = (&ef) & ~(|mf);
    wire [23:0]   sig = {|ef, mf};
    // effective biased exponent: subnormal inputs sit in binade 1
    wire [7:0]    ee  = ef | {7'd0, ~(|ef)};

    wire [E+M-1:0] maxc = MAXC[E+M-1:0];
    wire [E+M-1:0] infc = (SPEC == 2) ? {(E+M){1'b1}} : {{E{1'b1}}, {M{1'b0}}};
    wire [E+M-1:0] nanc = (SPEC == 2) ? {(E+M){1'b1}}
                                      : {{E{1'b1}}, 1'b1, mf[21 -: M-1]};

    integer       eei;      // ee as an integer
    integer       d;        // binades below the target's normal range
    reg [XW-1:0]  x;        // {sig, N zero bits}
    reg [XW-1:0]  xs;       // x >> d: kept | D | lower bits
    reg           lost;     // nonzero bits below D (shifted out or not)
    reg [M:0]     kept;     // kept magnitude bits (hidden bit on top)
    reg [N-1:0]   dbits;    // D: the N bits just below the kept LSB
    reg           rb, st;
    reg [N:0]     srsum;
    reg           up;
    reg [7:0]     field_m1; // biased target exponent - 1, or 0 below emin
    reg [CW-1:0]  code;

    always @* begin
        eei      = {24'd0, ee};
        // The kept bits are sig's top M+1 bits shifted right by d; a shift of
        // XW or more keeps nothing, the clamp keeps the shift defined.
        d        = (EMINB > eei) ? (EMINB - eei) : 0;
        if (d > XW) d = XW;
        x        = {sig, {N{1'b0}}};
        xs       = x >> d;
        kept     = xs[XW-1 -: M+1];
        dbits    = xs[XW-M-2 -: N];
        lost     = (|xs[XW-M-2-N:0]) | (|(x & ~({XW{1'b1}} << d)));
        rb       = dbits[N-1];
        st       = (|dbits[N-2:0]) | lost;
        srsum    = {1'b0, dbits} + {1'b0, rand_i};
        case (round_i)
            2'd0:    up = rb & (st | kept[0]);   // rne
            2'd1:    up = 1'b0;                  // rtz
            2'd2:    up = rb;                    // rna
            default: up = srsum[N];              // sr: carry out of D + R
        endcase
        field_m1 = (ee > EMINB8) ? (ee - EMINB8) : 8'd0;
        // normal: (field-1)<<M plus kept with its hidden bit = field<<M | man;
        // subnormal: kept has no hidden bit. A carry rolls into the exponent.
        code     = ({{(CW-8){1'b0}}, field_m1} << M) + {{(CW-M-1){1'b0}}, kept} + {{(CW-1){1'b0}}, up};

        if (in_nan)
            code_o = {s, nanc};
        else if (in_inf)
            code_o = {s, ovf_i ? infc : maxc};
        else if (code > {{(CW-E-M){1'b0}}, maxc})
            code_o = {s, (ovf_i && round_i != 2'd1) ? infc : maxc};
        else
            code_o = {s, code[E+M-1:0]};
    end
endmodule
`default_nettype wire
