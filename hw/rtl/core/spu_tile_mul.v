// spu_tile_mul -- the format-generic product port of a tile: operand bytes A
// and B plus the cfg `in` dtype code -> a 32-bit product to accumulate.
// Only int8 exists today (signed 8x8 -> 16, sign-extended); later fp8 / bf16 /
// MX multipliers from hw/rtl/numerics/ plug in here behind the same port.
// A plain `*` of two signed bytes so synthesis can map it to a DSP (SB_MAC16).
// Unsupported codes give 0 (the sequencer traps such a cfg before any mm).
`default_nettype none
module spu_tile_mul (
    input  wire [3:0]  fmt_i,
    input  wire [7:0]  a_i,
    input  wire [7:0]  b_i,
    output reg  [31:0] prod_o
);
`include "spu_isa.vh"
    wire signed [15:0] p = $signed(a_i) * $signed(b_i);

    always @* begin
        prod_o = 32'd0;
        case (fmt_i)
            DT_INT8: prod_o = {{16{p[15]}}, p};
            default: prod_o = 32'd0;
        endcase
    end
endmodule
`default_nettype wire
