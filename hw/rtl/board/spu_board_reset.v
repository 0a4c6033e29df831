// spu_board_reset -- power-on / button / PLL-lock reset for the board tops.
//
// rst_o (synchronous, active high, in the clk_i domain) is held for 2^CNT_W
// cycles after the PLL locks and while btn_n_i is low (an active-low button,
// synchronised here with two flops). Flops start at 0 in the iCE40 (and the
// initial values say so for simulation), so rst_o is high from cycle 0.
`default_nettype none
module spu_board_reset #(
    parameter integer CNT_W = 12
) (
    input  wire clk_i,
    input  wire lock_i,
    input  wire btn_n_i,
    output wire rst_o
);
    reg [1:0]       btn_q = 2'b00;
    reg [CNT_W-1:0] cnt_q = {CNT_W{1'b0}};
    reg             done_q = 1'b0;

    always @(posedge clk_i) begin
        btn_q <= {btn_q[0], btn_n_i};
        if (!lock_i || !btn_q[1]) begin
            cnt_q  <= {CNT_W{1'b0}};
            done_q <= 1'b0;
        end else if (!done_q) begin
            cnt_q  <= cnt_q + 1'b1;
            done_q <= &cnt_q;
        end
    end

    assign rst_o = !done_q;
endmodule
`default_nettype wire
