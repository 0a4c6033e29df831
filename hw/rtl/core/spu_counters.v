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
    reg [63:0] cnt_q [0:CNT_COUNT-1];
    reg [63:0] add [0:CNT_COUNT-1];
    integer n;

    always @* begin
        for (n = 0; n < CNT_COUNT; n = n + 1) add[n] = 64'd0;
        add[CNT_CYCLES]      = {62'd0, cycles_add_i};
        add[CNT_INSTRET]     = {63'd0, instret_i};
        add[CNT_MAC_ACTIVE]  = {63'd0, mac_active_i};
        add[CNT_MM_CYCLES]   = {63'd0, mm_cycle_i};
        add[CNT_STALL_BANK]  = {63'd0, stall_bank_i};
        add[CNT_STALL_DRAIN] = {63'd0, stall_drain_i};
        add[CNT_DRAIN_BUSY]  = {48'd0, drain_add_i};
        add[CNT_LINK_RX]     = {63'd0, link_rx_i};
        add[CNT_LINK_TX]     = {63'd0, link_tx_i};
    end

    always @(posedge clk_i) begin
        for (n = 0; n < CNT_COUNT; n = n + 1) begin
            if (rst_i || (clear_i && n != CNT_LINK_RX && n != CNT_LINK_TX))
                cnt_q[n] <= 64'd0;
            else
                cnt_q[n] <= cnt_q[n] + add[n];
        end
        if (rst_i) host_value_o <= 64'd0;
        else       host_value_o <= ({28'd0, host_sel_i} < CNT_COUNT) ? cnt_q[host_sel_i] : 64'd0;
    end

    reg [31:0] seq_low [0:CNT_COUNT-1];   // cnt reads the low 32 bits
    always @* for (n = 0; n < CNT_COUNT; n = n + 1) seq_low[n] = cnt_q[n][31:0];
    assign seq_value_o = ({28'd0, seq_sel_i} < CNT_COUNT) ? seq_low[seq_sel_i] : 32'd0;
    assign cycles_o    = cnt_q[CNT_CYCLES];
endmodule
`default_nettype wire
