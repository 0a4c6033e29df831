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
// cycle (its term that cycle is the token's zero word). acc_o is every tile's accumulator register, tile (i,j) at
// bits [(i*COLS+j)*ACC_W +: ACC_W] (a wide bus, not a mux: the drain unit
// snapshots it), flags_o its flags at [(i*COLS+j)*4 +: 4] (spu_tile).
// ACC_W = 32 for a build that carries int8 only; wider (80) with a float
// format in FORMATS (docs/numerics.md "Datapath numerics"), which also
// gives the tiles their flags.
// The operand registers live here, not in the tile, so the edge tiles carry no
// unused east/south outputs; so do the multipliers: USE_ICE40_DSP = 0 gives
// each tile a spu_tile_mul (format-generic port), USE_ICE40_DSP = 1 (iCE40
// UP5K) gives each pair of tiles one spu_mul8x2 = one SB_MAC16 in 8x8 mode,
// int8 only: the decoder traps every cfg whose `in` is not int8, so fmt_i is
// always int8 and the two paths give the same products.
`default_nettype none
module spu_array #(
    parameter integer ROWS = 8,
    parameter integer COLS = 8,
    parameter integer USE_ICE40_DSP = 0,
    parameter integer BROADCAST = 0,
    parameter [31:0]  FORMATS = 32'h1,
    parameter integer ACC_W = 32
) (
    input  wire                   clk_i,
    input  wire                   rst_i,
    input  wire [ROWS*COLS-1:0]   clr_i,
    input  wire [3:0]             fmt_i,
    input  wire [ROWS*8-1:0]      west_i,
    input  wire [COLS*8-1:0]      north_i,
    output wire [ROWS*COLS*ACC_W-1:0] acc_o,
    output wire [ROWS*COLS*4-1:0] flags_o
);
    // act: some operand register may hold a nonzero byte this cycle. Tile
    // (i,j)'s operands entered the edges at most NH cycles ago (NH = the
    // longer edge; BROADCAST: 1), so when no nonzero byte entered in the last
    // NH cycles every operand register is 0, every term is 0 (in every format:
    // +0 x +0) and the tiles and operand registers hold (op_en, act_i): the
    // same result, and a simulator skips the array (docs/sim.md "Speed").
    localparam integer NH = (BROADCAST != 0) ? 1 : ((ROWS > COLS) ? ROWS : COLS);
    wire in_nz = (|west_i) | (|north_i);
    reg  [NH:0] hist_q;                    // bit n: a nonzero byte entered n+1 cycles ago (bit NH unused)
    always @(posedge clk_i) begin
        if (rst_i) hist_q <= {(NH+1){1'b0}};
        else       hist_q <= {hist_q[NH-1:0], in_nz};
    end
    wire act   = |hist_q[NH-1:0];
    wire op_en = in_nz | act;
    wire unused_h = hist_q[NH];
    // the operands tile (i,j) multiplies this cycle, at [(i*COLS+j)*8 +: 8]
    wire [ROWS*COLS*8-1:0] a_t, b_t;
    genvar gi, gj, gp;
    generate
        if (BROADCAST != 0) begin : g_bus
            // one register per row / column; tile (i,j) reads row i and column j
            reg [ROWS*8-1:0] ar_q;
            reg [COLS*8-1:0] bc_q;
            always @(posedge clk_i) begin
                if (rst_i) begin
                    ar_q <= {ROWS*8{1'b0}};
                    bc_q <= {COLS*8{1'b0}};
                end else if (op_en) begin
                    ar_q <= west_i;
                    bc_q <= north_i;
                end
            end
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_r
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_c
                    assign a_t[(gi*COLS+gj)*8 +: 8] = ar_q[gi*8 +: 8];
                    assign b_t[(gi*COLS+gj)*8 +: 8] = bc_q[gj*8 +: 8];
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
        end
    endgenerate

    localparam integer NT = ROWS * COLS;
    generate
        if (USE_ICE40_DSP != 0 && ACC_W == 32) begin : g_dsp   // int8-only builds
            wire [NT*ACC_W-1:0] prod;
            // tiles 2p and 2p+1 (row-major) share one DSP block
            for (gp = 0; gp < (NT + 1) / 2; gp = gp + 1) begin : g_pair
                localparam integer T1 = (2 * gp + 1 < NT) ? 2 * gp + 1 : 2 * gp;
                wire [15:0] p0, p1;
                spu_mul8x2 #(.USE_ICE40_DSP(1)) u_mul (
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
            wire       unused_act = act;
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_row
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_col
                    localparam integer T = gi * COLS + gj;
                    spu_tile #(.ACC_W(ACC_W), .FLAGS(0)) u_tile (
                        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i[T]),
                        .term_i(prod[T*ACC_W +: ACC_W]),
                        .nan_i(1'b0), .inf_i(1'b0), .sign_i(1'b0),
                        .acc_o (acc_o[T*ACC_W +: ACC_W]),
                        .flags_o(flags_o[T*4 +: 4])
                    );
                end
            end
        end else begin : g_generic
            for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_row
                for (gj = 0; gj < COLS; gj = gj + 1) begin : g_col
                    localparam integer T = gi * COLS + gj;
                    spu_tile_mac #(.FORMATS(FORMATS), .ACC_W(ACC_W)) u_tile (
                        .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i[T]), .act_i(act),
                        .fmt_i(fmt_i), .a_i(a_t[T*8 +: 8]), .b_i(b_t[T*8 +: 8]),
                        .acc_o (acc_o[T*ACC_W +: ACC_W]),
                        .flags_o(flags_o[T*4 +: 4])
                    );
                end
            end
        end
    endgenerate
endmodule
`default_nettype wire
