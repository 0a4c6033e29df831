// spu_eq_cvt_f32 -- miter: spu_cvt_f32_pipe at STAGES against STAGES = 0
// fed LAT cycles late. bad_o = 1 when, after the first LAT cycles, not the codes agree.
`default_nettype none
module spu_eq_cvt_f32 #(
    parameter integer STAGES = 1,
    parameter integer LAT    = STAGES,
    parameter integer E      = 4,
    parameter integer M      = 3,
    parameter integer SPEC   = 2
) (
    input  wire            clk_i,
    input  wire [31:0]     f32_i,
    input  wire [1:0]      round_i,
    input  wire            ovf_i,
    input  wire [22-M:0]   rand_i,
    output wire             bad_o
);
    localparam integer N  = 23 - M;
    localparam integer IW = 32 + 2 + 1 + N;
    wire [IW-1:0] in_d;
    wire [E+M:0]  c_gold, c_gate;
    wire settled;
    spu_eq_delay #(.W(IW), .D(LAT)) u_dl (.clk_i(clk_i), .d_i({f32_i, round_i, ovf_i, rand_i}), .q_o(in_d), .settled_o(settled));
    spu_cvt_f32_pipe #(.STAGES(0), .E(E), .M(M), .SPEC(SPEC)) u_gold (
        .clk_i(clk_i), .f32_i(in_d[IW-1 -: 32]), .round_i(in_d[N+1 +: 2]), .ovf_i(in_d[N]),
        .rand_i(in_d[N-1:0]), .code_o(c_gold));
    spu_cvt_f32_pipe #(.STAGES(STAGES), .E(E), .M(M), .SPEC(SPEC)) u_gate (
        .clk_i(clk_i), .f32_i(f32_i), .round_i(round_i), .ovf_i(ovf_i), .rand_i(rand_i),
        .code_o(c_gate));
    wire eq = (c_gold == c_gate);
    // the property (AIGER: bad_o never 1): once settled, the outputs agree
    assign bad_o = settled & ~eq;
endmodule
`default_nettype wire
