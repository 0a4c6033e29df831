// spu_tb_cvt -- test top for the fp32 converters to bf16, e4m3 and e5m2,
// all driven by the same inputs; each takes the low N (= 23 - M) bits of
// rand_i.
`default_nettype none
module spu_tb_cvt (
    input  wire [31:0] f32_i,
    input  wire [1:0]  round_i,
    input  wire        ovf_i,
    input  wire [20:0] rand_i,
    output wire [15:0] bf16_o,
    output wire [7:0]  e4m3_o,
    output wire [7:0]  e5m2_o
);
    spu_cvt_f32 #(.E(8), .M(7), .SPEC(1)) u_bf16 (
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[15:0]), .code_o(bf16_o));
    spu_cvt_f32 #(.E(4), .M(3), .SPEC(2)) u_e4m3 (
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i[19:0]), .code_o(e4m3_o));
    spu_cvt_f32 #(.E(5), .M(2), .SPEC(1)) u_e5m2 (
        .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i), .code_o(e5m2_o));
endmodule
`default_nettype wire
