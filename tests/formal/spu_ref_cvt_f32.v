// spu_ref_cvt_f32 -- reference model for the proofs (not synthesized into
// anything): f32 -> a narrower float, written from docs/numerics.md
// ("Conversion from f32", "Stochastic rounding"), not from
// hw/rtl/numerics/spu_cvt_f32*.v. It decodes |x| = sig * 2^ex exactly,
// takes the target ulp 2^u with u = max(floor(log2|x|), emin) - M, drops
// k = u - ex low bits of sig and rounds on the dropped remainder:
//   rne: remainder > half an ulp, or = half and the kept value odd;
//   rtz: never up; rna: remainder >= half;
//   sr:  D = the N bits just below the kept LSB (remainder * 2^N / 2^k,
//        bits further below dropped); up when D + rand_i >= 2^N.
// A carry to 2^(M+1) ulps moves to the next binade; the magnitude code is
// {u + M + bias, low M bits} (or {0, q} below the normal range) and is
// compared with max finite: above it -> +-max (sat, and always under rtz)
// or +-Inf / NaN (ovf). Inf input: sat -> +-max, ovf -> +-Inf / NaN. NaN
// input: IEEE targets keep the sign and the top M mantissa bits with the
// quiet bit set; E4M3 gives S.1111.111. The sign is kept everywhere.
// SPEC 1 = IEEE target (bf16, e5m2), 2 = OCP E4M3. Targets with emin >= -126.
`default_nettype none
module spu_ref_cvt_f32 #(
    parameter integer E    = 4,
    parameter integer M    = 3,
    parameter integer SPEC = 2,
    parameter integer N    = 23 - M
) (
    input  wire [31:0]  f32_i,
    input  wire [1:0]   round_i,
    input  wire         ovf_i,
    input  wire [N-1:0] rand_i,
    output reg  [E+M:0] code_o
);
    localparam integer BIAS = (1 << (E - 1)) - 1;
    localparam integer EMIN = 1 - BIAS;
    // largest finite code: exponent field and mantissa field
    localparam integer MAXE = (SPEC == 2) ? (1 << E) - 1 : (1 << E) - 2;
    localparam integer MAXM = (SPEC == 2) ? (1 << M) - 2 : (1 << M) - 1;

    reg            s;
    reg  [7:0]     ef;
    reg  [22:0]    mf;
    reg  [63:0]    sig;        // |x| = sig * 2^ex
    reg  [63:0]    q;          // kept magnitude in ulps of 2^u
    reg  [63:0]    rem;        // dropped bits (k of them)
    reg  [63:0]    half;       // half an ulp in units of 2^ex
    reg  [63:0]    dd;         // D, the N bits below the kept LSB
    reg  [N:0]     dsum;       // D + rand_i
    reg            up;
    integer        ex, p, lg, u, k, fe, fm, i;
    reg  [E+M-1:0] maxc, infc;

    always @* begin
        s   = f32_i[31];
        ef  = f32_i[30:23];
        mf  = f32_i[22:0];
        sig = (ef == 8'd0) ? {41'd0, mf} : {40'd0, 1'b1, mf};
        ex  = (ef == 8'd0) ? -149 : $signed({24'd0, ef}) - 150;
        p   = 0;
        for (i = 0; i < 24; i = i + 1)
            if (sig[i]) p = i;
        lg  = p + ex;
        u   = ((lg > EMIN) ? lg : EMIN) - M;
        k   = u - ex;          // >= N >= 16 for every f32 input and target
        // beyond 63 dropped bits nothing changes: q = 0, rem = sig < half,
        // D = 0 (k - N > 24); clamp so every shift stays in 64 bits
        if (k > 63) k = 63;
        q    = sig >> k;
        rem  = sig - (q << k);
        half = 64'd1 << (k - 1);
        dd   = (k >= N) ? (rem >> (k - N)) : (rem << (N - k));
        dsum = {1'b0, dd[N-1:0]} + {1'b0, rand_i};
        case (round_i)
            2'd0:    up = (rem > half) || (rem == half && q[0]);
            2'd1:    up = 1'b0;
            2'd2:    up = (rem >= half);
            default: up = dsum[N];
        endcase
        q = q + {63'd0, up};
        if (q == (64'd1 << (M + 1))) begin
            q = q >> 1;
            u = u + 1;
        end
        if (q >= (64'd1 << M)) begin
            fe = u + M + BIAS;
            fm = q[M-1:0];
        end else begin
            fe = 0;
            fm = q[M:0];
        end
        maxc = MAXE[E-1:0] * (1 << M) + MAXM[M-1:0];
        infc = (SPEC == 2) ? {(E+M){1'b1}} : {{E{1'b1}}, {M{1'b0}}};
        if ((&ef) && (|mf))
            code_o = (SPEC == 2) ? {s, {(E+M){1'b1}}} : {s, {E{1'b1}}, 1'b1, mf[21 -: M-1]};
        else if (&ef)
            code_o = ovf_i ? {s, infc} : {s, maxc};
        else if (sig == 64'd0)
            code_o = {s, {(E+M){1'b0}}};
        else if (fe > MAXE || (fe == MAXE && fm > MAXM))
            code_o = (ovf_i && round_i != 2'd1) ? {s, infc} : {s, maxc};
        else
            code_o = {s, fe[E-1:0], fm[M-1:0]};
    end
endmodule
`default_nettype wire
