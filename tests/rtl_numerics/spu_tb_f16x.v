// spu_tb_f16x -- fp16 x fp16 spu_mul_fp_pipe at STAGES 1 and 2 against
// STAGES 0, for every input pair by enumeration (test_f16x.cc): a 32-bit
// counter {a, b} steps through all 2^32 pairs, one per clock, and each
// pipelined unit's outputs are compared with the combinational unit's of
// the pair STAGES clocks earlier (all of sign, zero, inf, nan, exp, sig).
// Drive rst_i for one clock (the counter starts at start_i), then clock; bad1_o / bad2_o count the
// mismatching cycles, first_bad_o holds the {a, b} of the first one,
// checked_o the pairs compared at STAGES 2 so far. (The SAT proof of this
// equivalence does not finish: an 11 x 11 multiplier against its split
// into partial products; docs/numerics-rtl.md.)
`default_nettype none
module spu_tb_f16x (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire [31:0] start_i,
    output reg  [31:0] bad1_o,
    output reg  [31:0] bad2_o,
    output reg  [31:0] first_bad_o,
    output reg  [32:0] checked_o
);
    localparam integer OW = 4 + 8 + 22;    // sign zero inf nan, PE_W = 8, SIG_W = 22
    reg  [31:0]   x_q;                     // {a, b} presented this cycle
    reg  [31:0]   x_q1, x_q2;              // ... one and two cycles ago
    reg  [1:0]    warm_q;                  // cycles since reset, up to 3
    reg  [OW-1:0] o0_q1, o0_q2;            // STAGES 0 outputs, delayed
    wire [OW-1:0] o0, o1, o2;

    spu_mul_fp_pipe #(.STAGES(0), .A_EXP(5), .A_MAN(10), .A_SPEC(1), .B_EXP(5), .B_MAN(10), .B_SPEC(1)) u_s0 (
        .clk_i(clk_i), .a_i(x_q[31:16]), .b_i(x_q[15:0]), .sign_o(o0[33]), .zero_o(o0[32]),
        .inf_o(o0[31]), .nan_o(o0[30]), .exp_o(o0[29:22]), .sig_o(o0[21:0]));
    spu_mul_fp_pipe #(.STAGES(1), .A_EXP(5), .A_MAN(10), .A_SPEC(1), .B_EXP(5), .B_MAN(10), .B_SPEC(1)) u_s1 (
        .clk_i(clk_i), .a_i(x_q[31:16]), .b_i(x_q[15:0]), .sign_o(o1[33]), .zero_o(o1[32]),
        .inf_o(o1[31]), .nan_o(o1[30]), .exp_o(o1[29:22]), .sig_o(o1[21:0]));
    spu_mul_fp_pipe #(.STAGES(2), .A_EXP(5), .A_MAN(10), .A_SPEC(1), .B_EXP(5), .B_MAN(10), .B_SPEC(1)) u_s2 (
        .clk_i(clk_i), .a_i(x_q[31:16]), .b_i(x_q[15:0]), .sign_o(o2[33]), .zero_o(o2[32]),
        .inf_o(o2[31]), .nan_o(o2[30]), .exp_o(o2[29:22]), .sig_o(o2[21:0]));

    wire bad1 = (warm_q >= 2'd1) && (o1 != o0_q1);
    wire bad2 = (warm_q >= 2'd2) && (o2 != o0_q2);

    always @(posedge clk_i) begin
        o0_q1 <= o0;
        o0_q2 <= o0_q1;
        x_q1  <= x_q;
        x_q2  <= x_q1;
        if (rst_i) begin
            x_q         <= start_i;
            warm_q      <= 2'd0;
            bad1_o      <= 32'd0;
            bad2_o      <= 32'd0;
            first_bad_o <= 32'd0;
            checked_o   <= 33'd0;
        end else begin
            x_q <= x_q + 32'd1;
            if (warm_q != 2'd3) warm_q <= warm_q + 2'd1;
            if (bad1) bad1_o <= bad1_o + 32'd1;
            if (bad2) bad2_o <= bad2_o + 32'd1;
            if ((bad1 || bad2) && bad1_o == 32'd0 && bad2_o == 32'd0)
                first_bad_o <= bad1 ? x_q1 : x_q2;
            if (warm_q >= 2'd2) checked_o <= checked_o + 33'd1;
        end
    end
endmodule
`default_nettype wire
