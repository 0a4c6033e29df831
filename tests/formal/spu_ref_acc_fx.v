// spu_ref_acc_fx -- reference model for the proofs: the exact accumulator
// of docs/numerics-rtl.md written plainly, not from
// hw/rtl/numerics/spu_acc_fx.v. A product (-1)^s * sig * 2^exp (spu_mul_fp
// encoding) is added as the integer sig * 2^(exp - LSB_EXP) (dropped when
// exp < LSB_EXP); the sum is kept modulo 2^ACC_W and ovf is set when the
// true sum of the two ACC_W-bit signed addends leaves the signed ACC_W-bit
// range (computed one bit wider). Sticky NaN / +Inf / -Inf seen; clr starts
// from an empty sum; rst clears. Latency 1, outputs from the registers.
`default_nettype none
module spu_ref_acc_fx #(
    parameter integer SIG_W   = 8,
    parameter integer PE_W    = 7,
    parameter integer LSB_EXP = -18,
    parameter integer ACC_W   = 48
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    clr_i,
    input  wire                    valid_i,
    input  wire                    sign_i,
    input  wire [PE_W-1:0]         exp_i,
    input  wire [SIG_W-1:0]        sig_i,
    input  wire                    inf_i,
    input  wire                    nan_i,
    output wire [ACC_W-1:0]        acc_o,
    output wire                    nan_o,
    output wire                    inf_o,
    output wire                    inf_sign_o,
    output wire                    ovf_o
);
    reg  [ACC_W-1:0] sum_q;
    reg              nan_seen_q, pinf_seen_q, ninf_seen_q, wrapped_q;

    integer              shift;
    reg  [ACC_W-1:0]     value;      // |product| in LSB units, modulo 2^ACC_W
    reg  [ACC_W-1:0]     addend;     // signed product, modulo 2^ACC_W
    reg  [ACC_W-1:0]     old;
    reg  signed [ACC_W:0] wide;      // old + addend, exactly
    reg  [ACC_W-1:0]     sum_n;
    reg                  nan_n, pinf_n, ninf_n, wrapped_n;

    always @* begin
        shift = $signed({{(32-PE_W){exp_i[PE_W-1]}}, exp_i}) - LSB_EXP;
        value = {ACC_W{1'b0}};
        if (shift >= 0)
            value = {{(ACC_W-SIG_W){1'b0}}, sig_i} << shift;
        addend = sign_i ? (~value + 1'b1) : value;
        old    = clr_i ? {ACC_W{1'b0}} : sum_q;
        sum_n  = old;
        nan_n  = clr_i ? 1'b0 : nan_seen_q;
        pinf_n = clr_i ? 1'b0 : pinf_seen_q;
        ninf_n = clr_i ? 1'b0 : ninf_seen_q;
        wrapped_n = clr_i ? 1'b0 : wrapped_q;
        wide   = $signed({old[ACC_W-1], old}) + $signed({addend[ACC_W-1], addend});
        if (valid_i && nan_i)
            nan_n = 1'b1;
        else if (valid_i && inf_i && !sign_i)
            pinf_n = 1'b1;
        else if (valid_i && inf_i && sign_i)
            ninf_n = 1'b1;
        else if (valid_i) begin
            sum_n = wide[ACC_W-1:0];
            // the exact sum does not fit ACC_W signed bits
            if (wide[ACC_W] != wide[ACC_W-1])
                wrapped_n = 1'b1;
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            sum_q <= {ACC_W{1'b0}};
            nan_seen_q <= 1'b0;
            pinf_seen_q <= 1'b0;
            ninf_seen_q <= 1'b0;
            wrapped_q <= 1'b0;
        end else begin
            sum_q <= sum_n;
            nan_seen_q <= nan_n;
            pinf_seen_q <= pinf_n;
            ninf_seen_q <= ninf_n;
            wrapped_q <= wrapped_n;
        end
    end

    assign acc_o      = sum_q;
    assign nan_o      = nan_seen_q | (pinf_seen_q & ninf_seen_q);
    assign inf_o      = ~nan_o & (pinf_seen_q | ninf_seen_q);
    assign inf_sign_o = ninf_seen_q;
    assign ovf_o      = wrapped_q;
endmodule
`default_nettype wire
