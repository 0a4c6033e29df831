// spu_eqref_cvt_f32 -- miter: spu_cvt_f32 (the unit, combinational) against
// the reference model spu_ref_cvt_f32. bad_o = 1 when they differ.
`default_nettype none
module spu_eqref_cvt_f32 #(
    parameter integer E    = 4,
    parameter integer M    = 3,
    parameter integer SPEC = 2,
    parameter integer N    = 23 - M
) (
    input  wire [31:0]  f32_i,
    input  wire [1:0]   round_i,
    input  wire         ovf_i,
    input  wire [N-1:0] rand_i,
    output wire         bad_o
);
    wire [E+M:0] c_unit, c_ref;
    spu_cvt_f32 #(.E(E), .M(M), .SPEC(SPEC), .N(N)) u_unit (.f32_i(f32_i), .round_i(round_i),
        .ovf_i(ovf_i), .rand_i(rand_i), .code_o(c_unit));
    spu_ref_cvt_f32 #(.E(E), .M(M), .SPEC(SPEC), .N(N)) u_ref (.f32_i(f32_i), .round_i(round_i),
        .ovf_i(ovf_i), .rand_i(rand_i), .code_o(c_ref));
    assign bad_o = (c_unit != c_ref);
endmodule
`default_nettype wire
