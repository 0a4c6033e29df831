// spu_spad -- banked scratchpad: SPAD_BANKS banks of WORD_BYTES-wide words,
// bank = byte address / (SPAD_BYTES / SPAD_BANKS) (the high address bits).
// Each bank is one spu_ram_1r1w (1 read + 1 write port per cycle).
//
// Drive: two read ports, A and B, give one word each per cycle provided they
// address DIFFERENT banks (the load unit serializes a same-bank pair; when both
// hit one bank, port A wins and port B's data is that of A). Read data comes
// one cycle after the request and is held until the next read of the same
// port. One write port with byte enables. Addresses are WORD addresses
// (byte address / WORD_BYTES), WA bits.
// Geometry must be powers of two with SPAD_BANKS >= 2.
//
// WR_WORDS > 1 (a power of two; the drain unit's widest group, spu_core):
// the write port takes WR_WORDS consecutive words in one cycle, word w at
// waddr_i + w with its bytes at wdata_i[w*WORD_BYTES*8 ..] and enables
// wbe_i[w*WORD_BYTES ..] (a word with no enable is not written; the words
// may lie in two banks). Each bank is then WR_WORDS word-interleaved
// sub-banks (sub-bank = word address mod WR_WORDS), so any WR_WORDS
// consecutive words are in different sub-banks; a read reads every sub-bank
// of its bank at the word's row and keeps the one it addressed. Reads and
// their timing are unchanged. WR_WORDS = 1 is the plain bank above (the
// boards).
//
// SPRAM = 1 (the iCEBreaker: docs/rtl.md "Scratchpad in SPRAM"): each bank is
// one spu_spram (WORD_BYTES / 2 UP5K SPRAM blocks side by side, a bank at
// most 16K words), a SINGLE port: one read or one write per cycle. A write
// and a read of the same bank in one cycle: the write is done and that
// read's data is undefined. spu_core never issues such a pair (an mm waits
// for the drain's writes, the host port and bias wait for the drain, no
// vector unit); rdata holds until the next read or write of its bank.
`default_nettype none
module spu_spad #(
    parameter integer WORD_BYTES = 8,
    parameter integer SPAD_BYTES = 262144,
    parameter integer SPAD_BANKS = 4,
    parameter integer SPRAM      = 0,     // 1: banks in UP5K SPRAM (single port)
    parameter integer WR_WORDS   = 1,     // words per write (sub-banks per bank); SPRAM needs 1
    parameter integer MID        = 0,     // SPRAM: 1 = the request registered, taken mid-cycle on clk2x_i (spu_spram MID)
    parameter integer WA         = $clog2(SPAD_BYTES / WORD_BYTES)
) (
    input  wire                    clk_i,
    input  wire                    clk2x_i,   // MID: twice clk_i, rising edges aligned (spu_spram)
    input  wire                    ph_i,      // MID: 0 in clk2x_i's first cycle after a clk_i edge (spu_core)
    input  wire                    pair_i,    // MID: ports A and B also read the next word (spu_spram pair_i)
    input  wire                    a_re_i,
    input  wire [WA-1:0]           a_addr_i,
    output wire [WORD_BYTES*8-1:0] a_rdata_o,
    input  wire                    b_re_i,
    input  wire [WA-1:0]           b_addr_i,
    output wire [WORD_BYTES*8-1:0] b_rdata_o,
    input  wire                    we_i,
    input  wire [WA-1:0]           waddr_i,
    input  wire [WR_WORDS*WORD_BYTES*8-1:0] wdata_i,
    input  wire [WR_WORDS*WORD_BYTES-1:0]   wbe_i
`ifdef SPU_CORE_CLOCK_GATE
    ,
    // simulation with the core clock gate only (spu_spad_bank_gated): ports
    // A and B are the units' and registered on core_clk_i; the host reads
    // through port H, registered on clk_i
    input  wire                    core_clk_i,
    input  wire                    h_re_i,
    input  wire [WA-1:0]           h_addr_i,
    output wire [WORD_BYTES*8-1:0] h_rdata_o
`endif
);
    localparam integer BKW   = $clog2(SPAD_BANKS);   // bank bits
    localparam integer BAW   = WA - BKW;             // word-in-bank bits
    localparam integer DW    = WORD_BYTES * 8;

    wire [BKW-1:0] a_bank = a_addr_i[WA-1 -: BKW];
    wire [BKW-1:0] b_bank = b_addr_i[WA-1 -: BKW];
    wire [BKW-1:0] w_bank = waddr_i[WA-1 -: BKW];

`ifdef SPU_CORE_CLOCK_GATE
    wire rd_clk = core_clk_i;
`else
    wire rd_clk = clk_i;
`endif

    // which bank's output each port looks at, registered with the read
    reg [BKW-1:0] a_sel_q, b_sel_q;
    always @(posedge rd_clk) begin
        if (a_re_i) a_sel_q <= a_bank;
        if (b_re_i) b_sel_q <= b_bank;
    end

    wire [SPAD_BANKS*DW-1:0] bank_rdata;
`ifdef SPU_CORE_CLOCK_GATE
    wire [BKW-1:0] h_bank = h_addr_i[WA-1 -: BKW];
    reg  [BKW-1:0] h_sel_q;
    always @(posedge clk_i)
        if (h_re_i) h_sel_q <= h_bank;
    wire [SPAD_BANKS*DW-1:0] bank_h_rdata;
    assign h_rdata_o = bank_h_rdata[h_sel_q*DW +: DW];
    initial
        if (SPRAM != 0) begin
            $display("spu_spad: SPU_CORE_CLOCK_GATE needs SPRAM = 0");
            $finish;
        end
`endif
    initial
        if (WR_WORDS > 1 && SPRAM != 0) begin
            $display("spu_spad: WR_WORDS > 1 needs SPRAM = 0");
            $finish;
        end

    // MID: a pair's second words (spu_spram pair_i) come in the first half
    // of the cycle after its first, from the banks the pair read, which the
    // port's bank select named in the cycle before (a_sel_q may already name
    // the next read's bank): the select the port's data uses is a_sel_q
    // taken at every edge of clk2x_i, half a cycle behind it -- in the
    // second half, where the units take the port's data, it is a_sel_q
    wire           ph = (SPRAM != 0 && MID != 0) ? ph_i : 1'b1;
    wire [BKW-1:0] a_osel, b_osel;
    generate
        if (SPRAM != 0 && MID != 0) begin : g_sel2
            reg [BKW-1:0] a_osel_q, b_osel_q;
            always @(posedge clk2x_i) begin
                a_osel_q <= a_sel_q;
                b_osel_q <= b_sel_q;
            end
            assign a_osel = a_osel_q;
            assign b_osel = b_osel_q;
        end else begin : g_sel1
            assign a_osel = a_sel_q;
            assign b_osel = b_sel_q;
            wire unused_clk2x = &{1'b0, clk2x_i, pair_i, ph};
        end
    endgenerate

    genvar g;
    generate
        for (g = 0; g < SPAD_BANKS; g = g + 1) begin : g_bank
            wire a_hit = a_re_i && (a_bank == g[BKW-1:0]);
            wire b_hit = b_re_i && (b_bank == g[BKW-1:0]);
            wire [BAW-1:0] r_addr = a_hit ? a_addr_i[BAW-1:0] : b_addr_i[BAW-1:0];
`ifdef SPU_CORE_CLOCK_GATE
            // the simulation: one memory per bank that takes its words of the
            // write itself, for any WR_WORDS (spu_spad_bank_gated)
            wire unused_w_bank = &{1'b0, w_bank};
            spu_spad_bank_gated #(.WIDTH(DW), .DEPTH(1 << BAW), .WR_WORDS(WR_WORDS), .BANK(g), .WA(WA)) u_ram (
                .clk_i    (clk_i),
                .core_clk_i(core_clk_i),
                .we_i     (we_i),
                .wbe_i    (wbe_i),
                .waddr_i  (waddr_i),
                .wdata_i  (wdata_i),
                .re_i     (a_hit || b_hit),
                .raddr_i  (r_addr),
                .rdata_o  (bank_rdata[g*DW +: DW]),
                .h_re_i   (h_re_i && (h_bank == g[BKW-1:0])),
                .h_raddr_i(h_addr_i[BAW-1:0]),
                .h_rdata_o(bank_h_rdata[g*DW +: DW])
            );
`else
            wire w_hit = we_i && (w_bank == g[BKW-1:0]);
            if (SPRAM != 0) begin : g_sp
                spu_spram #(.WIDTH(DW), .AW(BAW), .MID(MID)) u_ram (
                    .clk_i  (clk_i),
                    .clk2x_i(clk2x_i),
                    .ph_i   (ph),
                    .pair_i (pair_i && (a_hit || b_hit)),
                    .en_i   (w_hit || a_hit || b_hit),
                    .we_i   (w_hit),
                    .be_i   (wbe_i),
                    .addr_i (w_hit ? waddr_i[BAW-1:0] : r_addr),
                    .wdata_i(wdata_i),
                    .rdata_o(bank_rdata[g*DW +: DW])
                );
            end else if (WR_WORDS > 1) begin : g_wide
                // sub-bank r takes the write's word l = (r - waddr) mod
                // WR_WORDS (when that word is in this bank), at row (its word
                // address) / WR_WORDS of the bank
                localparam integer LG  = $clog2(WR_WORDS);
                localparam integer SAW = BAW - LG;
                genvar r;
                wire [LG-1:0]  w_lo = waddr_i[LG-1:0];
                wire unused_w_hit = &{1'b0, w_hit};   // each word's own bank is used
                reg  [LG-1:0]  r_sel_q;               // sub-bank of the last read
                always @(posedge rd_clk)
                    if (a_hit || b_hit) r_sel_q <= r_addr[LG-1:0];
                wire [WR_WORDS*DW-1:0] sub_rdata;
                assign bank_rdata[g*DW +: DW] = sub_rdata[r_sel_q*DW +: DW];
                for (r = 0; r < WR_WORDS; r = r + 1) begin : g_sub
                    localparam [LG-1:0]   RL = r;
                    wire [LG-1:0]         l  = RL - w_lo;          // the write's word for this sub-bank
                    wire [WA-1:0]         wa = waddr_i + {{(WA-LG){1'b0}}, l};
                    wire [WORD_BYTES-1:0] be = wbe_i[l*WORD_BYTES +: WORD_BYTES];
                    wire s_hit = we_i && (be != {WORD_BYTES{1'b0}}) && (wa[WA-1 -: BKW] == g[BKW-1:0]);
                    wire unused_wa = &{1'b0, wa[LG-1:0]};   // = r
                    spu_ram_1r1w #(.WIDTH(DW), .DEPTH(1 << SAW)) u_ram (
                        .clk_i  (clk_i),
                        .we_i   (s_hit),
                        .wbe_i  (be),
                        .waddr_i(wa[BAW-1:LG]),
                        .wdata_i(wdata_i[l*DW +: DW]),
                        .re_i   (a_hit || b_hit),
                        .raddr_i(r_addr[BAW-1:LG]),
                        .rdata_o(sub_rdata[r*DW +: DW])
                    );
                end
            end else begin : g_ebr
                spu_ram_1r1w #(.WIDTH(DW), .DEPTH(1 << BAW)) u_ram (
                    .clk_i  (clk_i),
                    .we_i   (w_hit),
                    .wbe_i  (wbe_i),
                    .waddr_i(waddr_i[BAW-1:0]),
                    .wdata_i(wdata_i),
                    .re_i   (a_hit || b_hit),
                    .raddr_i(r_addr),
                    .rdata_o(bank_rdata[g*DW +: DW])
                );
            end
`endif
        end
    endgenerate

    assign a_rdata_o = bank_rdata[a_osel*DW +: DW];
    assign b_rdata_o = bank_rdata[b_osel*DW +: DW];
endmodule
`default_nettype wire
