// spu_range_check_ref -- REFERENCE for tests/synth (not part of the RTL):
// hw/rtl/core/spu_range_check.v as first written (an NW x NW product, sums in
// 2*NW+34 bits: bad_o = base + n*stride + span > LIMIT without wrap; its
// argument: a factor >= 2^NW > LIMIT times a non-zero other factor is out of
// range anyway), kept so the narrowed module (an HW x NW product, NW-bit sums)
// can be proved equal to it with Yosys sat (tests Equivalence.RangeCheck*).
// A proof against the 32x32 product takes minutes; this one takes seconds.
`default_nettype none
module spu_range_check_ref #(
    parameter integer LIMIT = 262144,
    parameter integer NW    = $clog2(LIMIT) + 1
) (
    input  wire [31:0] base_i,
    input  wire [31:0] n_i,
    input  wire [31:0] stride_i,
    input  wire [15:0] span_i,
    output wire        bad_o
);
    localparam integer EW = 2 * NW + 34;
    localparam [31:0] LIMIT32 = LIMIT;

    wire n_big = |n_i[31:NW];
    wire s_big = |stride_i[31:NW];
    wire [2*NW-1:0] prod = n_i[NW-1:0] * stride_i[NW-1:0];
    wire [EW-1:0] last = {{(EW-32){1'b0}}, base_i} + {{(EW-2*NW){1'b0}}, prod}
                       + {{(EW-16){1'b0}}, span_i};

    assign bad_o = (n_big && (stride_i != 32'd0)) || (s_big && (n_i != 32'd0))
                || (last > {{(EW-32){1'b0}}, LIMIT32});
endmodule
`default_nettype wire
