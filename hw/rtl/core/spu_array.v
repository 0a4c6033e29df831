// spu_array -- ROWS x COLS output-stationary systolic array. Tile (i,j)
// accumulates C[i][j]. A bytes enter at the west edge (row i on west_i byte i)
// and move one tile east per cycle; B bytes enter at the north edge (column j on
// north_i byte j) and move one tile south per cycle. The caller skews the edges
// (row i / column j delayed i / j cycles) so A[i][k] meets B[k][j] in tile
// (i,j), k + i + j + 1 cycles after step k is presented.
//
// BROADCAST = 1 replaces the systolic links by row and column buses: one
// operand register per row (A) and per column (B), and tile (i,j) multiplies
// row i's byte by column j's byte -- no per-tile operand registers (ROWS*COLS*16
// flip-flops fewer: what the small iCE40 boards use). The caller then presents
// the edges unskewed (spu_load_unit BROADCAST), every product of step k lands
// in the same cycle, and the mm cost is unchanged: the load unit still counts
// the skew cycles, by which time every product has landed (docs/rtl.md).
//
// Drive: present zeros when no k-step enters. clr_i[i*COLS+j] (RUN, and the
// zacc / st token's wave, spu_core) zeroes tile (i,j)'s accumulator in that
// cycle (its term that cycle is the token's zero word). CHAIN = 1 (the load
// unit's chained streams, spu_load_unit): the token may travel with the next
// block's first step, so a clearing tile starts from that cycle's term: its
// state becomes the step of an empty accumulator (0 + term, the term's flags;
// an MX element term into an empty block register); with a zero term that is
// the clear above. acc_o is every tile's accumulator register, tile (i,j) in
// the SLOT_W-bit slot at bits [(i*COLS+j)*SLOT_W +: SLOT_W] (a wide bus, not
// a mux: the drain unit snapshots it): the sum in the slot's low ACC_W bits
// and, when ACC_W > 32, its flags {ovf, ninf, pinf, nan} in the next 4, the
// rest zero. ACC_W = 32 (SLOT_W = 32) for a build that carries int8 only;
// 80 (SLOT_W = 96) with a float format in FORMATS (docs/numerics.md
// "Datapath numerics"), which also gives the tiles their flags. The slot is
// a whole number of 32-bit words so that a Verilated model reads and writes
// a tile's 64-bit low half as two aligned words (docs/sim.md "Speed").
// The operand registers live here, so the edge tiles carry no unused
// east/south outputs. USE_ICE40_DSP = 0: the tiles are one accumulator
// register file and a format-generic multiply-accumulate per tile (g_generic,
// FORMATS; behind the activity guard below). USE_ICE40_DSP = 1 (iCE40 UP5K,
// int8 only) gives each pair of tiles one spu_mul8x2 = one SB_MAC16 in 8x8
// mode feeding two spu_tile accumulators: the decoder traps every cfg whose
// `in` is not int8, so fmt_i is always int8 and the two paths give the same
// products.
//
// FAST = 1 (ARRAY_2X: the iCEBreaker's SPRAM build with USE_ICE40_DSP and
// BROADCAST; docs/rtl.md "ARRAY_2X"): the SB_MAC16s and the tile
// accumulators run on clk2x_i, twice clk_i, as do the row / column operand
// registers; the DSPs register the products (spu_mul8x2 REG). Each clk2x_i
// edge takes a step from west_i / north_i, which spu_load_unit (PAIR) changes at both
// edges: at the edge aligned with clk_i's (ph_i high before it) the step
// as before; at the edge mid-cycle (ph_i low) a pair's second step (zeros
// when none), presented in the first half of the cycle after the pair's
// first step. A product reaches its accumulator two clk2x_i edges after its
// operands are taken, so a step taken at the end of cycle c is in the tile
// at the end of cycle c + 1, as with FAST = 0, and a pair's second step
// half a cycle later. A clear (clr_i) acts half a cycle later than with one
// clock, at the edge mid-cycle after it.
//
// bf16 (FORMATS carries it; generic tiles only): a k-step's operands are two
// bytes, streamed as two words in adjacent cycles, low bytes first, and mk_i
// is high in the cycle a low word enters unskewed (spu_load_unit). Tile
// (i,j) holds a word for one cycle, and the tile it reads from (west / north
// neighbour, or the edge input) holds the next word in that same cycle, so
// in the cycle a low word sits in tile (i,j) -- mk_i delayed i + j + 1
// cycles (BROADCAST: 1) -- the tile has the whole pair: {neighbour's byte,
// own byte} is the bf16 operand. It adds the term then and nothing in the
// other cycle (docs/numerics.md "Datapath numerics": the product, exact,
// rounded to the 2^-32 grid, RNE; out of the register's range: ovf).
//
// MX (mxfp8 e4m3 / e5m2, mxint8; generic tiles with the wide accumulator
// only): the element words of a 32-element K block add their exact products
// into a per-tile block register (blk_q: e4m3 / e5m2 products on the 2^-32
// grid as above, mxint8 the integer products); mk_i marks the cycle the
// block's scale word enters (spu_load_unit), delayed i + j + 1 cycles like
// bf16's, so in the cycle the scale word sits in tile (i,j) -- row i's and
// column j's E8M0 bytes in its operand registers -- the tile adds the block
// register times 2^(sA + sB - 254) (mxint8: times 2^(sA + sB - 254 - 12)) to
// its accumulator, put on the 2^-32 grid by the bf16 rule (RNE below it,
// ovf at 2^(ACC_W-1) grid units), and clears the block register (mxs below;
// docs/numerics.md "MX on the array"). A scale byte 0xFF sets the NaN flag.
`default_nettype none
module spu_array #(
    parameter integer ROWS = 8,
    parameter integer COLS = 8,
    parameter integer USE_ICE40_DSP = 0,
    parameter integer BROADCAST = 0,
    parameter [31:0]  FORMATS = 32'h1,
    parameter integer ACC_W = 32,
    parameter integer CHAIN = 0,     // 1: a clearing tile keeps its term (generic tiles only)
    parameter integer SLOT_W = 32,   // bits per tile on acc_o: ACC_W = 32: 32; 80: 96 (spu_core)
    parameter integer FAST = 0       // 1: the DSPs and tiles on clk2x_i, two k-steps per cycle (ARRAY_2X, above)
) (
    input  wire                   clk_i,
    input  wire                   clk2x_i,    // FAST: twice clk_i, rising edges aligned (else unused)
    input  wire                   ph_i,       // FAST: 0 in clk2x_i's first cycle after a clk_i edge
    input  wire                   rst_i,
    input  wire [ROWS*COLS-1:0]   clr_i,
    input  wire [3:0]             fmt_i,
    input  wire [ROWS*8-1:0]      west_i,
    input  wire [COLS*8-1:0]      north_i,
    input  wire                   mk_i,       // bf16: a low word enters (unskewed) this cycle; MX: a scale word
    output wire [ROWS*COLS*SLOT_W-1:0] acc_o
);
`include "spu_isa.vh"
    localparam integer FP_LSB   = -32;   // weight 2^FP_LSB of the float accumulators' LSB
    // mxfp6 / mxfp4 elements arrive widened to e4m3 codes (spu_load_unit): mxfp8_e4m3's path
    localparam integer HAS_NRW  = ((FORMATS[{1'b0, DT_MXFP6_E3M2}] | FORMATS[{1'b0, DT_MXFP6_E2M3}] |
                                    FORMATS[{1'b0, DT_MXFP4_E2M1}]) != 1'b0) ? 1 : 0;
    localparam integer HAS_MX84 = (FORMATS[{1'b0, DT_MXFP8_E4M3}] != 1'b0 || HAS_NRW != 0) ? 1 : 0;
    localparam integer HAS_MX85 = (FORMATS[{1'b0, DT_MXFP8_E5M2}] != 1'b0) ? 1 : 0;
    localparam integer HAS_MXI8 = (FORMATS[{1'b0, DT_MXINT8}] != 1'b0) ? 1 : 0;
    localparam integer HAS_MX   = ((HAS_MX84 + HAS_MX85 + HAS_MXI8) != 0 && USE_ICE40_DSP == 0 && ACC_W > 32) ? 1 : 0;
    // the e4m3 / e5m2 multipliers: the format itself or its MX element type
    localparam integer HAS_E4M3 = (FORMATS[{1'b0, DT_E4M3}] != 1'b0 || HAS_MX84 != 0) ? 1 : 0;
    localparam integer HAS_E5M2 = (FORMATS[{1'b0, DT_E5M2}] != 1'b0 || HAS_MX85 != 0) ? 1 : 0;
    localparam integer HAS_BF16 = (FORMATS[{1'b0, DT_BF16}] != 1'b0 && USE_ICE40_DSP == 0 && ACC_W > 32) ? 1 : 0;
    localparam [7:0]   LSB8     = FP_LSB[7:0];
    // act: some operand register may hold a nonzero byte this cycle. Tile
    // (i,j)'s operands entered the edges at most NH cycles ago (NH = the
    // longer edge; BROADCAST: 1), so when no nonzero byte entered in the last
    // NH cycles every operand register is 0, every term is 0 (in every format:
    // +0 x +0) and the tiles and operand registers hold (op_en, act): the
    // same result, and a simulator skips the array (docs/sim.md "Speed").
    localparam integer NH = (BROADCAST != 0) ? 1 : ((ROWS > COLS) ? ROWS : COLS);
    wire in_nz = (|west_i) | (|north_i);
    reg  [NH:0] hist_q;                    // bit n: a nonzero byte entered n+1 cycles ago (bit NH unused)
    always @(posedge clk_i) begin
        if (rst_i) hist_q <= {(NH+1){1'b0}};
        else       hist_q <= {hist_q[NH-1:0], in_nz};
    end
    wire act   = |hist_q[NH-1:0];
    // (not on the UP5K's DSP path: its area is tight, and its tiles add every cycle)
    localparam integer GUARD = (USE_ICE40_DSP != 0 && ACC_W == 32) ? 0 : 1;
    wire op_en = (GUARD == 0) | in_nz | act;
    wire unused_h = hist_q[NH];
    // the operands tile (i,j) multiplies this cycle, at [(i*COLS+j)*8 +: 8]
    wire [ROWS*COLS*8-1:0] a_t, b_t;
    // bf16: the bytes the tile (i,j) reads from this cycle (its west / north
    // neighbour's register, or the edge input), and mk_i delayed to the tile
    wire [ROWS*COLS*8-1:0] a_u, b_u;
    wire [ROWS*COLS-1:0]   mk_t;
    wire                   mk_any;      // a marker is on its way to some tile
    genvar gi, gj, gp, gt;
    generate
        if (BROADCAST != 0) begin : g_bus
            // one register per row / column; tile (i,j) reads row i and column j
            // (FAST: the registers are on clk2x_i and take the bus at each of
            // its edges, spu_load_unit PAIR; the SB_MAC16s register the
            // products, spu_mul8x2 REG)
            wire [ROWS*8-1:0] ar_q;
            wire [COLS*8-1:0] bc_q;
            if (FAST != 0) begin : g_fast_bus
                reg [ROWS*8-1:0] ar_f;
                reg [COLS*8-1:0] bc_f;
                always @(posedge clk2x_i) begin
                    ar_f <= west_i;
                    bc_f <= north_i;
                end
                assign ar_q = ar_f;
                assign bc_q = bc_f;
                wire unused_en = op_en;
            end else begin : g_bus_q
                reg [ROWS*8-1:0] ar_r;
                reg [COLS*8-1:0] bc_r;
                always @(posedge clk_i) begin
                    if (rst_i) begin
                        ar_r <= {ROWS*8{1'b0}};
                        bc_r <= {COLS*8{1'b0}};
                    end else if (op_en) begin
                        ar_r <= west_i;
                        bc_r <= north_i;
                    end
                end
                assign ar_q = ar_r;
                assign bc_q = bc_r;
            end
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_r
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_c
                    assign a_t[(gi*COLS+gj)*8 +: 8] = ar_q[gi*8 +: 8];
                    assign b_t[(gi*COLS+gj)*8 +: 8] = bc_q[gj*8 +: 8];
                    assign a_u[(gi*COLS+gj)*8 +: 8] = west_i[gi*8 +: 8];
                    assign b_u[(gi*COLS+gj)*8 +: 8] = north_i[gj*8 +: 8];
                end
            end
        end else begin : g_systolic
            // operand register at the input of every tile; (i,0) loads from the
            // west edge, (i,j) from (i,j-1); (0,j) from the north edge, (i,j) from (i-1,j)
            reg [ROWS*COLS*8-1:0] a_q, b_q;
            integer i, j;
            always @(posedge clk_i) begin
                if (rst_i) begin
                    a_q <= {ROWS*COLS*8{1'b0}};
                    b_q <= {ROWS*COLS*8{1'b0}};
                end else if (op_en) begin
                    for (i = 0; i < ROWS; i = i + 1)
                        for (j = 0; j < COLS; j = j + 1) begin
                            a_q[(i*COLS+j)*8 +: 8] <= (j == 0) ? west_i[i*8 +: 8]
                                                               : a_q[(i*COLS+(j > 0 ? j-1 : 0))*8 +: 8];
                            b_q[(i*COLS+j)*8 +: 8] <= (i == 0) ? north_i[j*8 +: 8]
                                                               : b_q[((i > 0 ? i-1 : 0)*COLS+j)*8 +: 8];
                        end
                end
            end
            assign a_t = a_q;
            assign b_t = b_q;
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_r
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_c
                    if (gj == 0) begin : g_w
                        assign a_u[(gi*COLS+gj)*8 +: 8] = west_i[gi*8 +: 8];
                    end else begin : g_a
                        assign a_u[(gi*COLS+gj)*8 +: 8] = a_q[(gi*COLS+gj-1)*8 +: 8];
                    end
                    if (gi == 0) begin : g_n
                        assign b_u[(gi*COLS+gj)*8 +: 8] = north_i[gj*8 +: 8];
                    end else begin : g_b
                        assign b_u[(gi*COLS+gj)*8 +: 8] = b_q[((gi-1)*COLS+gj)*8 +: 8];
                    end
                end
            end
        end
    endgenerate

    // mk_i delayed: mk_q[n] = mk_i n + 1 cycles ago
    localparam integer MKN = (BROADCAST != 0) ? 1 : ROWS + COLS - 1;
    generate
        if (HAS_BF16 != 0 || HAS_MX != 0) begin : g_mk
            reg  [MKN-1:0] mk_q;
            wire [MKN:0]   mk_nx = {mk_q, mk_i};
            always @(posedge clk_i) begin
                if (rst_i) mk_q <= {MKN{1'b0}};
                else       mk_q <= mk_nx[MKN-1:0];
            end
            wire unused_mk = mk_nx[MKN];
            assign mk_any = |mk_q;
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_r
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_c
                    assign mk_t[gi*COLS+gj] = mk_q[(BROADCAST != 0) ? 0 : gi + gj];
                end
            end
        end else begin : g_nomk
            assign mk_t = {ROWS*COLS{1'b0}};
            assign mk_any = 1'b0;
            wire unused_mk = mk_i ^ (|a_u) ^ (|b_u) ^ (|mk_t);
        end
    endgenerate

    localparam integer NT = ROWS * COLS;
    generate
        if (FAST == 0) begin : g_one_clock
            wire unused_fast = &{1'b0, clk2x_i, ph_i};
        end
    endgenerate
    initial
        if (FAST != 0 && !(USE_ICE40_DSP != 0 && BROADCAST != 0 && ACC_W == 32 && CHAIN == 0)) begin
            $display("spu_array: FAST needs USE_ICE40_DSP, BROADCAST, ACC_W = 32 and CHAIN = 0");
            $finish;
        end
    generate
        if (USE_ICE40_DSP != 0 && ACC_W == 32) begin : g_dsp   // int8-only builds
            wire [NT*ACC_W-1:0] prod;
            // FAST: the DSPs and the accumulators on clk2x_i. clr_i (and
            // rst_i) is registered at the system edge and a tile clears at
            // the clk2x_i edge mid-cycle after it (ph_i low before it), half
            // a cycle later than with one clock: the term it drops there is
            // a pair's second step of the clearing slot, zero, and the
            // next slot's first product lands at the following edge. So the
            // path from the system side is one flip-flop and one LUT to the
            // tiles' reset pins (timing: half a cycle between the clocks)
            wire fclk = (FAST != 0) ? clk2x_i : clk_i;
            wire [NT-1:0] tclr;
            wire          trst;
            if (FAST != 0) begin : g_fclr
                reg [NT-1:0] clr_s_q;
                always @(posedge clk_i) clr_s_q <= clr_i | {NT{rst_i}};
                assign tclr = clr_s_q & {NT{!ph_i}};
                assign trst = 1'b0;
            end else begin : g_clr
                assign tclr = clr_i;
                assign trst = rst_i;
            end
            // tiles 2p and 2p+1 (row-major) share one DSP block
            for (gp = 0; gp < (NT + 1) / 2; gp = gp + 1) begin : g_pair
                localparam integer T1 = (2 * gp + 1 < NT) ? 2 * gp + 1 : 2 * gp;
                wire [15:0] p0, p1;
                spu_mul8x2 #(.USE_ICE40_DSP(1), .REG(FAST)) u_mul (
                    .clk_i(fclk),
                    .a0_i(a_t[(2*gp)*8 +: 8]), .b0_i(b_t[(2*gp)*8 +: 8]),
                    .a1_i(a_t[T1*8 +: 8]),     .b1_i(b_t[T1*8 +: 8]),
                    .p0_o(p0), .p1_o(p1)
                );
                assign prod[(2*gp)*ACC_W +: ACC_W] = {{(ACC_W-16){p0[15]}}, p0};
                if (T1 != 2 * gp) begin : g_second
                    assign prod[T1*ACC_W +: ACC_W] = {{(ACC_W-16){p1[15]}}, p1};
                end else begin : g_odd
                    wire [15:0] unused_p1 = p1;
                end
            end
            wire [3:0] unused_fmt = fmt_i;
            wire       unused_act = act ^ mk_any;
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_row
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_col
                    localparam integer T = gi * COLS + gj;
                    spu_tile #(.ACC_W(ACC_W)) u_tile (
                        .clk_i(fclk), .rst_i(trst), .clr_i(tclr[T]),
                        .term_i(prod[T*ACC_W +: ACC_W]),
                        .acc_o (acc_o[T*SLOT_W +: ACC_W])
                    );
                end
            end
        end else begin : g_generic
            // The tiles as one register file: tile t = i*COLS+j keeps its
            // accumulator at acc_q[t*ACC_W +: ACC_W] (ACC_W = 32) or, with a
            // float format, its slot st_q[t*SLOT_W +: SLOT_W] = {0, flags
            // {ovf, ninf, pinf, nan}, accumulator} (acc_o is this register
            // itself: no bus to assemble). Per tile and cycle: clr_i[t]
            // zeroes it (and drops the term); else, when act, the product of
            // its operand pair in format fmt_i is added (mac / prod32 below:
            // docs/numerics.md "Datapath numerics").
            if (ACC_W == 32) begin : g_acc32
                reg [NT*ACC_W-1:0] acc_q;
                integer t;
                always @(posedge clk_i) begin
                    if (rst_i) begin
                        acc_q <= {NT*ACC_W{1'b0}};
                    end else if (act || (|clr_i)) begin
                        for (t = 0; t < NT; t = t + 1)
                            if (clr_i[t])
                                acc_q[t*ACC_W +: ACC_W] <= (CHAIN != 0 && act) ? prod32(a_t[t*8 +: 8], b_t[t*8 +: 8])
                                                                              : 32'd0;
                            else if (act)
                                acc_q[t*ACC_W +: ACC_W] <= acc_q[t*ACC_W +: ACC_W]
                                                         + prod32(a_t[t*8 +: 8], b_t[t*8 +: 8]);
                    end
                end
                assign acc_o = acc_q;
                wire [3:0] unused_fmt = fmt_i;
                wire       unused_mka = mk_any;
            end else begin : g_accw
                // tile t's slot: accumulator at st_q[t*SLOT_W +: ACC_W], flags at
                // st_q[t*SLOT_W + ACC_W +: 4] (SLOT_W >= ACC_W + 4, a multiple of 32)
                reg [NT*SLOT_W-1:0] st_q;
                // bf16: a tile on the edge reads the edge input itself, so a
                // nonzero byte entering now matters too
                // MX: a scale word (even an all-zero one) reaches its tiles
                wire mac_en = act | ((HAS_BF16 != 0) & in_nz) | ((HAS_MX != 0) & mk_any);
                wire is_nrw = (fmt_i == DT_MXFP6_E3M2) || (fmt_i == DT_MXFP6_E2M3) || (fmt_i == DT_MXFP4_E2M1);
                wire is_mx  = (HAS_MX != 0) && ((fmt_i == DT_MXFP8_E4M3) || (fmt_i == DT_MXFP8_E5M2) ||
                                                (fmt_i == DT_MXINT8) || is_nrw);
                wire is_mi8 = (fmt_i == DT_MXINT8);
                wire unused_mx = is_mx ^ is_mi8 ^ (|efmt);
                // the element format of an MX dtype (the mac's multiplier)
                wire [3:0] efmt = ((fmt_i == DT_MXFP8_E4M3) || is_nrw) ? DT_E4M3
                                : (fmt_i == DT_MXFP8_E5M2) ? DT_E5M2 : DT_INT8;
            // One multiply-accumulate step (ACC_W > 32): state {ovf, ninf, pinf, nan,
            // acc} -> the next state. The float product is spu_mul_fp's exact product
            // (value (-1)^sgn * sig * 2^ex, ex the signed exponent of sig's LSB;
            // biased exponent 0 counts as 1: subnormals), shifted onto the grid; its
            // magnitude is below 2^64 (every e4m3 / e5m2 product is an integer multiple
            // of 2^FP_LSB = 2^-32 and below 2^32), so it is formed in 64 bits and added
            // or subtracted (the same ACC_W-bit sum as adding the two's-complement term).
            // bf16 (au, bu: the neighbour's bytes, mk: the pair is complete this
            // cycle): the exact product p * 2^(ex), p the 16-bit significand
            // product, rounded to the grid (RNE) when below it; a term of 2^(ACC_W-1)
            // grid units or more does not fit: ovf, no add.
            function [ACC_W+3:0] mac(input [ACC_W+3:0] st, input [3:0] fmt,
                                     input [7:0] a, input [7:0] b,
                                     input [7:0] au, input [7:0] bu, input mk);
                reg [ACC_W-1:0] acc, sum, magw;
                reg [ACC_W+15:0] wide;
                reg [31:0]      qf;
                reg [15:0]      x, y, p16;
                reg [9:0]       es, bsh, nsh;
                reg [7:0]       xs, ys;
                reg             xn, yn, xi, yi, xz, yz, rup, povf;
                reg [63:0]      mag;
                reg [15:0]      p;
                reg [7:0]       sig, sh;
                reg [4:0]       ae, be;
                reg [3:0]       as, bs;
                reg             sgn, pnan, pinf, an, bn, ai, bi, tneg, ovf;
                begin
                    acc  = st[ACC_W-1:0];
                    sgn  = a[7] ^ b[7];
                    pnan = 1'b0;
                    pinf = 1'b0;
                    mag  = 64'd0;
                    tneg = 1'b0;
                    if (fmt == DT_INT8) begin
                        p    = $signed(a) * $signed(b);
                        tneg = p[15];
                        mag  = {48'd0, tneg ? -p : p};
                    end else if (fmt == DT_E4M3 && HAS_E4M3 != 0) begin
                        // 1.4.3, bias 7; NaN = S.1111.111; no Inf
                        ae   = {1'b0, a[6:3] | {3'd0, ~(|a[6:3])}};
                        be   = {1'b0, b[6:3] | {3'd0, ~(|b[6:3])}};
                        as   = {|a[6:3], a[2:0]};
                        bs   = {|b[6:3], b[2:0]};
                        pnan = (&a[6:0]) | (&b[6:0]);
                        sig  = {4'd0, as} * {4'd0, bs};
                        sh   = {3'd0, ae} + {3'd0, be} - 8'd20 - LSB8;   // ex = ae + be - 2 x (bias + 3)
                        mag  = pnan ? 64'd0 : ({56'd0, sig} << sh);
                        tneg = sgn & (mag != 64'd0);
                    end else if (fmt == DT_E5M2 && HAS_E5M2 != 0) begin
                        // 1.5.2, bias 15; IEEE Inf / NaN
                        ae   = a[6:2] | {4'd0, ~(|a[6:2])};
                        be   = b[6:2] | {4'd0, ~(|b[6:2])};
                        as   = {1'b0, |a[6:2], a[1:0]};
                        bs   = {1'b0, |b[6:2], b[1:0]};
                        an   = (&a[6:2]) & (|a[1:0]);
                        bn   = (&b[6:2]) & (|b[1:0]);
                        ai   = (&a[6:2]) & ~(|a[1:0]);
                        bi   = (&b[6:2]) & ~(|b[1:0]);
                        pnan = an | bn | (ai & ~(|b[6:0])) | (bi & ~(|a[6:0]));
                        pinf = ~pnan & (ai | bi);
                        sig  = {4'd0, as} * {4'd0, bs};
                        sh   = {3'd0, ae} + {3'd0, be} - 8'd34 - LSB8;   // ex = ae + be - 2 x (bias + 2)
                        mag  = (pnan | pinf) ? 64'd0 : ({56'd0, sig} << sh);
                        tneg = sgn & (mag != 64'd0);
                    end
                    magw = {{(ACC_W-64){1'b0}}, mag};
                    povf = 1'b0;
                    if (fmt == DT_BF16 && HAS_BF16 != 0) begin
                        // 1.8.7, bias 127; IEEE Inf / NaN; the operand is {neighbour, own}
                        x    = {au, a};
                        y    = {bu, b};
                        sgn  = x[15] ^ y[15];
                        xn   = (&x[14:7]) & (|x[6:0]);
                        yn   = (&y[14:7]) & (|y[6:0]);
                        xi   = (&x[14:7]) & ~(|x[6:0]);
                        yi   = (&y[14:7]) & ~(|y[6:0]);
                        xz   = ~(|x[14:0]);
                        yz   = ~(|y[14:0]);
                        pnan = mk & (xn | yn | (xi & yz) | (yi & xz));
                        pinf = mk & ~(xn | yn | (xi & yz) | (yi & xz)) & (xi | yi);
                        xs   = {|x[14:7], x[6:0]};
                        ys   = {|y[14:7], y[6:0]};
                        p16  = {8'd0, xs} * {8'd0, ys};
                        // ex = xe + ye - 2 x (127 + 7); on the grid: sh = ex + 32
                        es   = {2'd0, x[14:7] | {7'd0, ~(|x[14:7])}} + {2'd0, y[14:7] | {7'd0, ~(|y[14:7])}};
                        bsh  = es - 10'd236;
                        nsh  = 10'd236 - es;
                        wide = {(ACC_W+16){1'b0}};
                        magw = {ACC_W{1'b0}};
                        if (!mk || xn || yn || xi || yi || p16 == 16'd0) begin
                            magw = {ACC_W{1'b0}};
                        end else if (!bsh[9]) begin
                            if ({22'd0, bsh} > ACC_W - 2) begin
                                povf = 1'b1;
                            end else begin
                                wide = {{ACC_W{1'b0}}, p16} << bsh;
                                povf = |wide[ACC_W+15:ACC_W-1];
                                magw = povf ? {ACC_W{1'b0}} : wide[ACC_W-1:0];
                            end
                        end else if (nsh < 10'd17) begin
                            qf   = {p16, 16'd0} >> nsh;
                            rup  = qf[15] & ((|qf[14:0]) | qf[16]);
                            magw = {{(ACC_W-16){1'b0}}, qf[31:16]} + {{(ACC_W-1){1'b0}}, rup};
                        end
                        tneg = sgn & (magw != {ACC_W{1'b0}});
                    end
                    sum = tneg ? acc - magw : acc + magw;
                    ovf = povf | ((acc[ACC_W-1] == tneg) && (sum[ACC_W-1] != acc[ACC_W-1]));
                    mac = {st[ACC_W+3] | ovf, st[ACC_W+2] | (pinf & sgn), st[ACC_W+1] | (pinf & ~sgn),
                           st[ACC_W] | pnan, sum};
                end
            endfunction

            // The same step as mac for the one-byte formats (int8, e4m3, e5m2 and
            // the MX element types), computed in a 64-bit and an (ACC_W-64)-bit
            // half: every such term's magnitude is below 2^64 (see mac), so the
            // sum is a 64-bit add or subtract with its carry / borrow into the
            // high half. A Verilated model then does native 64-bit arithmetic
            // instead of ACC_W-bit VlWide adds and subtracts (docs/sim.md
            // "Speed"); the result is mac's, bit for bit (bf16 keeps mac).
            // tmag: the product's magnitude on the grid (0 for a NaN / Inf
            // product and for a format this build does not carry)
            function [63:0] tmag(input [3:0] fmt, input [7:0] a, input [7:0] b);
                reg [15:0] p;
                reg [7:0]  sig, sh;
                reg [4:0]  ae, be;
                reg [3:0]  as, bs;
                begin
                    tmag = 64'd0;
                    if (fmt == DT_INT8) begin
                        p    = $signed(a) * $signed(b);
                        tmag = {48'd0, p[15] ? -p : p};
                    end else if (fmt == DT_E4M3 && HAS_E4M3 != 0) begin
                        ae  = {1'b0, a[6:3] | {3'd0, ~(|a[6:3])}};
                        be  = {1'b0, b[6:3] | {3'd0, ~(|b[6:3])}};
                        as  = {|a[6:3], a[2:0]};
                        bs  = {|b[6:3], b[2:0]};
                        sig = {4'd0, as} * {4'd0, bs};
                        sh  = {3'd0, ae} + {3'd0, be} - 8'd20 - LSB8;
                        if (!((&a[6:0]) | (&b[6:0])))
                            tmag = {56'd0, sig} << sh;
                    end else if (fmt == DT_E5M2 && HAS_E5M2 != 0) begin
                        ae  = a[6:2] | {4'd0, ~(|a[6:2])};
                        be  = b[6:2] | {4'd0, ~(|b[6:2])};
                        as  = {1'b0, |a[6:2], a[1:0]};
                        bs  = {1'b0, |b[6:2], b[1:0]};
                        sig = {4'd0, as} * {4'd0, bs};
                        sh  = {3'd0, ae} + {3'd0, be} - 8'd34 - LSB8;
                        if (!((&a[6:2]) | (&b[6:2])))
                            tmag = {56'd0, sig} << sh;
                    end
                end
            endfunction
            // tspc: {NaN product, Inf product} of the one-byte formats, as mac
            function [1:0] tspc(input [3:0] fmt, input [6:0] a, input [6:0] b);   // (sign bits: no role)
                reg an, bn, ai, bi, pn;
                begin
                    tspc = 2'b00;
                    if (fmt == DT_E4M3 && HAS_E4M3 != 0) begin
                        tspc = {(&a[6:0]) | (&b[6:0]), 1'b0};
                    end else if (fmt == DT_E5M2 && HAS_E5M2 != 0) begin
                        an   = (&a[6:2]) & (|a[1:0]);
                        bn   = (&b[6:2]) & (|b[1:0]);
                        ai   = (&a[6:2]) & ~(|a[1:0]);
                        bi   = (&b[6:2]) & ~(|b[1:0]);
                        pn   = an | bn | (ai & ~(|b[6:0])) | (bi & ~(|a[6:0]));
                        tspc = {pn, ~pn & (ai | bi)};
                    end
                end
            endfunction
            // macf: mac's step for a term of magnitude mg (sign sg: the operands'
            // sign bits) and flags pf, on the state's halves: lo (64 bits), hi
            // (ACC_W - 64) and flags fl {ovf, ninf, pinf, nan} in; ln, hn, fn out
            localparam integer HW = (ACC_W > 64) ? ACC_W - 64 : 1;
            task macf(input [63:0] lo, input [HW-1:0] hi, input [3:0] fl, input [63:0] mg,
                      input [1:0] pf, input sg, output [63:0] ln, output [HW-1:0] hn, output [3:0] fn);
                reg tn, ovf;
                begin
                    tn = sg & (mg != 64'd0);
                    if (tn) begin
                        ln = lo - mg;
                        hn = hi - {{(HW-1){1'b0}}, lo < mg};
                    end else begin
                        ln = lo + mg;
                        hn = hi + {{(HW-1){1'b0}}, ln < lo};
                    end
                    ovf = (hi[HW-1] == tn) && (hn[HW-1] != hi[HW-1]);
                    fn  = {fl[3] | ovf, fl[2] | (pf[0] & sg), fl[1] | (pf[0] & ~sg), fl[0] | pf[1]};
                end
            endtask
            // the one-byte path applies: not bf16, and an accumulator wider than 64 bits
            localparam integer FASTW = (ACC_W > 64) ? 1 : 0;
            wire f_slow = (FASTW == 0) || ((HAS_BF16 != 0) && (fmt_i == DT_BF16));
            // The step blocks (+define+SPU_SIM_STEP_BLOCKS: the 8x8 sim's model
            // only, hw/build.mk; the hardware, Yosys and the RTL tests keep the
            // per-tile blocks below for every format). For in=int8 (b_i8) and
            // in=e4m3 / e5m2 (b_f8) one clocked block steps all tiles and the
            // per-tile blocks do not run: a Verilated model of the per-tile
            // blocks spreads each tile's hot code between its copies of every
            // format's code, which the host's instruction cache keeps missing,
            // and macf's add-or-subtract on the product's sign is a branch the
            // host mispredicts half the time on random data (docs/sim.md
            // "Speed", docs/rtl.md "The step blocks in simulation").
            // i8step: macf's step for an int8 product: the sign-extended 16-bit
            // product added in two's complement (int8 products are integers,
            // never NaN or Inf: only ovf can change). Bit for bit
            // macf(tmag(DT_INT8, a, b), 2'b00, a[7] ^ b[7], ...): adding
            // 2^64 - |p| with carry c is subtracting |p| with borrow !c.
            // f8step: macf's step with the term's two's complement taken by
            // mask instead of a branch, the same sum and flags.
`ifdef SPU_SIM_STEP_BLOCKS
            localparam integer SSB = 1;
`else
            localparam integer SSB = 0;
`endif
            wire i8s = (SSB != 0) && (FASTW != 0) && (fmt_i == DT_INT8);
            wire f8s = (SSB != 0) && (FASTW != 0) && ((fmt_i == DT_E4M3 && HAS_E4M3 != 0) ||
                                                      (fmt_i == DT_E5M2 && HAS_E5M2 != 0));
            wire sbs = i8s | f8s;        // a step block runs the tiles this cycle
            task i8step(input [63:0] lo, input [HW-1:0] hi, input [3:0] fl, input [7:0] a, input [7:0] b,
                        output [63:0] ln, output [HW-1:0] hn, output [3:0] fn);
                reg [15:0] p;
                reg        s;
                begin
                    p  = $signed(a) * $signed(b);
                    s  = p[15];
                    ln = lo + {{48{s}}, p};
                    hn = hi + {HW{s}} + {{(HW-1){1'b0}}, ln < lo};
                    fn = {fl[3] | ((hi[HW-1] == s) && (hn[HW-1] != hi[HW-1])), fl[2:0]};
                end
            endtask
            task f8step(input [63:0] lo, input [HW-1:0] hi, input [3:0] fl, input [3:0] fmt,
                        input [7:0] a, input [7:0] b,
                        output [63:0] ln, output [HW-1:0] hn, output [3:0] fn);
                reg [63:0] mg, y;
                reg [1:0]  pf;
                reg        sg, tn;
                begin
                    mg = tmag(fmt, a, b);
                    pf = tspc(fmt, a[6:0], b[6:0]);
                    sg = a[7] ^ b[7];
                    tn = sg & (mg != 64'd0);
                    y  = (mg ^ {64{tn}}) + {63'd0, tn};
                    ln = lo + y;
                    hn = hi + {HW{tn}} + {{(HW-1){1'b0}}, ln < lo};
                    fn = {fl[3] | ((hi[HW-1] == tn) && (hn[HW-1] != hi[HW-1])),
                          fl[2] | (pf[0] & sg), fl[1] | (pf[0] & ~sg), fl[0] | pf[1]};
                end
            endtask

            // MX: a block's scale word. The block sum blk (two's complement, on the
            // 2^-32 grid, or on 2^0 for mxint8 whose elements weigh 2^-6 each)
            // times 2^(sa + sb - 254), put on the 2^-32 grid: shifted left
            // (a magnitude of 2^(ACC_W-1) grid units or more: ovf, nothing added)
            // or right with RNE (the bf16 rule); sa or sb = 0xFF (E8M0 NaN): the
            // NaN flag, nothing added.
            function [ACC_W+3:0] mxs(input [ACC_W+3:0] st, input [ACC_W-1:0] blk,
                                     input [7:0] sa, input [7:0] sb, input i8);
                reg [ACC_W-1:0]   acc, m, q, magw, sum;
                reg [2*ACC_W-1:0] wide;
                reg [9:0]         e, n;
                reg               neg, snan, povf, rup, tneg, ovf;
                begin
                    acc  = st[ACC_W-1:0];
                    neg  = blk[ACC_W-1];
                    m    = neg ? -blk : blk;
                    snan = (&sa) | (&sb);
                    e    = {2'd0, sa} + {2'd0, sb} - 10'd254 + (i8 ? 10'd20 : 10'd0);
                    n    = 10'd0 - e;
                    povf = 1'b0;
                    magw = {ACC_W{1'b0}};
                    wide = {2*ACC_W{1'b0}};
                    q    = {ACC_W{1'b0}};
                    rup  = 1'b0;
                    if (snan || m == {ACC_W{1'b0}}) begin
                        magw = {ACC_W{1'b0}};
                    end else if (!e[9]) begin
                        if ({22'd0, e} > ACC_W - 2) begin
                            povf = 1'b1;
                        end else begin
                            wide = {{ACC_W{1'b0}}, m} << e;
                            povf = |wide[2*ACC_W-1:ACC_W-1];
                            magw = povf ? {ACC_W{1'b0}} : wide[ACC_W-1:0];
                        end
                    end else if ({22'd0, n} <= ACC_W) begin
                        wide = {m, {ACC_W{1'b0}}} >> n;
                        q    = wide[2*ACC_W-1:ACC_W];
                        rup  = wide[ACC_W-1] & ((|wide[ACC_W-2:0]) | q[0]);
                        magw = q + {{(ACC_W-1){1'b0}}, rup};
                    end
                    tneg = neg & (magw != {ACC_W{1'b0}});
                    sum  = tneg ? acc - magw : acc + magw;
                    ovf  = povf | ((acc[ACC_W-1] == tneg) && (sum[ACC_W-1] != acc[ACC_W-1]));
                    mxs  = {st[ACC_W+3] | ovf, st[ACC_W+2], st[ACC_W+1], st[ACC_W] | snan, sum};
                end
            endfunction

                // one clocked block per tile, constant part-selects: a tile's
                // write is a fixed-position update, not a variable part-select
                // insert (a Verilated model's cost; docs/sim.md "Speed")
                // t_on: some tile changes this cycle. Every tile's block tests
                // this one condition first, so a Verilated model merges the
                // tests of consecutive tiles into one (the idle array costs a
                // branch per block group, not two tests per tile)
                wire t_on = rst_i | (|clr_i) | mac_en;
                // the per-tile blocks below run unless a step block does
                wire t_hw = t_on & ~sbs;
`ifdef SPU_SIM_STEP_BLOCKS
                // the step blocks' clears (the per-tile blocks' first branch;
                // the MX block sums' in g_mx's b_sb_blk)
                always @(posedge clk_i) if (t_on && sbs && (rst_i || !mac_en)) begin : b_sb_clr
                    integer t;
                    for (t = 0; t < NT; t = t + 1)
                        if (rst_i || clr_i[t]) st_q[t*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                end
                // every tile steps; CHAIN: a clearing tile from the empty state.
                // Two blocks of the same shape, not one choosing the step per
                // tile: one block puts f8step's code between every two tiles'
                // int8 code (int8 64x64x512: 788 M -> 812 M instructions, I1
                // misses 23.2 M -> 29.1 M; docs/sim.md "Since the step blocks")
                always @(posedge clk_i) if (t_on && i8s && !rst_i && mac_en) begin : b_i8
                    integer      t;
                    reg [63:0]   ln;
                    reg [HW-1:0] hn;
                    reg [3:0]    fn;
                    for (t = 0; t < NT; t = t + 1)
                        if (CHAIN == 0 && clr_i[t]) begin
                            st_q[t*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                        end else begin
                            i8step(clr_i[t] ? 64'd0 : st_q[t*SLOT_W +: 64],
                                   clr_i[t] ? {HW{1'b0}} : st_q[t*SLOT_W + 64 +: HW],
                                   clr_i[t] ? 4'd0 : st_q[t*SLOT_W + ACC_W +: 4],
                                   a_t[t*8 +: 8], b_t[t*8 +: 8], ln, hn, fn);
                            st_q[t*SLOT_W +: 64]          <= ln;
                            st_q[t*SLOT_W + 64 +: HW + 4] <= {fn, hn};
                        end
                end
                always @(posedge clk_i) if (t_on && f8s && !rst_i && mac_en) begin : b_f8
                    integer      t;
                    reg [63:0]   ln;
                    reg [HW-1:0] hn;
                    reg [3:0]    fn;
                    for (t = 0; t < NT; t = t + 1)
                        if (CHAIN == 0 && clr_i[t]) begin
                            st_q[t*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                        end else begin
                            f8step(clr_i[t] ? 64'd0 : st_q[t*SLOT_W +: 64],
                                   clr_i[t] ? {HW{1'b0}} : st_q[t*SLOT_W + 64 +: HW],
                                   clr_i[t] ? 4'd0 : st_q[t*SLOT_W + ACC_W +: 4], fmt_i,
                                   a_t[t*8 +: 8], b_t[t*8 +: 8], ln, hn, fn);
                            st_q[t*SLOT_W +: 64]          <= ln;
                            st_q[t*SLOT_W + 64 +: HW + 4] <= {fn, hn};
                        end
                end
`endif
                // MX: the tiles' block sums in one register (tile t at
                // blk_q[t*SLOT_W +: ACC_W]), like st_q: a Verilated model then
                // commits it with one copy per clock instead of one per tile word
                if (HAS_MX != 0) begin : g_mx
                reg [NT*SLOT_W-1:0] blk_q;      // the MX block sums
`ifdef SPU_SIM_STEP_BLOCKS
                // the step blocks' tiles: every clear also empties the block
                // sum (its slot padding is always zero)
                always @(posedge clk_i) if (sbs && (rst_i || (|clr_i))) begin : b_sb_blk
                    integer t;
                    for (t = 0; t < NT; t = t + 1)
                        if (rst_i || clr_i[t]) blk_q[t*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                end
`endif
                for (gt = 0; gt < NT; gt = gt + 1) begin : g_t
                        wire unused_pad = |blk_q[gt*SLOT_W + ACC_W +: SLOT_W - ACC_W];   // slot padding
                        // CHAIN: a clearing tile with a term steps from the empty state.
                        // cz lives inside the clocked block: as a wire, a Verilated
                        // model computes it in its combinational pass on every edge
                        // of either clock (clr_i carries RUN, from the link's clock;
                        // docs/sim.md "Speed")
                        always @(posedge clk_i) if (t_hw) begin : b_tile
                            reg          cz;
                            reg [63:0]   ln;
                            reg [HW-1:0] hn;
                            reg [3:0]    fn;
                            cz = (CHAIN != 0) && clr_i[gt];
                            if (rst_i || (clr_i[gt] && (CHAIN == 0 || !mac_en))) begin
                                st_q[gt*SLOT_W +: SLOT_W]  <= {SLOT_W{1'b0}};
                                blk_q[gt*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                            end else if (mac_en) begin
                                if (is_mx && mk_t[gt]) begin
                                    st_q[gt*SLOT_W +: ACC_W+4] <=
                                        mxs(cz ? {(ACC_W+4){1'b0}} : st_q[gt*SLOT_W +: ACC_W+4],
                                            cz ? {ACC_W{1'b0}} : blk_q[gt*SLOT_W +: ACC_W],
                                            a_t[gt*8 +: 8], b_t[gt*8 +: 8], is_mi8);
                                    blk_q[gt*SLOT_W +: ACC_W] <= {ACC_W{1'b0}};
                                end else if (is_mx && FASTW != 0) begin
                                    macf(cz ? 64'd0 : blk_q[gt*SLOT_W +: 64],
                                         cz ? {HW{1'b0}} : blk_q[gt*SLOT_W + 64 +: HW],
                                         cz ? 4'd0 : st_q[gt*SLOT_W + ACC_W +: 4],
                                         tmag(efmt, a_t[gt*8 +: 8], b_t[gt*8 +: 8]),
                                         tspc(efmt, a_t[gt*8 +: 7], b_t[gt*8 +: 7]),
                                         a_t[gt*8+7] ^ b_t[gt*8+7], ln, hn, fn);
                                    blk_q[gt*SLOT_W +: 64]      <= ln;
                                    blk_q[gt*SLOT_W + 64 +: HW] <= hn;
                                    st_q[gt*SLOT_W + ACC_W +: 4] <= fn;
                                    if (cz) st_q[gt*SLOT_W +: ACC_W] <= {ACC_W{1'b0}};
                                end else if (is_mx) begin
                                    {st_q[gt*SLOT_W + ACC_W +: 4], blk_q[gt*SLOT_W +: ACC_W]} <=
                                        mac(cz ? {(ACC_W+4){1'b0}} : {st_q[gt*SLOT_W + ACC_W +: 4], blk_q[gt*SLOT_W +: ACC_W]},
                                            efmt, a_t[gt*8 +: 8], b_t[gt*8 +: 8],
                                            a_u[gt*8 +: 8], b_u[gt*8 +: 8], 1'b0);
                                    if (cz) st_q[gt*SLOT_W +: ACC_W] <= {ACC_W{1'b0}};
                                end else if (!f_slow) begin
                                    macf(cz ? 64'd0 : st_q[gt*SLOT_W +: 64],
                                         cz ? {HW{1'b0}} : st_q[gt*SLOT_W + 64 +: HW],
                                         cz ? 4'd0 : st_q[gt*SLOT_W + ACC_W +: 4],
                                         tmag(fmt_i, a_t[gt*8 +: 8], b_t[gt*8 +: 8]),
                                         tspc(fmt_i, a_t[gt*8 +: 7], b_t[gt*8 +: 7]),
                                         a_t[gt*8+7] ^ b_t[gt*8+7], ln, hn, fn);
                                    st_q[gt*SLOT_W +: 64]          <= ln;
                                    st_q[gt*SLOT_W + 64 +: HW + 4] <= {fn, hn};
                                    if (cz) blk_q[gt*SLOT_W +: ACC_W] <= {ACC_W{1'b0}};
                                end else begin
                                    st_q[gt*SLOT_W +: ACC_W+4] <=
                                        mac(cz ? {(ACC_W+4){1'b0}} : st_q[gt*SLOT_W +: ACC_W+4], fmt_i,
                                            a_t[gt*8 +: 8], b_t[gt*8 +: 8],
                                            a_u[gt*8 +: 8], b_u[gt*8 +: 8], mk_t[gt]);
                                    if (cz) blk_q[gt*SLOT_W +: ACC_W] <= {ACC_W{1'b0}};
                                end
                            end
                        end
                    end
                end else begin : g_nomx
                for (gt = 0; gt < NT; gt = gt + 1) begin : g_t
                        always @(posedge clk_i) if (t_hw) begin : b_tile
                            reg          cz;                   // as g_mx
                            reg [63:0]   ln;
                            reg [HW-1:0] hn;
                            reg [3:0]    fn;
                            cz = (CHAIN != 0) && clr_i[gt];
                            if (rst_i || (clr_i[gt] && (CHAIN == 0 || !mac_en))) begin
                                st_q[gt*SLOT_W +: SLOT_W] <= {SLOT_W{1'b0}};
                            end else if (mac_en && !f_slow) begin
                                macf(cz ? 64'd0 : st_q[gt*SLOT_W +: 64],
                                     cz ? {HW{1'b0}} : st_q[gt*SLOT_W + 64 +: HW],
                                     cz ? 4'd0 : st_q[gt*SLOT_W + ACC_W +: 4],
                                     tmag(fmt_i, a_t[gt*8 +: 8], b_t[gt*8 +: 8]),
                                     tspc(fmt_i, a_t[gt*8 +: 7], b_t[gt*8 +: 7]),
                                     a_t[gt*8+7] ^ b_t[gt*8+7], ln, hn, fn);
                                st_q[gt*SLOT_W +: 64]          <= ln;
                                st_q[gt*SLOT_W + 64 +: HW + 4] <= {fn, hn};
                            end else if (mac_en) begin
                                st_q[gt*SLOT_W +: ACC_W+4] <=
                                    mac(cz ? {(ACC_W+4){1'b0}} : st_q[gt*SLOT_W +: ACC_W+4], fmt_i,
                                        a_t[gt*8 +: 8], b_t[gt*8 +: 8],
                                        a_u[gt*8 +: 8], b_u[gt*8 +: 8], mk_t[gt]);
                            end
                        end
                    end
                end
                assign acc_o = st_q;
            end
        end
    endgenerate
    function [31:0] prod32(input [7:0] a, input [7:0] b);
        reg [15:0] p;
        begin
            p = $signed(a) * $signed(b);
            prod32 = {{16{p[15]}}, p};
        end
    endfunction

endmodule
`default_nettype wire
