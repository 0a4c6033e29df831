// spu_uart_tx -- 8N1 UART transmitter, CLKS_PER_BIT clocks per bit.
//
// Offer a byte on in_valid_i/in_data_i; it is taken (in_ready_o high) into a
// one-byte holding register whenever that is empty, and shifted out LSB
// first between a start bit (0) and a stop bit (1) on tx_o, which idles high.
// in_ready_o is a flip-flop's output and the offer only loads the holding
// register, so the sender's valid path ends there (the command engine ->
// COBS encoder -> transmitter chain was the board's critical path, 41 ns).
// The shifter loads the held byte in the stop bit's last clock, so
// back-to-back bytes leave exactly 10 bit times apart (40 clocks a byte at 4
// clocks per bit); the first byte after idle leaves one clock after the
// offer. tx_o is a flip-flop (shift_q[0]): ones shift in behind each frame.
`default_nettype none
module spu_uart_tx #(
    parameter integer CLKS_PER_BIT = 104
) (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       in_valid_i,
    output wire       in_ready_o,
    input  wire [7:0] in_data_i,
    output wire       tx_o
);
    localparam integer CW = $clog2(CLKS_PER_BIT + 1);
    localparam [CW-1:0] FULL = CLKS_PER_BIT[CW-1:0] - 1'b1;

    reg [9:0]    shift_q, shift_d;   // {stop, data, start}, LSB goes out first
    reg [3:0]    bits_q, bits_d;     // bits left to send, 0 = idle
    reg [CW-1:0] tick_q, tick_d;

    reg [7:0] hold_q;
    reg       hold_v_q;
    wire ready = (bits_q == 4'd0) || (bits_q == 4'd1 && tick_q == {CW{1'b0}});
    wire load  = ready && hold_v_q;
    assign in_ready_o = !hold_v_q;
    assign tx_o       = shift_q[0];

    always @(posedge clk_i) begin
        if (rst_i)
            hold_v_q <= 1'b0;
        else if (!hold_v_q)
            hold_v_q <= in_valid_i;
        else if (load)
            hold_v_q <= 1'b0;
        if (!hold_v_q)
            hold_q <= in_data_i;
    end

    always @* begin
        shift_d = shift_q;
        bits_d  = bits_q;
        tick_d  = tick_q;
        if (load) begin
            shift_d = {1'b1, hold_q, 1'b0};
            bits_d  = 4'd10;
            tick_d  = FULL;
        end else if (bits_q == 4'd0) begin
            tick_d = tick_q;
        end else if (tick_q != 0) begin
            tick_d = tick_q - 1'b1;
        end else begin
            shift_d = {1'b1, shift_q[9:1]};
            bits_d  = bits_q - 4'd1;
            tick_d  = FULL;
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            shift_q <= 10'h3FF;
            bits_q  <= 4'd0;
            tick_q  <= {CW{1'b0}};
        end else begin
            shift_q <= shift_d;
            bits_q  <= bits_d;
            tick_q  <= tick_d;
        end
    end
endmodule
`default_nettype wire
