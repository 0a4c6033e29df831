// spu_spram -- a single-port RAM of 2^AW words of WIDTH bits (WIDTH a
// multiple of 16, AW <= 14) in iCE40 UP5K SPRAM: WIDTH / 16 SB_SPRAM256KA
// blocks side by side (16K x 16 bit each; the UP5K has four).
//
// Drive: one access per cycle. en_i && !we_i reads word addr_i: rdata_o
// carries it from the next cycle and holds it until the next access of this
// RAM (a write in between leaves rdata_o undefined, as the cell does).
// en_i && we_i writes the bytes of wdata_i whose be_i bit is set (each byte
// enable drives two of the cell's nibble mask bits). A read and a write in
// the same cycle are impossible by construction (one port): spu_spad
// arbitrates (docs/rtl.md "Scratchpad in SPRAM").
// SYNTHESIS (Yosys): SB_SPRAM256KA cells, always powered and awake; without
// it (Verilator, lint): spu_spram_model, the same cycle behaviour.
// Address bits above AW of the cell are tied to 0 (AW < 14: part of each
// block is unused).
`default_nettype none
module spu_spram #(
    parameter integer WIDTH = 32,
    parameter integer AW    = 14
) (
    input  wire               clk_i,
    input  wire               en_i,
    input  wire               we_i,
    input  wire [WIDTH/8-1:0] be_i,
    input  wire [AW-1:0]      addr_i,
    input  wire [WIDTH-1:0]   wdata_i,
    output wire [WIDTH-1:0]   rdata_o
);
    localparam integer NB = WIDTH / 16;
    wire [13:0] addr14;
    generate
        if (AW < 14) begin : g_pad
            assign addr14 = {{(14 - AW){1'b0}}, addr_i};
        end else begin : g_full
            assign addr14 = addr_i;
        end
    endgenerate

    genvar g;
    generate
        for (g = 0; g < NB; g = g + 1) begin : g_blk
            wire [3:0] mask = {be_i[2*g+1], be_i[2*g+1], be_i[2*g], be_i[2*g]};
`ifdef SYNTHESIS
            SB_SPRAM256KA u_spram (
                .ADDRESS(addr14), .DATAIN(wdata_i[g*16 +: 16]), .MASKWREN(mask),
                .WREN(we_i), .CHIPSELECT(en_i), .CLOCK(clk_i),
                .STANDBY(1'b0), .SLEEP(1'b0), .POWEROFF(1'b1),
                .DATAOUT(rdata_o[g*16 +: 16])
            );
`else
            spu_spram_model u_spram (
                .clk_i(clk_i), .cs_i(en_i), .we_i(we_i), .mask_i(mask), .addr_i(addr14),
                .wdata_i(wdata_i[g*16 +: 16]), .rdata_o(rdata_o[g*16 +: 16])
            );
`endif
        end
    endgenerate
endmodule
`default_nettype wire
