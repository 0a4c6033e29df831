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
// Purely combinational: spu_cvt_f32_pipe at STAGES = 0 (use that module
// for a pipelined converter, docs/numerics-rtl.md). C twin: spu_hw_cvt_f32() in host/src/numerics_hw/.
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
    output wire [E+M:0] code_o
);
    spu_cvt_f32_pipe #(.STAGES(0), .E(E), .M(M), .SPEC(SPEC), .N(N)) u_core (
        .clk_i(1'b0), .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i),
        .code_o(code_o));
endmodule
`default_nettype wire
