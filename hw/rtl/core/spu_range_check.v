// spu_range_check -- scratchpad bound check of a strided access without a
// 32x32 multiplier: bad_o = base + n*stride + span > LIMIT, computed as if in
// unbounded arithmetic (no wrap). Every operand and partial result is cut to
// NW bits, with 2^NW > LIMIT: a base, a factor (times a non-zero other
// factor) or a product of 2^NW or more is out of range on its own, so only an
// NW-bit sum and a product below 2^NW remain -- one factor of which is below
// 2^HW, HW = ceil(NW/2): an HW x NW multiplier. Combinational; used by mm (A and
// B) and st.
`default_nettype none
module spu_range_check #(
    parameter integer LIMIT = 262144,
    parameter integer NW    = $clog2(LIMIT) + 1
) (
    input  wire [31:0] base_i,
    input  wire [31:0] n_i,
    input  wire [31:0] stride_i,
    input  wire [15:0] span_i,
    output wire        bad_o
);
    localparam integer SW = (NW > 16) ? NW + 2 : 18;   // the final sum
    localparam integer HW = (NW + 1) / 2;              // 2*HW >= NW
    localparam [31:0] LIMIT32 = LIMIT;

    wire n_big    = |n_i[31:NW];
    wire s_big    = |stride_i[31:NW];
    wire base_big = |base_i[31:NW];
    // an in-range product is below 2^NW, so one factor is below 2^HW: multiply
    // that one (HW bits) by the other (NW bits); both >= 2^HW is out of range
    wire n_small  = ~|n_i[NW-1:HW];
    wire s_small  = ~|stride_i[NW-1:HW];
    wire [HW-1:0] fac_s = n_small ? n_i[HW-1:0] : stride_i[HW-1:0];
    wire [NW-1:0] fac_l = n_small ? stride_i[NW-1:0] : n_i[NW-1:0];
    wire [NW+HW-1:0] prod = fac_s * fac_l;
    wire both_l   = !n_small && !s_small;
    wire prod_big = both_l || (|prod[NW+HW-1:NW]);
    wire [SW-1:0] last = {{(SW-NW){1'b0}}, base_i[NW-1:0]} + {{(SW-NW){1'b0}}, prod[NW-1:0]}
                       + {{(SW-16){1'b0}}, span_i};

    // last > LIMIT; for a power of two 2^L (every configuration): a bit above
    // L, or bit L and any bit below -- plain logic instead of a carry chain
    localparam integer L = $clog2(LIMIT);
    wire last_over = ((LIMIT & (LIMIT - 1)) == 0)
                   ? ((|last[SW-1:L+1]) || (last[L] && (|last[L-1:0])))
                   : ({{(32-SW){1'b0}}, last} > LIMIT32);

    assign bad_o = (n_big && (stride_i != 32'd0)) || (s_big && (n_i != 32'd0))
                || base_big || prod_big || last_over;
endmodule
`default_nettype wire
