// spu_core -- the compute side of the SPU: sequencer, tile array, load and
// drain units, banked scratchpad, microcode store, performance counters.
// CONTRACT STUB: ports fixed here (the link side, hw/rtl/link/, drives them);
// the body is being written. See docs/isa.md for the behaviour.
//
// Reset: synchronous, active-high rst_i, everywhere in the design.
// Host access ports are used by the command engine only while state_o is not
// RUNNING (the engine answers BUSY otherwise).
`default_nettype none
module spu_core #(
    parameter integer ROWS        = 8,
    parameter integer COLS        = 8,
    parameter integer SPAD_BYTES  = 262144,
    parameter integer SPAD_BANKS  = 4,
    parameter integer UCODE_WORDS = 1024,
    parameter integer LOOP_DEPTH  = 4
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // scratchpad byte port for the host (WRITE / READ commands)
    input  wire        spad_req_valid_i,   // request; held until spad_req_ready_o
    output wire        spad_req_ready_o,
    input  wire        spad_req_we_i,
    input  wire [31:0] spad_req_addr_i,    // byte address, < SPAD_BYTES (engine checks)
    input  wire [7:0]  spad_req_wdata_i,
    output wire        spad_rsp_valid_o,   // one pulse per accepted read, in order
    output wire [7:0]  spad_rsp_rdata_o,
    // microcode store write port (UCODE command)
    input  wire        ucode_we_i,
    input  wire [31:0] ucode_addr_i,       // word address, < UCODE_WORDS (engine checks)
    input  wire [31:0] ucode_wdata_i,
    // kernel arguments r1..r8 (ARGS command); arg_idx_i 0 -> r1
    input  wire        arg_we_i,
    input  wire [2:0]  arg_idx_i,
    input  wire [31:0] arg_wdata_i,
    // control (RUN / RESET commands), one-cycle pulses
    input  wire        run_i,
    input  wire [31:0] run_pc_i,
    input  wire [31:0] run_watchdog_i,     // cycles, 0 = no limit
    input  wire        stop_i,             // RESET: stop, state IDLE, memories kept
    // status (STATUS command)
    output wire [1:0]  state_o,            // STATE_* of spu_isa.vh
    output wire [7:0]  trap_o,             // TRAP_*
    output wire [31:0] pc_o,               // pc of halt / trap / current
    // performance counters (COUNTERS command): registered read, 1-cycle latency
    input  wire [3:0]  cnt_sel_i,          // CNT_* id
    output wire [63:0] cnt_value_o,
    input  wire        link_rx_byte_i,     // pulse per byte received (LINK_RX)
    input  wire        link_tx_byte_i      // pulse per byte sent (LINK_TX)
);
endmodule
`default_nettype wire
