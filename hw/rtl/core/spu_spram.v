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
// MID = 1 (spu_spad MID: design C's scratchpad side, docs/fpga.md): the
// request is registered at clk_i's rising edge and the cells take it at the
// next edge of clk2x_i (twice clk_i, rising edges aligned) while ph_i is 0,
// mid-cycle; rdata_o then changes mid-cycle, half a cycle later than with
// MID = 0, and still a half cycle before the edge that uses it. So every
// access keeps its cycle; what moves is the timing: the request reaches
// the cells from flip-flops. pair_i (a read; spu_load_unit's k-step pair,
// ARRAY_2X) also reads the next word, addr_i + 1 (addr_i even), at the
// following clk2x_i edge, the one aligned with clk_i's: rdata_o carries
// word addr_i in the second half of the next cycle and word addr_i + 1 in
// the first half of the cycle after, then holds it. Simulation drives
// clk2x_i as well (the harness), and the model is the cell's.
`default_nettype none
module spu_spram #(
    parameter integer WIDTH = 32,
    parameter integer AW    = 14,
    parameter integer MID   = 0       // 1: the registered request taken mid-cycle (above)
) (
    input  wire               clk_i,
    input  wire               clk2x_i,   // MID: twice clk_i
    input  wire               ph_i,      // MID: 0 in clk2x_i's first cycle after a clk_i edge
    input  wire               pair_i,    // MID: a read of addr_i and addr_i + 1 (above)
    input  wire               en_i,
    input  wire               we_i,
    input  wire [WIDTH/8-1:0] be_i,
    input  wire [AW-1:0]      addr_i,
    input  wire [WIDTH-1:0]   wdata_i,
    output wire [WIDTH-1:0]   rdata_o
);
    localparam integer NB = WIDTH / 16;
    // the request the cells take: as given (MID = 0) or registered (MID = 1)
    wire               r_en, r_we;
    wire [WIDTH/8-1:0] r_be;
    wire [AW-1:0]      r_addr;
    wire [WIDTH-1:0]   r_wdata;
    wire               ram_clk, ram_cs;
    generate
        if (MID != 0) begin : g_mid
            reg               en_q = 1'b0, we_q = 1'b0, pair_q = 1'b0;
            reg [WIDTH/8-1:0] be_q;
            reg [AW-1:0]      addr_q;
            reg [WIDTH-1:0]   wdata_q;
            always @(posedge clk_i) begin
                en_q    <= en_i;
                we_q    <= we_i;
                pair_q  <= pair_i && en_i && !we_i;
                be_q    <= be_i;
                addr_q  <= addr_i;
                wdata_q <= wdata_i;
            end
            // the first access mid-cycle (ph_i low before the edge), a pair's
            // second word at the aligned edge (ph_i high), at the odd address
            assign {r_en, r_we, r_be, r_wdata} = {en_q, we_q, be_q, wdata_q};
            assign r_addr  = {addr_q[AW-1:1], addr_q[0] | ph_i};
            assign ram_clk = clk2x_i;
            assign ram_cs  = ph_i ? pair_q : r_en;
        end else begin : g_direct
            assign {r_en, r_we, r_be, r_addr, r_wdata} = {en_i, we_i, be_i, addr_i, wdata_i};
            assign ram_clk = clk_i;
            assign ram_cs  = r_en;
            wire unused_fast = &{1'b0, clk2x_i, ph_i, pair_i};
        end
    endgenerate
    wire [13:0] addr14;
    generate
        if (AW < 14) begin : g_pad
            assign addr14 = {{(14 - AW){1'b0}}, r_addr};
        end else begin : g_full
            assign addr14 = r_addr;
        end
    endgenerate

    genvar g;
    generate
        for (g = 0; g < NB; g = g + 1) begin : g_blk
            wire [3:0] mask = {r_be[2*g+1], r_be[2*g+1], r_be[2*g], r_be[2*g]};
`ifdef SYNTHESIS
            SB_SPRAM256KA u_spram (
                .ADDRESS(addr14), .DATAIN(r_wdata[g*16 +: 16]), .MASKWREN(mask),
                .WREN(r_we), .CHIPSELECT(ram_cs), .CLOCK(ram_clk),
                .STANDBY(1'b0), .SLEEP(1'b0), .POWEROFF(1'b1),
                .DATAOUT(rdata_o[g*16 +: 16])
            );
`else
            spu_spram_model u_spram (
                .clk_i(ram_clk), .cs_i(ram_cs), .we_i(r_we), .mask_i(mask), .addr_i(addr14),
                .wdata_i(r_wdata[g*16 +: 16]), .rdata_o(rdata_o[g*16 +: 16])
            );
`endif
        end
    endgenerate
endmodule
`default_nettype wire
