// spu_counters -- the 64-bit performance counters of spu_counters.def.
// The sequencer, load unit and drain accounting pulse event inputs; clear_i
// (RUN) zeroes CYCLES..DRAIN_BUSY, the LINK_* counters count from rst_i.
// One read mux, shared: while seq_use_i (the EXEC cycle of a `cnt`) it serves
// seq_sel_i -> seq_value_o (combinational, low 32 bits); in every other cycle
// it loads cnt[host_sel_i] into host_value_o (registered). host_fresh_o says
// host_value_o was loaded from the counter host_sel_i selects now: at most one
// cycle later than without sharing, since a `cnt` EXEC is always followed by
// a FETCH. An id >= CNT_COUNT reads 0.
// CNT_WIDTH (32..64, default 64 = the ISA's width) is the width each counter
// is kept in; the reads are zero-extended to 64 bits. The iCE40 boards use 32
// (half the adders and flip-flops; a counter then wraps after 2^32 events,
// about 179 s of cycles at 24 MHz -- docs/fpga.md); simulation keeps 64.
// CNT_RAM selects the store: 0 (default) nine counters in flip-flops, the
// description above; 1 counters 1..8 in one RAM (an iCE40 EBR) with small
// prescalers in flip-flops, spu_counters_ebr.v: the same values at every cycle
// `cnt` can observe them, host reads take up to about 20 cycles to turn
// fresh. DRAIN_MAX (largest drain_add_i) sizes a prescaler of the RAM store.
`default_nettype none
module spu_counters #(
    parameter integer CNT_WIDTH = 64,
    parameter integer CNT_RAM   = 0,
    parameter integer DRAIN_MAX = 65535,
    parameter integer MAC_MAX   = 1       // largest mac_active_i (2: k-step pairs)
) (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clear_i,
    input  wire [1:0]  cycles_add_i,
    input  wire        instret_i,
    input  wire [1:0]  mac_active_i,   // k-steps this cycle (a pair: 2)
    input  wire        mm_cycle_i,
    input  wire        stall_bank_i,
    input  wire        stall_drain_i,
    input  wire [15:0] drain_add_i,
    input  wire        vec_busy_i,     // VEC_BUSY, VEC_STALL events (0 without a vector unit)
    input  wire        vec_stall_i,
    input  wire        link_rx_i,
    input  wire        link_tx_i,
    input  wire [3:0]  host_sel_i,
    output wire [63:0] host_value_o,
    output wire        host_fresh_o,
    input  wire        seq_use_i,
    input  wire        seq_fetch_i,    // FETCH of a cnt (seq_sel_i valid); used by the RAM store
    input  wire [3:0]  seq_sel_i,
    output wire [31:0] seq_value_o,
    output wire [63:0] cycles_o
);
`include "spu_isa.vh"
generate
    if (CNT_RAM != 0) begin : g_ram
        spu_counters_ebr #(.CNT_WIDTH(CNT_WIDTH), .DRAIN_MAX(DRAIN_MAX), .MAC_MAX(MAC_MAX)) u_store (
            .clk_i(clk_i), .rst_i(rst_i), .clear_i(clear_i),
            .cycles_add_i(cycles_add_i), .instret_i(instret_i), .mac_active_i(mac_active_i),
            .mm_cycle_i(mm_cycle_i), .stall_bank_i(stall_bank_i), .stall_drain_i(stall_drain_i),
            .drain_add_i(drain_add_i), .vec_busy_i(vec_busy_i), .vec_stall_i(vec_stall_i), .link_rx_i(link_rx_i), .link_tx_i(link_tx_i),
            .host_sel_i(host_sel_i), .host_value_o(host_value_o), .host_fresh_o(host_fresh_o),
            .seq_use_i(seq_use_i), .seq_fetch_i(seq_fetch_i), .seq_sel_i(seq_sel_i),
            .seq_value_o(seq_value_o), .cycles_o(cycles_o)
        );
    end else begin : g_ff
        // flat vectors, counter n at [n*64 +: 64] (arrays with per-element reset
        // would make Yosys warn about replacing a memory)
        localparam integer W = CNT_WIDTH;
        reg  [CNT_COUNT*W-1:0] cnt_q;
        reg  [CNT_COUNT*W-1:0] add;
        reg  [W-1:0]           host_q;
        reg  [3:0]             hsel_q;
        integer n;

        // the core's events (registered in spu_core). The link's two follow the
        // link inputs combinationally: they are added in the clocked block, so
        // that a Verilated model does not rebuild this 704-bit vector in its
        // input pass, twice per cycle (docs/sim.md "Speed")
        always @* begin
            add = {CNT_COUNT*W{1'b0}};
            add[CNT_CYCLES*W      +: W] = {{(W-2){1'b0}}, cycles_add_i};
            add[CNT_INSTRET*W     +: W] = {{(W-1){1'b0}}, instret_i};
            add[CNT_MAC_ACTIVE*W  +: W] = {{(W-2){1'b0}}, mac_active_i};
            add[CNT_MM_CYCLES*W   +: W] = {{(W-1){1'b0}}, mm_cycle_i};
            add[CNT_STALL_BANK*W  +: W] = {{(W-1){1'b0}}, stall_bank_i};
            add[CNT_STALL_DRAIN*W +: W] = {{(W-1){1'b0}}, stall_drain_i};
            add[CNT_DRAIN_BUSY*W  +: W] = {{(W-16){1'b0}}, drain_add_i};
            add[CNT_VEC_BUSY*W    +: W] = {{(W-1){1'b0}}, vec_busy_i};
            add[CNT_VEC_STALL*W   +: W] = {{(W-1){1'b0}}, vec_stall_i};
        end

        // the shared read mux; the decoder traps `cnt` ids >= CNT_COUNT
        wire [3:0] rd_sel = seq_use_i ? seq_sel_i : host_sel_i;
        reg [W-1:0] rd_value;
        always @* begin
            rd_value = {W{1'b0}};
            for (n = 0; n < CNT_COUNT; n = n + 1)
                if (rd_sel == n[3:0]) rd_value = cnt_q[n*W +: W];
        end
        wire [W-1:0] seq_value = rd_value;

        always @(posedge clk_i) begin
            for (n = 0; n < CNT_COUNT; n = n + 1) begin
                if (rst_i || (clear_i && n != CNT_LINK_RX && n != CNT_LINK_TX))
                    cnt_q[n*W +: W] <= {W{1'b0}};
                else if (n == CNT_LINK_RX)
                    cnt_q[n*W +: W] <= cnt_q[n*W +: W] + {{(W-1){1'b0}}, link_rx_i};
                else if (n == CNT_LINK_TX)
                    cnt_q[n*W +: W] <= cnt_q[n*W +: W] + {{(W-1){1'b0}}, link_tx_i};
                else
                    cnt_q[n*W +: W] <= cnt_q[n*W +: W] + add[n*W +: W];
            end
            if (rst_i) begin
                host_q   <= {W{1'b0}};
                hsel_q   <= 4'd0;
            end else if (!seq_use_i) begin
                host_q   <= rd_value;
                hsel_q   <= host_sel_i;
            end
        end
        assign host_fresh_o = (hsel_q == host_sel_i);

            if (W < 64) begin : g_narrow
                assign host_value_o = {{(64-W){1'b0}}, host_q};
                assign cycles_o = {{(64-W){1'b0}}, cnt_q[CNT_CYCLES*W +: W]};
            end else begin : g_full
                assign host_value_o = host_q;
                assign cycles_o = cnt_q[CNT_CYCLES*W +: W];
            end
            if (W > 32) begin : g_seq_cut
                wire [W-33:0] unused_seq_hi = seq_value[W-1:32];
            end
        assign seq_value_o = seq_value[31:0];
        wire unused_seq_fetch = seq_fetch_i;
    end
endgenerate
endmodule
`default_nettype wire
