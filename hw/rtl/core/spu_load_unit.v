// spu_load_unit -- the tensor unit's command queue and stream engine: takes
// mm / st / zacc from the sequencer into a one-entry queue and runs them in
// order, back to back, while the sequencer goes on (docs/isa.md "Tensor unit").
//
// Drive: push_i (the cycle the sequencer accepts a tensor instruction; only
// when accept_o) with kind_i (K_MM, K_ST, K_ZACC), the A/B byte addresses
// (st: its destination in a_addr_i), K, the "over" flags of the bases and the
// instruction's pc. The entry launches in the first cycle the engine is free
// (an st also waits for drain_ok_i: the drain unit can take a new block;
// an mm waits for mm_ok_i, which spu_core holds low while a drain is pending
// or writing when the scratchpad banks are single-port SPRAM):
//   - mm: its launch cycle loads the stream registers; from the next cycle
//     the unit streams exactly sum_k (1, or 2 if A_k and B_k are in the same
//     bank) cycles and is free again in the cycle after the last step. Per
//     cycle: a different-bank step reads A on spad port A and B on port B; a
//     same-bank step reads A first (stall_o, A parked in hold_q), then B;
//     step_o pulses in the cycle a step's last read is issued (mac_active),
//     mm_o in every streaming cycle (mm_cycles).
//   - st / zacc: a token, one cycle (tok_o): no read that cycle, so the slot
//     it takes in the stream is a zero word; spu_core sends it through the
//     array on the diagonal (the accumulator swap travelling with the data).
// The words arrive one cycle after the read; the unit puts A byte i on west_o
// row i delayed i cycles and B byte j on north_o column j delayed j cycles,
// zeros when no step is in flight (a zero product is a no-op in the array).
// The product of a step issued in cycle s lands in tile (i,j) in cycle
// s + 2 + i + j (BROADCAST = 1: s + 2 in every tile; spu_array).
// idle_o: nothing queued or streaming and no read or token in the last
// ROWS + COLS cycles (BROADCAST = 1: 2), so every product and token has
// reached the last tile.
// Range: a step whose A or B word lies outside the scratchpad (its address
// reached SPAD_BYTES = 2^AW) is not issued: bad_o is high in its first cycle
// (no read counts, no step_o / stall_o / mm_o), bad_pc_o is that mm's pc, and
// the unit drops the stream and the queue at once (the sequencer traps
// SPAD_RANGE). Each address keeps a sticky "over" flag instead of a wider
// register: set at launch when the base is out of range, and on every issued
// step by the carry out of address + stride or a stride of 2^AW or more
// (sa_over_i) -- an aligned word below 2^AW is inside.
// abort_i (RESET) drops everything at once.
// CHAIN = 1 (the 8x8 sim; docs/isa.md "Tensor unit", "Chained streams"): the
// queue has two entries, and the engine goes from one block to the next
// without a gap:
//   - an mm at the head launches in the cycle its predecessor mm issues its
//     last step (chain_rdy), so the two streams are back to back;
//   - a token at the head with an mm behind it (its base inside the
//     scratchpad) launches together with that mm ("pair") as soon as the mm
//     could launch. In the cycle the running mm issues its last step the
//     token has no slot of its own: tok_o pulses in the cycle the new mm's
//     first step issues, so the token's wave travels with that step's data
//     and each tile clears in the cycle it adds the step's product (spu_array
//     CHAIN: a clearing tile keeps that term). With the engine free the token
//     takes the launch cycle's slot and the mm streams from the next cycle.
//     A token with no mm behind it goes alone, in its own slot, as with
//     CHAIN = 0.
//   An st (alone or paired) also waits until the last paired token has
//   pulsed (ride_q). Needs SPAD_SPRAM = 0 (spu_core).
// bf16 (BF16 = 1 and fmt_i = bf16; docs/isa.md "mm", docs/rtl.md): an mm of K
// steps streams 2K word steps exactly as an int8 mm of 2K steps would (same
// reads, strides, stalls, range checks, step_o / stall_o / mm_o), word 2s the
// low bytes of k-step s and word 2s+1 its high bytes. The first word of a
// pair is not injected when it arrives: it is injected (from fa_q / fb_q, or
// straight from the read when the pair issued back to back) in the cycle its
// second word issues, with mk_o high, and the second word in the next cycle,
// as usual. So the two words of a k-step always enter the skew in adjacent
// cycles, low word first, and the array pairs them (spu_array).
// MX (MX = 1 and fmt_i an MX dtype; docs/isa.md "mm"): an mm of K element
// k-steps streams K + ceil(K/32) word steps exactly as an int8 mm of that
// many steps would: after every 32 element words, and after the last one, a
// scale word (A byte i: the E8M0 scale of row i's block, B byte j: column
// j's). mk_o is high in the cycle a scale word enters the skew.
// mxfp6_e3m2 / mxfp6_e2m3 / mxfp4_e2m1 (NARROW = 1): one element code per
// byte (its low 6 / 4 bits; the high bits are ignored); every element word
// is widened here, byte by byte, to the e4m3 code of the same value (every
// e3m2 / e2m3 / e2m1 value is an e4m3 value), scale words pass unchanged,
// and the array runs the word as mxfp8_e4m3 (docs/numerics.md "MX on the
// array").
// PAIR = 1 (ARRAY_2X: the iCEBreaker's SPRAM build with the array on a
// second clock at twice the rate; docs/isa.md "mm", docs/rtl.md
// "ARRAY_2X"): a step issues as a pair -- k-steps s and s + 1 in one cycle
// -- when both strides are one word (checked at launch), A and B are at
// even word addresses in different banks and two or more steps are left.
// Its reads also take the next word of each port (pair_o, spu_spad pair_i),
// which arrives half a cycle after the first. west_o / north_o then change
// at both edges of clk2x_i (spu_array FAST takes them at each): in the second
// half of a cycle (ph_i high) the step issued the cycle before, as always; in
// the first half the second words of the pair issued two cycles before
// (zeros otherwise). Which of the two, and whether A comes from hold_q, are
// clk2x_i flip-flops (en_q, hs_q), so the bus is two LUTs from the
// scratchpad's outputs (timing). The addresses advance two words, k by 2;
// step_o pulses once with pair_o high (two k-steps).
`default_nettype none
module spu_load_unit #(
    parameter integer ROWS       = 8,
    parameter integer COLS       = 8,
    parameter integer WORD_BYTES = 8,
    parameter integer SPAD_BYTES = 262144,
    parameter integer SPAD_BANKS = 4,
    parameter integer AW         = $clog2(SPAD_BYTES),
    parameter integer PCW        = 10,
    parameter integer BROADCAST  = 0,
    parameter integer BF16       = 0,    // the array carries bf16 (FORMATS)
    parameter integer MX         = 0,    // the array carries an MX dtype (FORMATS)
    parameter integer NARROW     = 0,    // ... and mxfp6 / mxfp4 (FORMATS bits 10-12)
    parameter integer CHAIN      = 0,    // 1: chained streams (two-entry queue, see above)
    parameter integer PAIR       = 0,    // 1: k-step pairs (see above); int8 only, no CHAIN
    // cycles from a read to its last tile: the token wave's span, which
    // spu_core states once (its NW: 2 on buses) and passes here; the default
    // is the systolic span, as BROADCAST's default (the module linted alone)
    parameter integer WAVE       = ROWS + COLS
) (
    input  wire                    clk_i,
    input  wire                    clk2x_i,     // PAIR: twice clk_i, rising edges aligned
    input  wire                    ph_i,        // PAIR: 0 in clk2x_i's first cycle after a clk_i edge
    input  wire                    rst_i,
    input  wire                    abort_i,
    // queue
    input  wire                    push_i,
    input  wire [1:0]              kind_i,      // 0 mm, 1 st, 2 zacc
    input  wire [AW-1:0]           a_addr_i,    // mm: A base; st: destination
    input  wire [AW-1:0]           b_addr_i,
    input  wire                    a_over_i,    // base >= 2^AW
    input  wire                    b_over_i,
    input  wire [31:0]             k_i,
    input  wire [3:0]              fmt_i,       // cfg in (stable while the unit is busy)
    input  wire [PCW-1:0]          pc_i,
    output wire                    accept_o,    // a push this cycle is taken
    output wire                    idle_o,
    input  wire                    drain_ok_i,  // an st may launch this cycle
    input  wire                    mm_ok_i,     // an mm may launch this cycle (1 but with SPRAM banks)
    // current strides (stride waits for idle_o, so they hold while queued)
    input  wire [AW-1:0]           a_stride_i,
    input  wire [AW-1:0]           b_stride_i,
    input  wire                    sa_over_i,   // stride >= 2^AW
    input  wire                    sb_over_i,
    output wire                    tok_o,       // an st / zacc token launches this cycle
    output wire                    tok_st_o,    // ... and it is an st
    output reg  [AW-1:0]           st_addr_o,   // the last launched st's destination
    output wire                    bad_o,       // this step's A or B word is outside
    output wire [PCW-1:0]          bad_pc_o,
    output wire                    step_o,
    output wire                    pair_o,      // PAIR: this step_o is a pair (two k-steps)
    output wire                    stall_o,
    output wire                    mm_o,
    // scratchpad read ports
    output wire                    a_re_o,
    output wire [AW-OFF-1:0]       a_addr_o,   // word address
    input  wire [WORD_BYTES*8-1:0] a_rdata_i,
    output wire                    b_re_o,
    output wire [AW-OFF-1:0]       b_addr_o,
    input  wire [WORD_BYTES*8-1:0] b_rdata_i,
    // skewed array edges
    output wire [ROWS*8-1:0]       west_o,
    output wire [COLS*8-1:0]       north_o,
    output wire                    mk_o         // bf16: a k-step's low word enters the skew; MX: a scale word
);
`include "spu_isa.vh"
    localparam integer BKW  = $clog2(SPAD_BANKS);
    localparam integer OFF  = $clog2(WORD_BYTES);
    localparam integer FW   = $clog2(WAVE + 1);
    localparam [FW-1:0] FL_N = WAVE[FW-1:0];
    localparam integer DW   = WORD_BYTES * 8;
    localparam [1:0]   K_MM = 2'd0, K_ST = 2'd1;

    // ---- the queue entry -----------------------------------------------------------
    reg           pv_q;                  // valid
    reg [1:0]     pk_q;
    reg [AW-1:0]  pa_q, pb_q;
    reg           pao_q, pbo_q;
    reg [31:0]    pkk_q;
    reg [PCW-1:0] ppc_q;

    reg          stream_q, ph1_q;
    localparam integer KW = (BF16 != 0 || MX != 0) ? 33 : 32;
    reg [KW-1:0] k_q;                    // word steps left (bf16: 2 per k-step)
    wire         sub;                    // bf16: the next issue is a pair's second word
    wire         inj_first;              // bf16: the word arriving now is a pair's first
    reg [AW-1:0] a_q, b_q, as_q, bs_q;
    reg [PCW-1:0] pc_q;
    reg [FW-1:0] fl_q;
    reg          inj_q, inj_hold_q;
    reg [DW-1:0] hold_q;
    reg          a_over_q, b_over_q, sa_over_q, sb_over_q;

    wire conflict = (a_q[AW-1 -: BKW] == b_q[AW-1 -: BKW]);
    // a step outside the scratchpad: decided in its first cycle, never issued
    wire bad      = stream_q && !ph1_q && (a_over_q || b_over_q);
    // a step completes its reads this cycle
    wire issue    = stream_q && (!conflict || ph1_q) && !bad;
    wire k_hi0    = (k_q[KW-1:2] == {(KW-2){1'b0}});
    wire last_k   = k_hi0 && (k_q[1:0] == 2'd1);
    // PAIR: this issue is a pair (g_pair below; 0 otherwise)
    wire pr;
    wire last_is  = last_k || (pr && k_hi0 && (k_q[1:0] == 2'd2));   // the stream's last issue
    wire bf       = (BF16 != 0) && (fmt_i == DT_BF16);
    wire nw       = (MX != 0) && (NARROW != 0) && ((fmt_i == DT_MXFP6_E3M2) || (fmt_i == DT_MXFP6_E2M3) ||
                                                   (fmt_i == DT_MXFP4_E2M1));
    wire mx       = (MX != 0) && ((fmt_i == DT_MXFP8_E4M3) || (fmt_i == DT_MXFP8_E5M2) ||
                                  (fmt_i == DT_MXINT8) || nw);
    // the second entry and the paired token's state (CHAIN = 1; constant
    // zero otherwise)
    wire          v1;                    // second entry valid
    wire [1:0]    k1;
    wire [AW-1:0] a1, b1;
    wire          ao1, bo1;
    wire [31:0]   kk1;
    wire [PCW-1:0] pc1;
    wire          ride, ride_st;         // a paired token pulses at the next issue (st: ride_st)
    // the head launches: the engine is free (not streaming), an st also
    // needs the drain unit
    // (an mm also needs mm_ok_i: single-port SPRAM banks, spu_core)
    // CHAIN: an mm may also launch in its predecessor's last issue, and a
    // token pairs with the mm behind it (see the header)
    wire chain_rdy = !stream_q || ((CHAIN != 0) && issue && last_k);
    wire tok_ok    = (pk_q != K_ST) || (drain_ok_i && !ride);
    wire pair      = (CHAIN != 0) && pv_q && (pk_q != K_MM) && v1 && (k1 == K_MM) && !ao1 && !bo1 &&
                     mm_ok_i && tok_ok && chain_rdy;
    wire mm_go     = pv_q && (pk_q == K_MM) && chain_rdy && mm_ok_i;
    wire tok_alone = pv_q && (pk_q != K_MM) && !stream_q && tok_ok && !pair;
    wire launch    = mm_go || tok_alone || pair;       // the head leaves the queue
    wire launch_mm = mm_go || pair;                    // an mm's stream starts next cycle
    // a pair launched while the engine still issues its last step: the token
    // rides with the mm's first step; with the engine free it takes this
    // cycle's slot (no read) and the mm streams from the next
    wire pair_ride = pair && stream_q;
    wire tok_slot  = tok_alone || (pair && !stream_q);
    wire tok       = tok_slot || (issue && ride);
    // the mm that launches: the head, or the entry behind a paired token
    wire [AW-1:0]  src_a   = pair ? a1  : pa_q;
    wire [AW-1:0]  src_b   = pair ? b1  : pb_q;
    wire           src_ao  = pair ? ao1 : pao_q;
    wire           src_bo  = pair ? bo1 : pbo_q;
    wire [31:0]    src_k   = pair ? kk1 : pkk_q;
    wire [PCW-1:0] src_pc  = pair ? pc1 : ppc_q;
    // word steps of the mm that launches: K, 2K for bf16, K + ceil(K/32) for MX
    wire [KW-1:0] k_init;
    generate
        if (KW > 32) begin : g_k33
            wire [32:0] kp31 = {1'b0, src_k} + 33'd31;
            wire [32:0] kmx  = {1'b0, src_k} + {5'd0, kp31[32:5]};
            wire [4:0]  unused_kp = kp31[4:0];
            assign k_init = bf ? {src_k, 1'b0} : mx ? kmx : {1'b0, src_k};
        end else begin : g_k32
            assign k_init = src_k;
        end
    endgenerate

    assign accept_o = ((CHAIN != 0) ? !v1 : !pv_q) || launch;
    assign idle_o   = !pv_q && !stream_q && (fl_q == {FW{1'b0}});
    assign tok_o    = tok;
    assign tok_st_o = (tok_slot && (pk_q == K_ST)) || (issue && ride && ride_st);
    assign step_o   = issue;
    assign pair_o   = pr;
    assign stall_o  = stream_q && conflict && !ph1_q && !bad;
    assign mm_o     = stream_q && !bad;
    assign bad_o    = bad;
    assign bad_pc_o = pc_q;
    assign a_re_o   = stream_q && !ph1_q;          // A read: alone (conflict) or with B
    assign a_addr_o = a_q[AW-1:OFF];
    assign b_re_o   = issue;
    assign b_addr_o = b_q[AW-1:OFF];

    always @(posedge clk_i) begin
        if (rst_i || abort_i || bad) begin
            stream_q   <= 1'b0;
            ph1_q      <= 1'b0;
            k_q        <= {KW{1'b0}};
            inj_q      <= 1'b0;
            inj_hold_q <= 1'b0;
        end else begin
            inj_q      <= issue;
            inj_hold_q <= issue && conflict;
            if (launch_mm) begin
                stream_q <= 1'b1;
                ph1_q    <= 1'b0;
                k_q      <= k_init;
            end else if (stream_q) begin
                if (!issue) begin
                    ph1_q <= 1'b1;
                end else begin
                    ph1_q <= 1'b0;
                    k_q   <= k_q - {{(KW-2){1'b0}}, pr, !pr};
                    if (last_is) stream_q <= 1'b0;
                end
            end
        end
        // cycles since the last read or token (idle_o)
        if (rst_i || abort_i)
            fl_q <= {FW{1'b0}};
        else if (issue || tok)
            fl_q <= FL_N;
        else if (fl_q != {FW{1'b0}})
            fl_q <= fl_q - {{(FW-1){1'b0}}, 1'b1};
    end

    // the head entry's fields load in every cycle it is free, pushed or not:
    // only the valid bit waits for push_i (timing: the sequencer's decision --
    // register compares, traps -- drives one flip-flop, not the enables of
    // ~70; a field loaded without a push is never used). CHAIN: or from the
    // second entry moving up (hd_up)
    wire hd_up, hd_load;
    always @(posedge clk_i) begin
        if (hd_load) begin
            pk_q  <= hd_up ? k1  : kind_i;
            pa_q  <= hd_up ? a1  : a_addr_i;
            pb_q  <= hd_up ? b1  : b_addr_i;
            pao_q <= hd_up ? ao1 : a_over_i;
            pbo_q <= hd_up ? bo1 : b_over_i;
            pkk_q <= hd_up ? kk1 : k_i;
            ppc_q <= hd_up ? pc1 : pc_i;
        end
    end
    generate
        if (CHAIN == 0) begin : g_q1
            always @(posedge clk_i) begin
                if (rst_i || abort_i || bad) pv_q <= 1'b0;
                else if (push_i)             pv_q <= 1'b1;
                else if (launch)             pv_q <= 1'b0;
            end
            assign hd_up   = 1'b0;
            assign hd_load = accept_o;
            wire unused_pr = pair_ride;    // (pair is 0 without CHAIN)
            assign v1 = 1'b0;
            assign k1 = K_MM;
            assign a1 = {AW{1'b0}};
            assign b1 = {AW{1'b0}};
            assign ao1 = 1'b0;
            assign bo1 = 1'b0;
            assign kk1 = 32'd0;
            assign pc1 = {PCW{1'b0}};
            assign ride = 1'b0;
            assign ride_st = 1'b0;
        end else begin : g_q2
            // two entries, head first: after this cycle's launch (none, the
            // head, or head and second for a pair) the rest moves up, and a
            // push goes to the first free entry
            reg           v1_q, ride_q, ride_st_q;
            reg [1:0]     k1_q;
            reg [AW-1:0]  a1_q, b1_q;
            reg           ao1_q, bo1_q;
            reg [31:0]    kk1_q;
            reg [PCW-1:0] pc1_q;
            wire r0 = pair ? 1'b0 : launch ? v1_q : pv_q;   // head valid after the launch
            wire r1 = !launch && v1_q;
            assign hd_up   = launch && !pair && v1_q;
            assign hd_load = hd_up || !r0;              // ... or a push into a free head
            always @(posedge clk_i) begin
                if (rst_i || abort_i || bad) begin
                    pv_q   <= 1'b0;
                    v1_q   <= 1'b0;
                    ride_q <= 1'b0;
                end else begin
                    pv_q <= r0 || push_i;
                    v1_q <= r1 || (push_i && r0);
                    if (pair_ride)  ride_q <= 1'b1;
                    else if (issue) ride_q <= 1'b0;
                end
                if (pair_ride) ride_st_q <= (pk_q == K_ST);
                // a push into a free second entry
                if (r0 && !r1) begin
                    k1_q  <= kind_i;
                    a1_q  <= a_addr_i;
                    b1_q  <= b_addr_i;
                    ao1_q <= a_over_i;
                    bo1_q <= b_over_i;
                    kk1_q <= k_i;
                    pc1_q <= pc_i;
                end
            end
            assign v1 = v1_q;
            assign k1 = k1_q;
            assign a1 = a1_q;
            assign b1 = b1_q;
            assign ao1 = ao1_q;
            assign bo1 = bo1_q;
            assign kk1 = kk1_q;
            assign pc1 = pc1_q;
            assign ride = ride_q;
            assign ride_st = ride_st_q;
        end
    endgenerate
    // the destination of the st that launches (alone or paired)
    always @(posedge clk_i)
        if (launch && pk_q == K_ST) st_addr_o <= pa_q;

    // the addresses after this issue, with the carry out (a pair: two words)
    wire [AW:0] a_sum, b_sum;
    // PAIR: the words on the bus in this half of the cycle (see the header)
    wire [DW-1:0] a_fast, b_fast;
    generate
        if (PAIR != 0) begin : g_pair
            // a pair's strides are one word, so a + 2 * stride = a + stride +
            // one word: the adders' carry-in at the word bit, entered as a
            // 1 + 1 below it (the byte offset bits of an mm's addresses and
            // strides are zero: misaligned ones trap before the push)
            wire [AW-OFF+1:0] as2 = {1'b0, a_q[AW-1:OFF], pr} + {1'b0, as_q[AW-1:OFF], pr};
            wire [AW-OFF+1:0] bs2 = {1'b0, b_q[AW-1:OFF], pr} + {1'b0, bs_q[AW-1:OFF], pr};
            assign a_sum = {as2[AW-OFF+1:1], {OFF{1'b0}}};
            assign b_sum = {bs2[AW-OFF+1:1], {OFF{1'b0}}};
            wire unused_lo = &{1'b0, as2[0], bs2[0], a_q[OFF-1:0], b_q[OFF-1:0], as_q[OFF-1:0], bs_q[OFF-1:0]};
            // both strides one word, decided at launch
            localparam [AW-1:0] WB = WORD_BYTES[AW-1:0];
            reg sp_q;
            reg pq1_q;                  // a pair issued last cycle
            // k_q >= 2, kept in a flip-flop from compares on k_q beside its
            // decrement, so the pair decision does not wait for a compare of
            // k_q that the decrement then waits for (timing)
            reg k2_q;
            wire kq_ge4 = (k_q[KW-1:2] != {(KW-2){1'b0}});
            wire kq_ge3 = kq_ge4 || (k_q[1:0] == 2'd3);
            // the bus of the half-cycle an edge of clk2x_i begins: the
            // second half (ph_i low before the edge) carries last cycle's
            // step (inj_q; A from hold_q: inj_hold_q), the first half the
            // second words of the pair issued two cycles before (pq1_q
            // before the aligned edge)
            reg en_q = 1'b0, hs_q = 1'b0;
            always @(posedge clk_i) begin
                if (launch_mm)
                    sp_q <= (a_stride_i == WB) && (b_stride_i == WB) && !sa_over_i && !sb_over_i;
                if (rst_i || abort_i) pq1_q <= 1'b0;
                else                  pq1_q <= pr;
                if (rst_i || abort_i || bad) k2_q <= 1'b0;
                else if (launch_mm)          k2_q <= (k_init[KW-1:1] != {(KW-1){1'b0}});
                else if (issue)              k2_q <= pr ? kq_ge4 : kq_ge3;
            end
            always @(posedge clk2x_i) begin
                en_q <= ph_i ? pq1_q : inj_q;
                hs_q <= !ph_i && inj_hold_q;
            end
            assign pr = sp_q && !a_q[OFF] && !b_q[OFF] && !conflict && k2_q && stream_q && !ph1_q && !bad;
            assign a_fast = {DW{en_q}} & (hs_q ? hold_q : a_rdata_i);
            assign b_fast = {DW{en_q}} & b_rdata_i;
            initial
                if (BF16 != 0 || MX != 0 || CHAIN != 0 || BROADCAST == 0) begin
                    $display("spu_load_unit: PAIR needs int8 only, BROADCAST and no CHAIN");
                    $finish;
                end
        end else begin : g_single
            assign a_sum = {1'b0, a_q} + {1'b0, as_q};
            assign b_sum = {1'b0, b_q} + {1'b0, bs_q};
            assign pr = 1'b0;
            assign a_fast = {DW{1'b0}};
            assign b_fast = {DW{1'b0}};
            wire unused_fast = &{1'b0, clk2x_i, ph_i, a_fast, b_fast};
        end
    endgenerate
    // addresses advance per issued step; the A word of a same-bank step is
    // parked in hold_q the cycle its data returns (the B read is then issued)
    always @(posedge clk_i) begin
        if (launch_mm) begin
            a_q  <= src_a;
            b_q  <= src_b;
            as_q <= a_stride_i;
            bs_q <= b_stride_i;
            pc_q <= src_pc;
            a_over_q  <= src_ao;
            b_over_q  <= src_bo;
            sa_over_q <= sa_over_i;
            sb_over_q <= sb_over_i;
        end else if (issue) begin
            a_q <= a_sum[AW-1:0];
            b_q <= b_sum[AW-1:0];
            a_over_q <= a_over_q || a_sum[AW] || sa_over_q;
            b_over_q <= b_over_q || b_sum[AW] || sb_over_q;
        end
        if (ph1_q) hold_q <= a_rdata_i;
    end

    // the words read by the step issued last cycle (zeros when none)
    wire [DW-1:0] a_raw = !inj_q ? {DW{1'b0}} : (inj_hold_q ? hold_q : a_rdata_i);
    wire [DW-1:0] b_raw = !inj_q ? {DW{1'b0}} : b_rdata_i;
    // MX: the word issued now is a block's scale word (after 32 element
    // words, or the mm's last word); it enters the skew next cycle
    wire mk_mx;
    // the words entering the word selection below: a_raw / b_raw, an element
    // word of mxfp6 / mxfp4 widened to e4m3 codes
    wire [DW-1:0] a_src, b_src;
    generate
        if (MX != 0) begin : g_mx
            reg [5:0] mxc_q;                 // element words issued in this block
            reg       mxs_q;                 // the word arriving now is a scale word
            wire      scale_w = (mxc_q == 6'd32) || last_k;
            always @(posedge clk_i) begin
                if (rst_i || abort_i || bad) begin
                    mxc_q <= 6'd0;
                    mxs_q <= 1'b0;
                end else begin
                    mxs_q <= issue && mx && scale_w;
                    if (launch_mm)
                        mxc_q <= 6'd0;
                    else if (issue)
                        mxc_q <= scale_w ? 6'd0 : mxc_q + 6'd1;
                end
            end
            assign mk_mx = mxs_q;
        end else begin : g_nomx
            assign mk_mx = 1'b0;
            wire unused_mx = mx;
        end
        if (MX != 0 && NARROW != 0) begin : g_narrow
            // e4m3 code (bias 7) of an e3m2 (bias 3) / e2m3 (bias 1) / e2m1
            // (bias 1) code: a normal keeps its value with the exponent
            // rebiased and the mantissa left-aligned; a subnormal is normalized
            // (the e4m3 exponent of its leading one, the bits below it as the
            // mantissa); zero stays zero, the sign stays
            function [7:0] widen(input [5:0] c, input [3:0] f);   // c: the low 6 bits of the byte
                reg [2:0] e;
                reg [2:0] m;
                reg       s;
                begin
                    if (f == DT_MXFP6_E3M2) begin
                        s = c[5]; e = c[4:2]; m = {c[1:0], 1'b0};
                        if (e != 3'd0)       widen = {s, {1'b0, e} + 4'd4, m};
                        else if (c[1])       widen = {s, 4'd4, c[0], 2'b00};    // 2/16, 3/16
                        else if (c[0])       widen = {s, 4'd3, 3'd0};           // 1/16
                        else                 widen = {s, 7'd0};
                    end else if (f == DT_MXFP6_E2M3) begin
                        s = c[5]; e = {1'b0, c[4:3]}; m = c[2:0];
                        if (e != 3'd0)       widen = {s, {1'b0, e} + 4'd6, m};
                        else if (m[2])       widen = {s, 4'd6, m[1:0], 1'b0};   // 4/8 .. 7/8
                        else if (m[1])       widen = {s, 4'd5, m[0], 2'b00};    // 2/8, 3/8
                        else if (m[0])       widen = {s, 4'd4, 3'd0};           // 1/8
                        else                 widen = {s, 7'd0};
                    end else begin           // e2m1
                        s = c[3]; e = {1'b0, c[2:1]}; m = {c[0], 2'b00};
                        if (e != 3'd0)       widen = {s, {1'b0, e} + 4'd6, m};
                        else if (c[0])       widen = {s, 4'd6, 3'd0};           // 1/2
                        else                 widen = {s, 7'd0};
                    end
                end
            endfunction
            // widened only in a cycle that injects a narrow element word (inj_q:
            // a_raw / b_raw are zero otherwise, and widen(0) = 0), inside an
            // always block, so that a Verilated model does not run the 16
            // widenings on every clock (docs/sim.md "Speed")
            reg [DW-1:0] a_w, b_w;
            integer w;
            always @* begin
                a_w = a_raw;
                b_w = b_raw;
                w   = 0;      // loop variable assigned on every path: no latch
                if (inj_q && nw && !mk_mx)
                    for (w = 0; w < WORD_BYTES; w = w + 1) begin
                        a_w[w*8 +: 8] = widen(a_raw[w*8 +: 6], fmt_i);
                        b_w[w*8 +: 8] = widen(b_raw[w*8 +: 6], fmt_i);
                    end
            end
            assign a_src = a_w;
            assign b_src = b_w;
        end else begin : g_wide
            assign a_src = a_raw;
            assign b_src = b_raw;
            wire unused_nw = nw;
        end
    endgenerate

    // word entering the skew this cycle (zeros when none)
    wire [DW-1:0] a_word, b_word;
    generate
        if (BF16 != 0) begin : g_bf16
            // a pair's second word issues now: its first enters (held, or
            // arriving now when the pair issued back to back); a first word
            // arriving is held, not injected
            reg          sub_q, inj_first_q;
            reg [DW-1:0] fa_q, fb_q;         // a pair's first words, held
            always @(posedge clk_i) begin
                if (rst_i || abort_i || bad) begin
                    sub_q       <= 1'b0;
                    inj_first_q <= 1'b0;
                end else begin
                    inj_first_q <= issue && bf && !sub_q;
                    if (launch_mm)
                        sub_q <= 1'b0;
                    else if (issue && bf)
                        sub_q <= !sub_q;
                end
                if (inj_q && inj_first_q) begin
                    fa_q <= a_src;
                    fb_q <= b_src;
                end
            end
            assign sub       = sub_q;
            assign inj_first = inj_first_q;
            wire second = issue && bf && sub;
            assign a_word = second ? (inj_first ? a_src : fa_q)
                          : (inj_first ? {DW{1'b0}} : a_src);
            assign b_word = second ? (inj_first ? b_src : fb_q)
                          : (inj_first ? {DW{1'b0}} : b_src);
            assign mk_o   = second | mk_mx;
        end else begin : g_int
            assign sub       = 1'b0;
            assign inj_first = 1'b0;
            wire unused_bf = bf ^ sub ^ inj_first ^ (|fmt_i);
            assign a_word = a_src;
            assign b_word = b_src;
            assign mk_o   = mk_mx;
        end
    endgenerate

    // triangular delay lines: row i / column j delayed i / j cycles
    genvar g;
    generate
        for (g = 0; g < ROWS; g = g + 1) begin : g_west
            if (g == 0 || BROADCAST != 0) begin : g_direct
                assign west_o[g*8 +: 8] = (PAIR != 0) ? a_fast[g*8 +: 8] : a_word[g*8 +: 8];
            end else begin : g_delay
                reg [g*8-1:0] line_q;
                // line_q[7:0] is the newest byte; a wider line shifts up by one byte
                wire [g*8+7:0] nxt = {line_q, a_word[g*8 +: 8]};
                always @(posedge clk_i) begin
                    if (rst_i) line_q <= {g*8{1'b0}};
                    else       line_q <= nxt[g*8-1:0] ;
                end
                assign west_o[g*8 +: 8] = nxt[g*8+7 -: 8];   // = oldest byte of line_q
            end
        end
        for (g = 0; g < COLS; g = g + 1) begin : g_north
            if (g == 0 || BROADCAST != 0) begin : g_direct
                assign north_o[g*8 +: 8] = (PAIR != 0) ? b_fast[g*8 +: 8] : b_word[g*8 +: 8];
            end else begin : g_delay
                reg [g*8-1:0] line_q;
                // line_q[7:0] is the newest byte; a wider line shifts up by one byte
                wire [g*8+7:0] nxt = {line_q, b_word[g*8 +: 8]};
                always @(posedge clk_i) begin
                    if (rst_i) line_q <= {g*8{1'b0}};
                    else       line_q <= nxt[g*8-1:0];
                end
                assign north_o[g*8 +: 8] = nxt[g*8+7 -: 8];
            end
        end
    endgenerate
endmodule
`default_nettype wire
