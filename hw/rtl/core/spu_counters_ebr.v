// spu_counters_ebr -- the performance counters of spu_counters.def kept in one
// RAM (iCE40 EBR) instead of flip-flops; the CNT_RAM = 1 store of spu_counters,
// with its ports and read semantics (see spu_counters.v).
//
// Store. CYCLES stays in flip-flops (the watchdog compares cycles_o in every
// FETCH). Counters 1..8 live in word `slot` = id[2:0] (LINK_TX -> slot 0) of a
// spu_ram_1r1w, plus a small prescaler pre[slot] in flip-flops that takes the
// events, plus a flag clr[slot] ("the RAM word reads as 0"), so that at every
// cycle
//     value(id) = (clr[slot] ? 0 : ram[slot]) + pre[slot]          (*)
// rst_i sets every clr flag (EBR contents are not reset), clear_i (RUN) sets
// those of INSTRET..DRAIN_BUSY; both zero the prescalers.
//
// Pipeline. The RAM is read in every cycle (cycle t), one slot chosen by
//   1. seq_fetch_i (FETCH of a `cnt`): slot of seq_sel_i;
//   2. else the host turn (once per round-robin round, at rr_q == 0, when
//      host_sel_i is 1..8): slot of host_sel_i;
//   3. else the round-robin pointer rr_q, which then advances.
// A word whose clr flag is set is read from ZERO_ADDR instead (never written,
// zero from configuration), so rdata is already the (clr ? 0 : ram) of (*).
// In cycle t+1, sum = rdata + pre[slot] is the slot's exact value at t+1
// (both terms are the state of t+1: see the no-write rule below). It is
//   - seq_value_o in the EXEC of the `cnt` (EXEC always follows its FETCH);
//   - loaded into host_value_o after a host turn;
//   - always written back ("commit"): ram[slot] <= sum, pre[slot] <= the
//     events of t+1, clr[slot] <= 0, which leaves (*) unchanged.
// The commit is cancelled (pre keeps counting, nothing else changes) when
// the read of t+1 is the same slot -- so the RAM never sees a read and a
// write of one address in one cycle (undefined on the FPGA) and a word read
// at t cannot have been written at t -- or when clear_i/rst_i is in t+1, or
// clear_i was in t (the read predates the clear).
//
// Prescaler widths. Between two round-robin reads of a slot there are at
// most 8 round-robin reads, 1 host read and, since two FETCHes are never
// adjacent, at most 9 `cnt` reads: 18 cycles. A cancelled commit is followed
// by a commit of the same slot within 3 cycles (the cancelling read commits
// unless the read after it is that slot again, which only a host read after
// a `cnt`, or a `cnt` after a host read, can be, and the round-robin read
// that follows is another slot). So a slot commits at least every GAP = 24
// cycles: one-event counters need PB = 5 bits, 6 with MAC_MAX = 2 (a k-step
// pair: MAC_ACTIVE counts 2 in a cycle); DRAIN_BUSY adds at most
// DRAIN_MAX per `st`, one `st` per 2 cycles at most: PDB bits. Simulation
// stops on a prescaler overflow (never seen by the tests).
//
// Host reads. host_value_o is registered: CYCLES is loaded whenever the mux
// is free (one cycle, as before); ids 1..8 at each host turn (every 9..18
// cycles: after a change of host_sel_i, host_fresh_o rises within about 20
// cycles); ids >= CNT_COUNT read 0. clear_i makes host_value_o the cleared
// CYCLES (0). host_fresh_o: host_value_o is the value, at most one round old,
// of the counter host_sel_i selects now.
`default_nettype none
module spu_counters_ebr #(
    parameter integer CNT_WIDTH = 32,
    parameter integer DRAIN_MAX = 16,      // largest drain_add_i (ROWS * int32 words per row)
    parameter integer MAC_MAX   = 1        // largest mac_active_i (2: k-step pairs)
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
    input  wire        seq_fetch_i,
    input  wire [3:0]  seq_sel_i,
    output wire [31:0] seq_value_o,
    output wire [63:0] cycles_o
);
`include "spu_isa.vh"
    localparam integer W    = CNT_WIDTH;
    localparam integer RW   = ((W + 7) / 8) * 8;                       // RAM word
    localparam integer GAP  = 24;                                      // see the header
    localparam integer PB   = $clog2(MAC_MAX * GAP + 1);
    localparam integer PDB  = $clog2((GAP / 2 + 1) * DRAIN_MAX + 1);
    localparam integer PW   = (PDB > PB) ? PDB : PB;
    localparam integer SD        = CNT_DRAIN_BUSY % 8;             // the drain slot
    localparam [2:0]   S_DRAIN   = SD[2:0];
    localparam [3:0]   ZERO_ADDR = 4'd8;
    // slots RUN clears: INSTRET..DRAIN_BUSY (ids 1..6 = slots 1..6)
    localparam [7:0]   RUN_CLR   = 8'b0111_1110;

    // ---- CYCLES, in flip-flops ------------------------------------------------------
    reg [W-1:0] cyc_q;
    always @(posedge clk_i) begin
        if (rst_i || clear_i) cyc_q <= {W{1'b0}};
        else                  cyc_q <= cyc_q + {{(W-2){1'b0}}, cycles_add_i};
    end

    // ---- one-event inputs by slot (the drain slot has its own prescaler) -------------
    // (MAC_ACTIVE counts up to 2 a cycle: its second event in ev2)
    wire [7:0] ev, ev2;
    assign ev2 = {7'd0, mac_active_i[1]} << (CNT_MAC_ACTIVE % 8);
    assign ev[CNT_INSTRET     % 8] = instret_i;
    assign ev[CNT_MAC_ACTIVE  % 8] = mac_active_i[0];
    assign ev[CNT_MM_CYCLES   % 8] = mm_cycle_i;
    assign ev[CNT_STALL_BANK  % 8] = stall_bank_i;
    assign ev[CNT_STALL_DRAIN % 8] = stall_drain_i;
    assign ev[CNT_DRAIN_BUSY  % 8] = 1'b0;
    assign ev[CNT_LINK_RX     % 8] = link_rx_i;
    assign ev[CNT_LINK_TX     % 8] = link_tx_i;

    // ---- read issue (cycle t) ---------------------------------------------------------
    reg  [2:0] rr_q;
    reg        host_took_q;     // the host turn of this round is used
    reg  [7:0] clr_q;
    // ids 1..8 live in the RAM; VEC_BUSY / VEC_STALL (9, 10) read 0: this
    // store is the boards', which carry no vector unit (VECTOR = 0)
    localparam [3:0] NRAM = 4'd9;
    wire       host_ram = (host_sel_i != CNT_CYCLES[3:0]) && (host_sel_i < NRAM);
    wire       unused_vec = &{1'b0, vec_busy_i, vec_stall_i};
    // seq_fetch_i comes late in the cycle (decoded from the microcode word):
    // everything is computed for both cases and selected by it last (timing)
    wire       host_nf  = (rr_q == 3'd0) && !host_took_q && host_ram;   // if no fetch
    wire       host_go  = !seq_fetch_i && host_nf;
    wire [2:0] slot_nf  = host_nf ? host_sel_i[2:0] : rr_q;
    wire [2:0] slot_f   = seq_sel_i[2:0];
    wire [2:0] rd_slot  = seq_fetch_i ? slot_f : slot_nf;
    wire [3:0] addr_nf  = clr_q[slot_nf] ? ZERO_ADDR : {1'b0, slot_nf};
    wire [3:0] addr_f   = clr_q[slot_f]  ? ZERO_ADDR : {1'b0, slot_f};
    wire [3:0] rd_addr  = seq_fetch_i ? addr_f : addr_nf;

    reg        p_live_q;        // the read of t-1 may commit (no clear/reset in t-1)
    reg        p_host_q;        // ... and was a host turn
    reg  [2:0] p_slot_q;
    reg  [3:0] p_hsel_q;
    always @(posedge clk_i) begin
        if (rst_i) begin
            rr_q        <= 3'd0;
            host_took_q <= 1'b0;
            p_live_q    <= 1'b0;
            p_host_q    <= 1'b0;
        end else begin
            if (host_go) begin
                host_took_q <= 1'b1;
            end else if (!seq_fetch_i) begin
                rr_q        <= rr_q + 3'd1;
                host_took_q <= 1'b0;
            end
            p_live_q <= !clear_i;
            p_host_q <= host_go && !clear_i;
        end
        p_slot_q <= rd_slot;
        p_hsel_q <= host_sel_i;
    end

    // ---- result and commit (cycle t+1) -----------------------------------------------
    reg  [8*PB-1:0] pre_q;      // slot s at [s*PB +: PB]; the drain slot's field stays 0
    reg  [PDB-1:0]  pred_q;     // DRAIN_BUSY's prescaler
    wire [RW-1:0]   rdata;
    // pre[slot] at t+1 is registered at t (pre_sel_q), so that the sum starts
    // from flip-flops (timing: `cnt` -> register write data). No commit at t
    // touches the slot read at t (a commit needs a different slot), so that
    // value is pre + events of t -- except after rst_i/clear_i at t, when
    // nothing uses the sum of t+1 (no commit, no host load, no `cnt` EXEC).
    wire [8*PB-1:0] pre_inc;    // pre_q + this cycle's events, per slot
    genvar gs;
    generate
        for (gs = 0; gs < 8; gs = gs + 1) begin : g_inc
            assign pre_inc[gs*PB +: PB] = pre_q[gs*PB +: PB] + {{(PB-2){1'b0}}, ev2[gs], ev[gs]};
        end
    endgenerate
    wire [PDB-1:0]  pred_inc = pred_q + drain_add_i[PDB-1:0];
    reg  [PW-1:0]   pre_sel_q;
    always @(posedge clk_i)
        pre_sel_q <= (rd_slot == S_DRAIN) ? {{(PW-PDB){1'b0}}, pred_inc}
                                          : {{(PW-PB){1'b0}}, pre_inc[rd_slot*PB +: PB]};
    wire [RW-1:0]   sum     = rdata + {{(RW-PW){1'b0}}, pre_sel_q};
    wire            commit_ok = p_live_q && !clear_i && !rst_i;
    wire            commit  = commit_ok && (seq_fetch_i ? (slot_f != p_slot_q) : (slot_nf != p_slot_q));

    spu_ram_1r1w #(.WIDTH(RW), .DEPTH(16), .ZERO_INIT(1)) u_ram (
        .clk_i(clk_i), .we_i(commit), .wbe_i({(RW/8){1'b1}}), .waddr_i({1'b0, p_slot_q}),
        .wdata_i(sum), .re_i(1'b1), .raddr_i(rd_addr), .rdata_o(rdata)
    );

    integer s;
    always @(posedge clk_i) begin
        for (s = 0; s < 8; s = s + 1) begin
            if (s == SD)
                pre_q[s*PB +: PB] <= {PB{1'b0}};
            else if (rst_i || (clear_i && RUN_CLR[s]) || (commit && {29'd0, p_slot_q} == s))
                pre_q[s*PB +: PB] <= {{(PB-2){1'b0}}, ev2[s], ev[s]} & {PB{!rst_i && !clear_i}};
            else
                pre_q[s*PB +: PB] <= pre_inc[s*PB +: PB];
        end
        if (rst_i || clear_i)
            pred_q <= {PDB{1'b0}};
        else if (commit && p_slot_q == S_DRAIN)
            pred_q <= drain_add_i[PDB-1:0];
        else
            pred_q <= pred_inc;
        if (rst_i) begin
            clr_q <= 8'hFF;
        end else if (clear_i) begin
            clr_q <= clr_q | RUN_CLR;
        end else if (commit) begin
            clr_q[p_slot_q] <= 1'b0;
        end
    end

    // ---- outputs -------------------------------------------------------------------------
    // The `cnt`'s value: its selector decoded in FETCH (seq_fetch_i; EXEC
    // always follows the FETCH that read the RAM) into two flip-flops, so that
    // the EXEC's register write data starts from flip-flops and the RAM
    // (timing: the microcode word -> the counter selector -> this mux -> the
    // register write data was the SPRAM build's critical path at seeds 1-3).
    reg         sq_cyc_q, sq_zero_q;
    always @(posedge clk_i)
        if (seq_fetch_i) begin
            sq_cyc_q  <= (seq_sel_i == CNT_CYCLES[3:0]);
            sq_zero_q <= (seq_sel_i >= NRAM);
        end
    wire [W-1:0] seq_value = sq_zero_q ? {W{1'b0}} : sq_cyc_q ? cyc_q : sum[W-1:0];
    // the host's: a host turn is never issued in a FETCH, so its result never
    // lands in the EXEC of a `cnt`
    wire [W-1:0] rd_value = p_host_q ? sum[W-1:0] : cyc_q;
    reg  [W-1:0] host_q;
    reg  [3:0]   hsel_q;
    wire         ld_cyc  = !p_host_q && !seq_use_i && (host_sel_i == CNT_CYCLES[3:0]);
    wire         ld_zero = !p_host_q && (host_sel_i >= NRAM);
    always @(posedge clk_i) begin
        if (rst_i || clear_i) begin
            host_q <= {W{1'b0}};
            hsel_q <= CNT_CYCLES[3:0];
        end else if (p_host_q) begin
            host_q <= rd_value;
            hsel_q <= p_hsel_q;
        end else if (ld_cyc) begin
            host_q <= rd_value;
            hsel_q <= host_sel_i;
        end else if (ld_zero) begin
            host_q <= {W{1'b0}};
            hsel_q <= host_sel_i;
        end
    end
    assign host_fresh_o = (hsel_q == host_sel_i);

    generate
        if (W < 64) begin : g_narrow
            assign host_value_o = {{(64-W){1'b0}}, host_q};
            assign cycles_o     = {{(64-W){1'b0}}, cyc_q};
        end else begin : g_full
            assign host_value_o = host_q;
            assign cycles_o     = cyc_q;
        end
        if (W > 32) begin : g_seq_cut
            wire [W-33:0] unused_seq_hi = seq_value[W-1:32];
        end
        if (RW > W) begin : g_ram_cut
            wire [RW-W-1:0] unused_sum_hi = sum[RW-1:W];
        end
        if (PDB < 16) begin : g_drain_cut
            // drain_add_i <= DRAIN_MAX < 2^PDB
            wire [15-PDB:0] unused_drain_hi = drain_add_i[15:PDB];
        end
    endgenerate
    assign seq_value_o = seq_value[31:0];

`ifndef SYNTHESIS
    // the prescaler sizing of the header, checked in simulation
    integer c;
    always @(posedge clk_i) begin
        if (!rst_i && !clear_i) begin
            for (c = 0; c < 8; c = c + 1)
                if (c != SD && ({1'b0, pre_q[c*PB +: PB]} + {{(PB-1){1'b0}}, ev2[c], ev[c]} > {1'b0, {PB{1'b1}}})) begin
                    $display("spu_counters_ebr: prescaler %0d overflows", c);
                    $stop;
                end
            if ({1'b0, pred_q} + {1'b0, drain_add_i[PDB-1:0]} > {1'b0, {PDB{1'b1}}}) begin
                $display("spu_counters_ebr: DRAIN_BUSY prescaler overflows");
                $stop;
            end
        end
    end
`endif
endmodule
`default_nettype wire
