// spu_top -- the whole SPU as the host sees it: a link PHY, the command
// engine (COBS + CRC-32 frames, docs/protocol.md) and the compute core.
//
// LINK selects the PHY:
//   "byte"  byte_* valid/ready ports carry the encoded link bytes (simulator)
//   "uart"  uart_rx_i / uart_tx_o, 8N1 at CLOCK_HZ / CLKS_PER_BIT baud (boards;
//           CLKS_PER_BIT >= 2: at 2 the receiver samples on both clock
//           edges, spu_uart_rx_ddr)
//   "sim"   both PHYs; link_uart_i = 1 selects the UART (spu-sim --uart)
// Ports of the PHY not selected are ignored / driven idle.
// idle_o is high when nothing happens until the next input byte: the
// engine waits for a byte, no reply is being sent and the core is not
// running (the simulator stops the clock then). It is not part of the link.
// Reset: synchronous, active-high rst_i, everywhere in the design.
`default_nettype none
module spu_top #(
    parameter integer ROWS         = 8,
    parameter integer COLS         = 8,
    parameter integer SPAD_BYTES   = 262144,
    parameter integer SPAD_BANKS   = 4,
    parameter integer UCODE_WORDS  = 1024,
    parameter integer LOOP_DEPTH   = 4,
    parameter integer DRAIN_LANES  = COLS,           // accumulators drained per cycle (boards: 1)
    parameter [31:0]  LINK         = "byte",   // "byte" | "uart" | "sim" (4 chars max)
    parameter integer CLKS_PER_BIT = 4,
    parameter [31:0]  CLOCK_HZ     = 32'd12000000,
    parameter [31:0]  FORMATS      = 32'h1F9D,       // bit d: dtype code d (spu_cfg.def): int8 e4m3 e5m2 bf16 mxfp8_e4m3 mxfp8_e5m2 mxint8 mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1 (sim); boards pass 1
    parameter [31:0]  RTL_VERSION  = 32'h00000100,   // major<<16 | minor<<8 | patch
    parameter integer USE_ICE40_DSP = 0,              // 1: int8 tile multipliers in SB_MAC16 (UP5K)
    parameter integer BROADCAST     = 1,              // 1: array row/column buses, no skew (spu_array; sim and boards; INFO features bit 3)
    parameter integer CNT_WIDTH    = 64,              // counters kept in 32..64 bits (boards: 32)
    parameter integer CNT_RAM      = 0,               // 1: counters 1..8 in an EBR (boards; spu_counters)
    parameter integer VECTOR       = 1,               // 1: the vector unit (sim); the boards pass 0
    parameter integer SPAD_SPRAM   = 0,               // 1: scratchpad banks in UP5K SPRAM (iCEBreaker; needs VECTOR = 0)
    parameter integer CHAIN        = 1,               // 1: chained streams (sim; spu_load_unit); the boards pass 0
    parameter integer UCODE_TWIN   = 0,               // 1: the microcode store twice (spu_core; the iCEBreaker's SPRAM build)
    parameter integer SPAD_2X      = 0,               // 1: SPRAM requests taken mid-cycle on clk2x_i (spu_core; design C, docs/fpga.md)
    parameter integer ARRAY_2X     = 0,               // 1: the array on clk2x_i, k-step pairs (spu_core; INFO features bit 4)
    parameter integer OVERLAP      = 1                // 1: overlapped issue (sim; spu_sequencer; INFO features bit 5); the boards pass theirs
) (
    input  wire       clk_i,
    input  wire       clk2x_i,           // SPAD_2X: twice clk_i, rising edges aligned (else unused)
    input  wire       rst_i,
    // byte port (LINK "byte" / "sim")
    input  wire       byte_rx_valid_i,
    output wire       byte_rx_ready_o,
    input  wire [7:0] byte_rx_data_i,
    output wire       byte_tx_valid_o,
    input  wire       byte_tx_ready_i,
    output wire [7:0] byte_tx_data_o,
    // UART (LINK "uart" / "sim")
    input  wire       uart_rx_i,
    output wire       uart_tx_o,
    input  wire       link_uart_i,       // LINK "sim" only: 1 = UART
    output wire       idle_o
`ifdef SPU_CORE_CLOCK_GATE
    ,
    // simulation only: spu_core's gated unit clock and its wake request
    // (docs/rtl.md "Core clock gate in simulation")
    input  wire       core_clk_i,
    output wire       core_wake_o
`endif
);
    localparam integer HAS_BYTE = (LINK == "byte" || LINK == "sim") ? 1 : 0;
    localparam integer HAS_UART = (LINK == "uart" || LINK == "sim") ? 1 : 0;
    localparam [31:0]  P_CPB    = CLKS_PER_BIT;
    localparam [31:0]  P_BAUD   = (HAS_UART != 0) ? CLOCK_HZ / P_CPB : 32'd0;   // INFO link_baud
    // chained streams need dual-port banks and the generic tiles (spu_core)
    localparam integer P_CHAIN  = (CHAIN != 0 && SPAD_SPRAM == 0 && USE_ICE40_DSP == 0) ? 1 : 0;

    // ---- link PHY -> engine byte streams
    wire       rx_valid, rx_ready, tx_valid, tx_ready;
    wire [7:0] rx_data, tx_data;
    wire       use_uart;
    wire       phy_idle;

    wire       u_rx_valid, u_tx_ready, u_tx_line;
    wire [7:0] u_rx_data;
    generate
        if (HAS_UART != 0) begin : g_uart
            wire ovr_unused, ferr_unused;
            if (CLKS_PER_BIT == 2) begin : g_rx_ddr
                // 2 clocks per bit: the line sampled on both edges (12 Mbaud at 24 MHz)
                spu_uart_rx_ddr u_rx (
                    .clk_i(clk_i), .rst_i(rst_i), .rx_i(uart_rx_i),
                    .out_valid_o(u_rx_valid), .out_ready_i(use_uart && rx_ready),
                    .out_data_o(u_rx_data), .overrun_o(ovr_unused), .frame_err_o(ferr_unused)
                );
            end else begin : g_rx
                spu_uart_rx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_rx (
                    .clk_i(clk_i), .rst_i(rst_i), .rx_i(uart_rx_i),
                    .out_valid_o(u_rx_valid), .out_ready_i(use_uart && rx_ready),
                    .out_data_o(u_rx_data), .overrun_o(ovr_unused), .frame_err_o(ferr_unused)
                );
            end
            spu_uart_tx #(.CLKS_PER_BIT(CLKS_PER_BIT)) u_tx (
                .clk_i(clk_i), .rst_i(rst_i),
                .in_valid_i(use_uart && tx_valid), .in_ready_o(u_tx_ready),
                .in_data_i(tx_data), .tx_o(u_tx_line)
            );
        end else begin : g_no_uart
            assign u_rx_valid = 1'b0;
            assign u_rx_data  = 8'h00;
            assign u_tx_ready = 1'b1;
            assign u_tx_line  = 1'b1;
        end
    endgenerate

    assign use_uart = (HAS_UART != 0) && ((HAS_BYTE == 0) || link_uart_i);
    assign rx_valid = use_uart ? u_rx_valid : byte_rx_valid_i;
    assign rx_data  = use_uart ? u_rx_data  : byte_rx_data_i;
    assign tx_ready = use_uart ? u_tx_ready : byte_tx_ready_i;
    assign uart_tx_o       = u_tx_line;
    assign byte_rx_ready_o = (HAS_BYTE != 0) && !use_uart && rx_ready;
    assign byte_tx_valid_o = (HAS_BYTE != 0) && !use_uart && tx_valid;
    assign byte_tx_data_o  = tx_data;
    assign phy_idle        = !use_uart || u_tx_ready;

    // ---- command engine <-> core
    wire        spad_req_valid, spad_req_ready, spad_req_we, spad_rsp_valid;
    wire [31:0] spad_req_addr;
    wire [7:0]  spad_req_wdata, spad_rsp_rdata;
    wire        ucode_we, arg_we, run, stop, link_rx_byte, link_tx_byte;
    wire [31:0] ucode_addr, ucode_wdata, arg_wdata, run_pc, run_watchdog, pc;
    wire [2:0]  arg_idx;
    wire [1:0]  state;
    wire [7:0]  trap;
    wire [3:0]  cnt_sel;
    wire [63:0] cnt_value;
    wire        cnt_fresh;
    wire [31:0] reg_value;
    wire        eng_idle;

    spu_cmd_engine #(
        .ROWS(ROWS), .COLS(COLS), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS),
        .UCODE_WORDS(UCODE_WORDS), .LOOP_DEPTH(LOOP_DEPTH), .DRAIN_LANES(DRAIN_LANES), .FORMATS(FORMATS),
        .RTL_VERSION(RTL_VERSION), .CLOCK_HZ(CLOCK_HZ), .CNT_WIDTH(CNT_WIDTH),
        .LINK_BAUD(P_BAUD), .FEATURES({26'd0, (OVERLAP != 0), (ARRAY_2X != 0), (BROADCAST != 0), (P_CHAIN != 0), (SPAD_SPRAM != 0), (VECTOR != 0)})
    ) u_engine (
        .clk_i(clk_i), .rst_i(rst_i),
        .rx_valid_i(rx_valid), .rx_ready_o(rx_ready), .rx_data_i(rx_data),
        .tx_valid_o(tx_valid), .tx_ready_i(tx_ready), .tx_data_o(tx_data),
        .idle_o(eng_idle),
        .spad_req_valid_o(spad_req_valid), .spad_req_ready_i(spad_req_ready),
        .spad_req_we_o(spad_req_we), .spad_req_addr_o(spad_req_addr),
        .spad_req_wdata_o(spad_req_wdata), .spad_rsp_valid_i(spad_rsp_valid),
        .spad_rsp_rdata_i(spad_rsp_rdata),
        .ucode_we_o(ucode_we), .ucode_addr_o(ucode_addr), .ucode_wdata_o(ucode_wdata),
        .arg_we_o(arg_we), .arg_idx_o(arg_idx), .arg_wdata_o(arg_wdata),
        .run_o(run), .run_pc_o(run_pc), .run_watchdog_o(run_watchdog), .stop_o(stop),
        .state_i(state), .trap_i(trap), .pc_i(pc),
        .cnt_sel_o(cnt_sel), .cnt_value_i(cnt_value), .cnt_fresh_i(cnt_fresh),
        .reg_value_i(reg_value),
        .link_rx_byte_o(link_rx_byte), .link_tx_byte_o(link_tx_byte)
    );

    spu_core #(
        .ROWS(ROWS), .COLS(COLS), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS),
        .UCODE_WORDS(UCODE_WORDS), .LOOP_DEPTH(LOOP_DEPTH), .DRAIN_LANES(DRAIN_LANES),
        .USE_ICE40_DSP(USE_ICE40_DSP), .BROADCAST(BROADCAST), .CNT_WIDTH(CNT_WIDTH), .CNT_RAM(CNT_RAM),
        .FORMATS(FORMATS), .VECTOR(VECTOR), .SPAD_SPRAM(SPAD_SPRAM), .CHAIN(P_CHAIN),
        .UCODE_TWIN(UCODE_TWIN), .SPAD_2X(SPAD_2X), .ARRAY_2X(ARRAY_2X), .OVERLAP(OVERLAP)
    ) u_core (
        .clk_i(clk_i), .clk2x_i(clk2x_i), .rst_i(rst_i),
        .spad_req_valid_i(spad_req_valid), .spad_req_ready_o(spad_req_ready),
        .spad_req_we_i(spad_req_we), .spad_req_addr_i(spad_req_addr),
        .spad_req_wdata_i(spad_req_wdata), .spad_rsp_valid_o(spad_rsp_valid),
        .spad_rsp_rdata_o(spad_rsp_rdata),
        .ucode_we_i(ucode_we), .ucode_addr_i(ucode_addr), .ucode_wdata_i(ucode_wdata),
        .arg_we_i(arg_we), .arg_idx_i(arg_idx), .arg_wdata_i(arg_wdata),
        .run_i(run), .run_pc_i(run_pc), .run_watchdog_i(run_watchdog), .stop_i(stop),
        .state_o(state), .trap_o(trap), .pc_o(pc),
        .cnt_sel_i(cnt_sel), .cnt_value_o(cnt_value), .cnt_fresh_o(cnt_fresh), .reg_sel_i(cnt_sel), .reg_value_o(reg_value),
        .link_rx_byte_i(link_rx_byte), .link_tx_byte_i(link_tx_byte)
`ifdef SPU_CORE_CLOCK_GATE
        , .core_clk_i(core_clk_i), .core_wake_o(core_wake_o)
`endif
    );

    assign idle_o = eng_idle && phy_idle;

    // inputs of a PHY that LINK leaves out
    wire unused_ok = &{1'b0, byte_rx_valid_i, byte_rx_data_i, byte_tx_ready_i, uart_rx_i,
                       link_uart_i};
endmodule
`default_nettype wire
