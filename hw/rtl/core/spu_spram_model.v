// spu_spram_model -- behavioural model of one iCE40 UP5K SB_SPRAM256KA
// (16K x 16 bit, single port) for simulation (Verilator): what spu_spram
// instantiates when SYNTHESIS is not defined. Same cycle behaviour as the
// cell (Yosys's ice40/cells_sim.v, icestorm's timing data): one access per
// clock, chosen by cs_i; a read (cs_i, !we_i) returns mem[addr_i] in rdata_o
// one cycle later and rdata_o holds it while the block is not selected; a
// write (cs_i, we_i) writes the nibbles whose mask_i bit is set, and leaves
// rdata_o UNDEFINED (the cell: x). The model makes that undefined value the
// complement of the last read word, so a user that relied on the output
// across a write sees wrong data in the tests instead of a lucky hold.
// Contents start at 0, like every RAM of the Verilated models (no power-up
// value is promised on the chip; docs/rtl.md).
`default_nettype none
module spu_spram_model (
    input  wire        clk_i,
    input  wire        cs_i,
    input  wire        we_i,
    input  wire [3:0]  mask_i,     // nibble write enables (MASKWREN)
    input  wire [13:0] addr_i,
    input  wire [15:0] wdata_i,
    output wire [15:0] rdata_o
);
    reg [15:0] mem [0:16383];
    reg [15:0] rdata_q;
    integer w, n;

    initial begin
        for (w = 0; w < 16384; w = w + 1) mem[w] = 16'd0;
        rdata_q = 16'd0;
    end

    always @(posedge clk_i)
        if (cs_i) begin
            if (we_i) begin
                for (n = 0; n < 4; n = n + 1)
                    if (mask_i[n]) mem[addr_i][n*4 +: 4] <= wdata_i[n*4 +: 4];
                rdata_q <= ~rdata_q;
            end else begin
                rdata_q <= mem[addr_i];
            end
        end

    assign rdata_o = rdata_q;
endmodule
`default_nettype wire
