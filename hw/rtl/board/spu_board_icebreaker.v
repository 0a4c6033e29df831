// spu_board_icebreaker -- the SPU on the iCEBreaker (iCE40UP5K-SG48).
//
// 12 MHz oscillator (pin 35) -> PLL -> CLK_MHZ system clock; the host link is
// the FT2232H channel B UART (RX pin 6, TX pin 9), 8N1 at BAUD (3 Mbaud
// default; CLK_MHZ * 1e6 / BAUD must be an integer >= 4). Pins:
// constraints/icebreaker.pcf. Build: `make bitstream BOARD=icebreaker`.
//   btn_n_i   user button: reset (held low = reset)
//   ledr_n_o  red LED: in reset (PLL not locked or button held)
//   ledg_n_o  green LED: the SPU is busy (not idle)
//   led_o[0]  heartbeat (~1.4 Hz at 24 MHz, 2^24 cycles)
//   led_o[1]  UART RX activity, led_o[2] UART TX activity (stretched)
//   led_o[4:3] off; btn_i (PMOD2 buttons) are reserved
// CLK_MHZ is one of 24, 30, 36, 42, 48 (PLL settings from `icepll -i 12 -o F`).
// UP5K memory: 30 EBR of 4 Kbit; SPAD_BYTES / UCODE_WORDS are chosen small
// enough that the scratchpad banks and the microcode store fit (docs/fpga.md).
`default_nettype none
module spu_board_icebreaker #(
    parameter integer ROWS        = 4,
    parameter integer COLS        = 4,
    parameter [31:0]  FORMATS     = 32'h1,
    parameter integer CLK_MHZ     = 24,
    parameter integer BAUD        = 3000000,
    parameter integer SPAD_BYTES  = 8192,
    parameter integer SPAD_BANKS  = 4,
    parameter integer UCODE_WORDS = 256
) (
    input  wire       clk12_i,
    input  wire       uart_rx_i,
    output wire       uart_tx_o,
    input  wire       btn_n_i,
    output wire       ledr_n_o,
    output wire       ledg_n_o,
    output wire [4:0] led_o,
    input  wire [2:0] btn_i
);
    // icepll -i 12 -o CLK_MHZ: DIVR = 0, FILTER_RANGE = 1 for all of these
    localparam [6:0] DIVF = (CLK_MHZ == 48) ? 7'd63 : (CLK_MHZ == 42) ? 7'd55 :
                            (CLK_MHZ == 36) ? 7'd47 : (CLK_MHZ == 30) ? 7'd79 : 7'd63;
    localparam [2:0] DIVQ = (CLK_MHZ == 30 || CLK_MHZ == 24) ? 3'd5 : 3'd4;
    localparam integer CLKS_PER_BIT = (CLK_MHZ * 1000000) / BAUD;

    wire clk, lock, rst;
    spu_pll_ice40 #(
        .DIVR(4'd0), .DIVF(DIVF), .DIVQ(DIVQ), .FILTER_RANGE(3'd1), .USE_PAD(1)
    ) u_pll (
        .clk_pad_i(clk12_i), .clk_o(clk), .lock_o(lock)
    );

    spu_board_reset u_rst (
        .clk_i(clk), .lock_i(lock), .btn_n_i(btn_n_i), .rst_o(rst)
    );

    wire idle;
    wire tx_line;
    wire unused_byte_ready, unused_byte_valid;
    wire [7:0] unused_byte_data;
    spu_top #(
        .ROWS(ROWS), .COLS(COLS), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS),
        .UCODE_WORDS(UCODE_WORDS), .LINK("uart"), .CLKS_PER_BIT(CLKS_PER_BIT),
        .CLOCK_HZ(CLK_MHZ * 1000000), .FORMATS(FORMATS),
        .USE_ICE40_DSP(1), .CNT_WIDTH(32)
    ) u_spu (
        .clk_i(clk), .rst_i(rst),
        .byte_rx_valid_i(1'b0), .byte_rx_ready_o(unused_byte_ready), .byte_rx_data_i(8'h00),
        .byte_tx_valid_o(unused_byte_valid), .byte_tx_ready_i(1'b1),
        .byte_tx_data_o(unused_byte_data),
        .uart_rx_i(uart_rx_i), .uart_tx_o(tx_line), .link_uart_i(1'b1),
        .idle_o(idle)
    );
    assign uart_tx_o = tx_line;

    // ---- status LEDs
    reg [23:0] beat_q = 24'd0;
    reg [19:0] rx_led_q = 20'd0, tx_led_q = 20'd0;
    always @(posedge clk) begin
        beat_q   <= beat_q + 1'b1;
        rx_led_q <= !uart_rx_i ? 20'hFFFFF : rx_led_q - {19'd0, |rx_led_q};
        tx_led_q <= !tx_line   ? 20'hFFFFF : tx_led_q - {19'd0, |tx_led_q};
    end
    assign ledr_n_o = !rst;
    assign ledg_n_o = idle;
    assign led_o    = {2'b00, |tx_led_q, |rx_led_q, beat_q[23]};

    wire unused_ok = &{1'b0, btn_i, unused_byte_ready, unused_byte_valid, unused_byte_data};
endmodule
`default_nettype wire
