// spu_uart_rx -- 8N1 UART receiver, CLKS_PER_BIT clocks per bit (>= 3; at 3
// the host's clock may be off by -3.3 % .. +3.7 %: docs/fpga.md "UART rate").
//
// rx_i is the line (idle high); it is synchronised with two flops. A start
// bit is confirmed at its middle, then each data bit (LSB first) is sampled
// at its middle and the stop bit is checked. A byte with a good stop bit is
// offered on out_valid_o/out_data_o until out_ready_i; a byte that arrives
// while the previous one is still unread replaces it and overrun_o pulses
// (the link protocol's CRC catches the loss). A bad stop bit drops the byte
// and pulses frame_err_o.
`default_nettype none
module spu_uart_rx #(
    parameter integer CLKS_PER_BIT = 104
) (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       rx_i,
    output wire       out_valid_o,
    input  wire       out_ready_i,
    output wire [7:0] out_data_o,
    output reg        overrun_o,
    output reg        frame_err_o
);
    localparam integer CW = $clog2(CLKS_PER_BIT + 1);
    localparam [CW-1:0] FULL = CLKS_PER_BIT[CW-1:0] - 1'b1;
    localparam [CW-1:0] HALF = CLKS_PER_BIT[CW:1] - 1'b1;
    localparam [1:0] S_IDLE = 2'd0, S_START = 2'd1, S_BITS = 2'd2, S_STOP = 2'd3;

    reg [1:0]    sync_q;
    reg [1:0]    state_q, state_d;
    reg [CW-1:0] tick_q, tick_d;
    reg [2:0]    bit_q, bit_d;
    reg [7:0]    shift_q, shift_d;
    reg [7:0]    data_q, data_d;
    reg          valid_q, valid_d;

    wire line = sync_q[1];

    always @* begin
        state_d     = state_q;
        tick_d      = tick_q;
        bit_d       = bit_q;
        shift_d     = shift_q;
        data_d      = data_q;
        valid_d     = valid_q && !out_ready_i;
        overrun_o   = 1'b0;
        frame_err_o = 1'b0;
        case (state_q)
            S_IDLE: if (!line) begin
                state_d = S_START;
                tick_d  = HALF;
            end
            S_START: begin
                if (tick_q != 0) tick_d = tick_q - 1'b1;
                else if (line) state_d = S_IDLE;      // glitch, not a start bit
                else begin
                    state_d = S_BITS;
                    tick_d  = FULL;
                    bit_d   = 3'd0;
                end
            end
            S_BITS: begin
                if (tick_q != 0) tick_d = tick_q - 1'b1;
                else begin
                    shift_d = {line, shift_q[7:1]};
                    tick_d  = FULL;
                    bit_d   = bit_q + 3'd1;
                    if (bit_q == 3'd7) state_d = S_STOP;
                end
            end
            default: begin // S_STOP
                if (tick_q != 0) tick_d = tick_q - 1'b1;
                else begin
                    state_d = S_IDLE;
                    if (line) begin
                        overrun_o = valid_d;
                        data_d    = shift_q;
                        valid_d   = 1'b1;
                    end else begin
                        frame_err_o = 1'b1;
                    end
                end
            end
        endcase
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            sync_q  <= 2'b11;
            state_q <= S_IDLE;
            tick_q  <= {CW{1'b0}};
            bit_q   <= 3'd0;
            shift_q <= 8'd0;
            data_q  <= 8'd0;
            valid_q <= 1'b0;
        end else begin
            sync_q  <= {sync_q[0], rx_i};
            state_q <= state_d;
            tick_q  <= tick_d;
            bit_q   <= bit_d;
            shift_q <= shift_d;
            data_q  <= data_d;
            valid_q <= valid_d;
        end
    end

    assign out_valid_o = valid_q;
    assign out_data_o  = data_q;
endmodule
`default_nettype wire
