// spu_board_spu -- what every iCE40 board top shares: 12 MHz pad -> PLL ->
// CLK_MHZ system clock, power-on/button reset, the SPU (spu_top) with its
// UART link at BAUD, and stretched activity signals for LEDs. A board top
// (spu_board_<board>.v) only maps these onto its pins.
//   btn_n_i      reset button, active low (tie 1 when the board has none)
//   rst_o        in reset (PLL not locked or button held)
//   busy_o       the SPU is not idle
//   heartbeat_o  ~1.4 Hz at 24 MHz (bit 23 of a free-running counter)
//   rx_act_o / tx_act_o  UART RX / TX activity, stretched to be visible
// Board shape of the core: array row/column buses, 32-bit counters in an
// EBR, one accumulator drained per cycle (DRAIN_LANES = 1: one requantizer).
// CLK_MHZ is one of 24, 30, 36, 42, 48 (PLL settings from `icepll -i 12 -o F`);
// CLK_MHZ * 1e6 / BAUD must be an integer >= 2. BAUD = 0 (the boards'
// default) picks the fastest rate of the host's FT2232H (12 MHz / n: 12, 8,
// 6 Mbaud, then fractional divisors) that the clock divides into >= 2 clocks
// per bit: 12 Mbaud at 24, 36 and 48 MHz (2, 3 and 4 clocks per bit; at 2
// the receiver samples the line on both clock edges, spu_uart_rx_ddr),
// 6 Mbaud at 30 and 42 MHz (the receivers' margins: docs/fpga.md "UART rate").
`default_nettype none
module spu_board_spu #(
    parameter integer ROWS          = 4,
    parameter integer COLS          = 4,
    parameter [31:0]  FORMATS       = 32'h1,
    parameter integer CLK_MHZ       = 24,
    parameter integer BAUD          = 0,       // 0: fastest FT2232H rate (above)
    parameter integer SPAD_BYTES    = 8192,
    parameter integer SPAD_BANKS    = 2,
    parameter integer UCODE_WORDS   = 256,
    parameter integer USE_ICE40_DSP = 0,   // tile multipliers as SB_MAC16 pairs (UP5K)
    parameter integer PLL_USE_PAD   = 0,   // SB_PLL40_PAD (UP5K pin 35) vs SB_PLL40_CORE
    parameter integer LOOP_DEPTH    = 4,   // nested hardware loops (INFO reports it; HX8K: 2)
    parameter integer SPAD_SPRAM    = 0,   // 1: scratchpad banks in the UP5K's SPRAM (spu_spad)
    parameter integer CHAIN         = 0,   // 1: chained streams (spu_load_unit; not with USE_ICE40_DSP: docs/fpga.md)
    parameter integer UCODE_TWIN    = 0,   // 1: the microcode store twice, 2 EBR more (spu_core; timing)
    // 1: a second clock at 2 x CLK_MHZ from the same PLL (SB_PLL40_2F_PAD;
    // PLL_USE_PAD = 1, CLK_MHZ = 24) takes the SPRAM requests mid-cycle
    // (spu_spram MID; design C, docs/fpga.md)
    parameter integer SPAD_2X       = 0,
    // 1 (with SPAD_2X): the array on the second clock, two k-steps of an mm
    // per cycle when they pair (spu_core ARRAY_2X)
    parameter integer ARRAY_2X      = 0,
    // overlapped issue: the next instruction's FETCH in the last EXEC cycle
    // where docs/isa.md "Overlapped issue" allows (spu_sequencer OVERLAP);
    // needs UCODE_TWIN = 0
    parameter integer OVERLAP       = 0
) (
    input  wire clk12_i,
    input  wire btn_n_i,
    input  wire uart_rx_i,
    output wire uart_tx_o,
    output wire rst_o,
    output wire busy_o,
    output wire heartbeat_o,
    output wire rx_act_o,
    output wire tx_act_o
`ifndef SYNTHESIS
    ,
    // simulation only, with SPAD_2X: the PLL's port A (twice the board
    // clock, rising edges aligned), which the pass-through PLL model cannot
    // make; the board simulator drives it (hw/sim/spu_board.h)
    input  wire clk2x_sim_i
`endif
);
    // icepll -i 12 -o CLK_MHZ: DIVR = 0, FILTER_RANGE = 1 for all of these
    // the PLL's output: the system clock, or with SPAD_2X its double (port A)
    localparam integer PLL_MHZ = (SPAD_2X != 0) ? 2 * CLK_MHZ : CLK_MHZ;
    localparam [6:0] DIVF = (PLL_MHZ == 48) ? 7'd63 : (PLL_MHZ == 42) ? 7'd55 :
                            (PLL_MHZ == 36) ? 7'd47 : (PLL_MHZ == 30) ? 7'd79 : 7'd63;
    localparam [2:0] DIVQ = (PLL_MHZ == 30 || PLL_MHZ == 24) ? 3'd5 : 3'd4;
    localparam integer BAUD_FT = (CLK_MHZ % 12 == 0 && CLK_MHZ >= 24) ? 12000000 :
                                 (CLK_MHZ %  8 == 0 && CLK_MHZ >= 24) ?  8000000 :
                                 (CLK_MHZ %  6 == 0 && CLK_MHZ >= 18) ?  6000000 : 3000000;
    localparam integer BAUD_EFF = (BAUD != 0) ? BAUD : BAUD_FT;
    localparam integer CLKS_PER_BIT = (CLK_MHZ * 1000000) / BAUD_EFF;

    wire clk, clk2x_pll, lock, rst;
    spu_pll_ice40 #(
        .DIVR(4'd0), .DIVF(DIVF), .DIVQ(DIVQ),
        .FILTER_RANGE(3'd1), .USE_PAD(PLL_USE_PAD), .TWO_CLK(SPAD_2X)
    ) u_pll (
        .clk_pad_i(clk12_i), .clk_o(clk), .clk2x_o(clk2x_pll), .lock_o(lock)
    );
`ifdef SYNTHESIS
    wire clk2x = clk2x_pll;
`else
    wire clk2x = (SPAD_2X != 0) ? clk2x_sim_i : clk2x_pll;
`endif
`ifndef SYNTHESIS
    initial
        if (SPAD_2X != 0 && (CLK_MHZ != 24 || PLL_USE_PAD == 0 || SPAD_SPRAM == 0))
            $display("spu_board_spu: SPAD_2X needs CLK_MHZ = 24, PLL_USE_PAD = 1 and SPAD_SPRAM = 1");
`endif

    spu_board_reset u_rst (
        .clk_i(clk), .lock_i(lock), .btn_n_i(btn_n_i), .rst_o(rst)
    );

    wire idle;
    wire tx_line;
    wire unused_byte_ready, unused_byte_valid;
    wire [7:0] unused_byte_data;
    spu_top #(
        .ROWS(ROWS), .COLS(COLS), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS),
        .UCODE_WORDS(UCODE_WORDS), .LINK("uart"), .CLKS_PER_BIT(CLKS_PER_BIT), .LOOP_DEPTH(LOOP_DEPTH),
        .CLOCK_HZ(CLK_MHZ * 1000000), .FORMATS(FORMATS),
        .USE_ICE40_DSP(USE_ICE40_DSP), .BROADCAST(1), .CNT_WIDTH(32), .CNT_RAM(1),
        .DRAIN_LANES(1), .VECTOR(0),  // the vector unit does not fit the UP5K (docs/fpga.md)
        .SPAD_SPRAM(SPAD_SPRAM), .CHAIN(CHAIN), .UCODE_TWIN(UCODE_TWIN), .SPAD_2X(SPAD_2X),
        .ARRAY_2X(ARRAY_2X), .OVERLAP(OVERLAP)
    ) u_spu (
        .clk_i(clk), .clk2x_i(clk2x), .rst_i(rst),
        .byte_rx_valid_i(1'b0), .byte_rx_ready_o(unused_byte_ready), .byte_rx_data_i(8'h00),
        .byte_tx_valid_o(unused_byte_valid), .byte_tx_ready_i(1'b1),
        .byte_tx_data_o(unused_byte_data),
        .uart_rx_i(uart_rx_i), .uart_tx_o(tx_line), .link_uart_i(1'b1),
        .idle_o(idle)
    );
    assign uart_tx_o = tx_line;

    // ---- activity for LEDs: one free-running counter; a UART line that was
    // low (a start bit) lights its LED until the end of the next 2^20-cycle
    // period (21..43 ms at 24 MHz) -- no per-LED stretch counters
    reg [23:0] beat_q = 24'd0;
    reg        rx_led_q = 1'b0, tx_led_q = 1'b0, rx_seen_q = 1'b0, tx_seen_q = 1'b0;
    wire       period_end = &beat_q[19:0];
    always @(posedge clk) begin
        beat_q <= beat_q + 1'b1;
        rx_seen_q <= period_end ? 1'b0 : (rx_seen_q || !uart_rx_i);
        tx_seen_q <= period_end ? 1'b0 : (tx_seen_q || !tx_line);
        if (period_end) begin
            rx_led_q <= rx_seen_q || !uart_rx_i;
            tx_led_q <= tx_seen_q || !tx_line;
        end
    end
    assign rst_o       = rst;
    assign busy_o      = !idle;
    assign heartbeat_o = beat_q[23];
    assign rx_act_o    = rx_led_q;
    assign tx_act_o    = tx_led_q;

    wire unused_ok = &{1'b0, unused_byte_ready, unused_byte_valid, unused_byte_data};
endmodule
`default_nettype wire
