// spu_array -- ROWS x COLS output-stationary systolic array. Tile (i,j)
// accumulates C[i][j]. A bytes enter at the west edge (row i on west_i byte i)
// and move one tile east per cycle; B bytes enter at the north edge (column j on
// north_i byte j) and move one tile south per cycle. The caller skews the edges
// (row i / column j delayed i / j cycles) so A[i][k] meets B[k][j] in tile
// (i,j), k + i + j + 1 cycles after step k is presented.
//
// Drive: present zeros when no k-step enters. clr_i (zacc / st) zeroes every
// accumulator. sum_o is every tile's acc + in-flight product, tile (i,j) at
// bits [(i*COLS+j)*32 +: 32] (a wide bus, not a mux: the drain unit snapshots it).
// The operand registers live here, not in the tile, so the edge tiles carry no
// unused east/south outputs.
`default_nettype none
module spu_array #(
    parameter integer ROWS = 8,
    parameter integer COLS = 8
) (
    input  wire                   clk_i,
    input  wire                   rst_i,
    input  wire                   clr_i,
    input  wire [3:0]             fmt_i,
    input  wire [ROWS*8-1:0]      west_i,
    input  wire [COLS*8-1:0]      north_i,
    output wire [ROWS*COLS*32-1:0] sum_o
);
    // operand register at the input of every tile; (i,0) loads from the west
    // edge, (i,j) from (i,j-1); (0,j) from the north edge, (i,j) from (i-1,j)
    reg [ROWS*COLS*8-1:0] a_q, b_q;
    integer i, j;

    always @(posedge clk_i) begin
        if (rst_i) begin
            a_q <= {ROWS*COLS*8{1'b0}};
            b_q <= {ROWS*COLS*8{1'b0}};
        end else begin
            for (i = 0; i < ROWS; i = i + 1)
                for (j = 0; j < COLS; j = j + 1) begin
                    a_q[(i*COLS+j)*8 +: 8] <= (j == 0) ? west_i[i*8 +: 8]
                                                       : a_q[(i*COLS+(j > 0 ? j-1 : 0))*8 +: 8];
                    b_q[(i*COLS+j)*8 +: 8] <= (i == 0) ? north_i[j*8 +: 8]
                                                       : b_q[((i > 0 ? i-1 : 0)*COLS+j)*8 +: 8];
                end
        end
    end

    genvar gi, gj;
    generate
        for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_row
            for (gj = 0; gj < COLS; gj = gj + 1) begin : g_col
                spu_tile u_tile (
                    .clk_i(clk_i), .rst_i(rst_i), .clr_i(clr_i), .fmt_i(fmt_i),
                    .a_i  (a_q[(gi*COLS+gj)*8 +: 8]),
                    .b_i  (b_q[(gi*COLS+gj)*8 +: 8]),
                    .sum_o(sum_o[(gi*COLS+gj)*32 +: 32])
                );
            end
        end
    endgenerate
endmodule
`default_nettype wire
