// spu_board_hx8k -- the SPU on the Lattice iCE40-HX8K breakout (CT256).
//
// Pin mapping around spu_board_spu (PLL, reset, SPU, UART link, activity).
// 12 MHz oscillator (J3) -> PLL (SB_PLL40_CORE) -> CLK_MHZ system clock (48 MHz
// by default: the LUT array closes near 58 MHz, docs/fpga.md); the
// host link is the FT2232H channel B UART (RX B10, TX B12), 8N1 at BAUD
// (default 0: 12 Mbaud, the FT2232H's maximum; spu_board_spu). Pins:
// constraints/hx8k.pcf. Build: `make bitstream BOARD=hx8k`. The HX8K has no
// DSP blocks (multipliers are LUTs) and no user button (power-on reset only).
//   led_o[0]  heartbeat            led_o[1]  UART RX activity
//   led_o[2]  UART TX activity     led_o[3]  the SPU is busy (not idle)
//   led_o[4]  in reset             led_o[7:5] off
// CLK_MHZ is one of 24, 30, 36, 42, 48 (PLL settings from `icepll -i 12 -o F`).
// HX8K memory: 32 EBR of 4 Kbit; SPAD_BYTES / UCODE_WORDS are chosen so the
// scratchpad banks and the microcode store fit (docs/fpga.md).
`default_nettype none
module spu_board_hx8k #(
    parameter integer ROWS        = 4,
    parameter integer COLS        = 4,
    parameter [31:0]  FORMATS     = 32'h1,
    parameter integer CLK_MHZ     = 48,
    parameter integer BAUD        = 0,         // 0: fastest FT2232H rate (spu_board_spu)
    parameter integer SPAD_BYTES  = 8192,
    parameter integer SPAD_BANKS  = 2,
    parameter integer UCODE_WORDS = 256,
    parameter integer CHAIN       = 0,         // 1: chained streams (does not fit: docs/fpga.md)
    parameter integer OVERLAP     = 1          // overlapped issue (docs/isa.md; docs/fpga.md)
) (
    input  wire       clk12_i,
    input  wire       uart_rx_i,
    output wire       uart_tx_o,
    output wire [7:0] led_o
);
    wire rst, busy, beat, rx_act, tx_act;
    spu_board_spu #(
        .ROWS(ROWS), .COLS(COLS), .FORMATS(FORMATS), .CLK_MHZ(CLK_MHZ), .BAUD(BAUD),
        .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS), .UCODE_WORDS(UCODE_WORDS),
        .USE_ICE40_DSP(0), .PLL_USE_PAD(0), .CHAIN(CHAIN), .OVERLAP(OVERLAP),
        .LOOP_DEPTH(2)   // area: two loop-stack entries (50 flip-flops and their selects each) fewer (docs/fpga.md)
    ) u_board (
        .clk12_i(clk12_i), .btn_n_i(1'b1), .uart_rx_i(uart_rx_i), .uart_tx_o(uart_tx_o),
        .rst_o(rst), .busy_o(busy), .heartbeat_o(beat), .rx_act_o(rx_act), .tx_act_o(tx_act)
`ifndef SYNTHESIS
        , .clk2x_sim_i(1'b0)    // (one clock; the board top is not simulated: lint only)
`endif
    );
    assign led_o = {3'b000, rst, busy, tx_act, rx_act, beat};
endmodule
`default_nettype wire
