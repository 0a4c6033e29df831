// spu_board_icebreaker -- the SPU on the iCEBreaker (iCE40UP5K-SG48).
//
// Pin mapping around spu_board_spu (PLL, reset, SPU, UART link, activity).
// 12 MHz oscillator (pin 35) -> PLL -> CLK_MHZ system clock; the host link is
// the FT2232H channel B UART (RX pin 6, TX pin 9), 8N1 at BAUD
// (default 0: 12 Mbaud, the FT2232H's maximum; spu_board_spu). Pins:
// constraints/icebreaker.pcf. Build: `make bitstream BOARD=icebreaker`.
//   btn_n_i   user button: reset (held low = reset)
//   ledr_n_o  red LED: in reset (PLL not locked or button held)
//   ledg_n_o  green LED: the SPU is busy (not idle)
//   led_o[0]  heartbeat (~1.4 Hz at 24 MHz, 2^24 cycles)
//   led_o[1]  UART RX activity, led_o[2] UART TX activity (stretched)
//   led_o[4:3] off; btn_i (PMOD2 buttons) are reserved
// CLK_MHZ is one of 24, 30, 36, 42, 48 (PLL settings from `icepll -i 12 -o F`).
// UP5K memory: 30 EBR of 4 Kbit and 4 SPRAM of 256 Kbit. Default
// (SPAD_SPRAM = 1): a 128 KB scratchpad in the four SPRAM blocks (2 banks of
// 2 blocks side by side for the 4x4's 32-bit word, single-port: docs/rtl.md
// "Scratchpad in SPRAM"; 15 EBR for the microcode store, twice, and the
// counters), two nested hardware loops (as the HX8K) and UCODE_TWIN = 1 (the
// microcode store twice: a taken branch's target is read beside the
// fall-through, spu_core), for the LCs the 4 extra address bits need and for
// timing: >= 3 % slack at placement seeds 1-3 (docs/fpga.md "SPRAM
// scratchpad"). SPAD_SPRAM = 0 is the 8 KB EBR build (16 EBR, 2 banks, dual-
// port: the drain never holds a stream back) with four nested loops,
// simulated as `sim?board=icebreaker-ebr`.
`default_nettype none
module spu_board_icebreaker #(
    parameter integer ROWS        = 4,
    parameter integer COLS        = 4,
    parameter [31:0]  FORMATS     = 32'h1,
    parameter integer CLK_MHZ     = 24,
    parameter integer BAUD        = 0,         // 0: fastest FT2232H rate (spu_board_spu)
    parameter integer SPAD_SPRAM  = 1,           // 1: scratchpad in SPRAM, 0: in EBR (the defaults below follow)
    parameter integer SPAD_BYTES  = (SPAD_SPRAM != 0) ? 131072 : 8192,
    parameter integer SPAD_BANKS  = 2,
    parameter integer UCODE_WORDS = 256,
    parameter integer LOOP_DEPTH  = (SPAD_SPRAM != 0) ? 2 : 4,   // nested hardware loops
    parameter integer UCODE_TWIN  = SPAD_SPRAM,  // 1: the microcode store twice (2 EBR; the EBR build has 1 left)
    // the second clock, 48 MHz, on the SPRAM build at 24 MHz (docs/fpga.md
    // "Two clocks"): SPAD_2X takes the SPRAM requests mid-cycle on it,
    // ARRAY_2X runs the array on it with k-step pairs (spu_board_spu)
    parameter integer SPAD_2X     = (SPAD_SPRAM != 0 && CLK_MHZ == 24) ? 1 : 0,
    parameter integer ARRAY_2X    = SPAD_2X,
    // overlapped issue (docs/isa.md): off, the sequencer's paths (docs/fpga.md
    // "Overlapped issue"); OVERLAP=1 needs UCODE_TWIN=0
    parameter integer OVERLAP     = 0
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
    wire rst, busy, beat, rx_act, tx_act;
    spu_board_spu #(
        .ROWS(ROWS), .COLS(COLS), .FORMATS(FORMATS), .CLK_MHZ(CLK_MHZ), .BAUD(BAUD),
        .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS), .UCODE_WORDS(UCODE_WORDS),
        .USE_ICE40_DSP(1), .PLL_USE_PAD(1), .SPAD_SPRAM(SPAD_SPRAM), .LOOP_DEPTH(LOOP_DEPTH), .UCODE_TWIN(UCODE_TWIN),
        .SPAD_2X(SPAD_2X), .ARRAY_2X(ARRAY_2X), .OVERLAP(OVERLAP)
    ) u_board (
        .clk12_i(clk12_i), .btn_n_i(btn_n_i), .uart_rx_i(uart_rx_i), .uart_tx_o(uart_tx_o),
        .rst_o(rst), .busy_o(busy), .heartbeat_o(beat), .rx_act_o(rx_act), .tx_act_o(tx_act)
`ifndef SYNTHESIS
        , .clk2x_sim_i(1'b0)    // (the board top is not simulated: lint only)
`endif
    );
    assign ledr_n_o = !rst;
    assign ledg_n_o = !busy;
    assign led_o    = {2'b00, tx_act, rx_act, beat};

    wire unused_ok = &{1'b0, btn_i};
endmodule
`default_nettype wire
