// spu_counters -- the 64-bit performance counters of spu_counters.def.
// The sequencer, load unit and drain accounting pulse event inputs; clear_i
// (RUN) zeroes CYCLES..DRAIN_BUSY, the LINK_* counters count from rst_i.
// Two read ports: host_sel_i -> host_value_o registered (1-cycle latency, the
// COUNTERS command), seq_sel_i -> seq_value_o combinational low 32 bits (cnt).
// An id >= CNT_COUNT reads 0.
`default_nettype none
module spu_counters (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clear_i,
    input  wire [1:0]  cycles_add_i,
    input  wire        instret_i,
    input  wire        mac_active_i,
    input  wire        mm_cycle_i,
    input  wire        stall_bank_i,
    input  wire        stall_drain_i,
    input  wire [15:0] drain_add_i,
    input  wire        link_rx_i,
    input  wire        link_tx_i,
    input  wire [3:0]  host_sel_i,
    output reg  [63:0] host_value_o,
    input  wire [3:0]  seq_sel_i,
    output wire [31:0] seq_value_o,
    output wire [63:0] cycles_o
);
`include "spu_isa.vh"
    // flat vectors, counter n at [n*64 +: 64] (arrays with per-element reset
    // would make Yosys warn about replacing a memory)
    reg  [CNT_COUNT*64-1:0] cnt_q;
    reg  [CNT_COUNT*64-1:0] add;
    integer n;

    always @* begin
        add = {CNT_COUNT*64{1'b0}};
        add[CNT_CYCLES*64      +: 64] = {62'd0, cycles_add_i};
        add[CNT_INSTRET*64     +: 64] = {63'd0, instret_i};
        add[CNT_MAC_ACTIVE*64  +: 64] = {63'd0, mac_active_i};
        add[CNT_MM_CYCLES*64   +: 64] = {63'd0, mm_cycle_i};
        add[CNT_STALL_BANK*64  +: 64] = {63'd0, stall_bank_i};
        add[CNT_STALL_DRAIN*64 +: 64] = {63'd0, stall_drain_i};
        add[CNT_DRAIN_BUSY*64  +: 64] = {48'd0, drain_add_i};
        add[CNT_LINK_RX*64     +: 64] = {63'd0, link_rx_i};
        add[CNT_LINK_TX*64     +: 64] = {63'd0, link_tx_i};
    end

    always @(posedge clk_i) begin
        for (n = 0; n < CNT_COUNT; n = n + 1) begin
            if (rst_i || (clear_i && n != CNT_LINK_RX && n != CNT_LINK_TX))
                cnt_q[n*64 +: 64] <= 64'd0;
            else
                cnt_q[n*64 +: 64] <= cnt_q[n*64 +: 64] + add[n*64 +: 64];
        end
        if (rst_i) host_value_o <= 64'd0;
        else if ({28'd0, host_sel_i} < CNT_COUNT) host_value_o <= cnt_q[host_sel_i*64 +: 64];
        else host_value_o <= 64'd0;
    end

    // cnt reads the low 32 bits; the decoder traps ids >= CNT_COUNT
    reg [31:0] seq_value;
    always @* begin
        seq_value = 32'd0;
        for (n = 0; n < CNT_COUNT; n = n + 1)
            if (seq_sel_i == n[3:0]) seq_value = cnt_q[n*64 +: 32];
    end
    assign seq_value_o = seq_value;
    assign cycles_o    = cnt_q[CNT_CYCLES*64 +: 64];
endmodule
`default_nettype wire
