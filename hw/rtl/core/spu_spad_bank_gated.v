// spu_spad_bank_gated -- one scratchpad bank of the simulation built with
// SPU_CORE_CLOCK_GATE (docs/rtl.md "Core clock gate in simulation"); no
// hardware build instantiates it. The same memory as spu_ram_1r1w (one
// write port with byte enables on clk_i, the same no-reset, read-old-data
// behaviour), with its read register split by clock domain:
//   - the units' read (re_i / raddr_i -> rdata_o) is registered on
//     core_clk_i, so the load and vector units' combinational logic, which
//     reads rdata_o, depends on the core's clock only and Verilator leaves
//     it alone while the core rests;
//   - the host's read (h_re_i / h_raddr_i -> h_rdata_o) is registered on
//     clk_i, so a READ of the scratchpad does not wake the core.
// In hardware both are the EBR's one read port: the host is served only
// while the units are idle (spu_core), so the two never read in one cycle,
// and no unit uses read data across a host read (each reads before it
// uses, spu_load_unit, spu_vector_unit, the bias read), so giving the host
// its own read register changes nothing the units or the host see.
`default_nettype none
module spu_spad_bank_gated #(
    parameter integer WIDTH = 64,             // bits per word, multiple of 8
    parameter integer DEPTH = 1024,           // words
    parameter integer AW    = $clog2(DEPTH)   // address bits
) (
    input  wire                 clk_i,
    input  wire                 core_clk_i,
    input  wire                 we_i,
    input  wire [WIDTH/8-1:0]   wbe_i,
    input  wire [AW-1:0]        waddr_i,
    input  wire [WIDTH-1:0]     wdata_i,
    input  wire                 re_i,
    input  wire [AW-1:0]        raddr_i,
    output wire [WIDTH-1:0]     rdata_o,
    input  wire                 h_re_i,
    input  wire [AW-1:0]        h_raddr_i,
    output wire [WIDTH-1:0]     h_rdata_o
);
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [WIDTH-1:0] rdata_q, h_rdata_q;

    // the byte enables as a bit mask: the write is one whole-word update
    // (old word outside the enabled bytes), which a Verilated model commits
    // as one delayed write instead of one per byte lane (docs/sim.md "Speed")
    wire [WIDTH-1:0] wmask;
    genvar gb;
    generate
        for (gb = 0; gb < WIDTH / 8; gb = gb + 1) begin : g_mask
            assign wmask[gb*8 +: 8] = {8{wbe_i[gb]}};
        end
    endgenerate

    always @(posedge clk_i) begin
        if (we_i)
            mem[waddr_i] <= (mem[waddr_i] & ~wmask) | (wdata_i & wmask);
        if (h_re_i) h_rdata_q <= mem[h_raddr_i];
    end

    always @(posedge core_clk_i)
        if (re_i) rdata_q <= mem[raddr_i];

    assign rdata_o   = rdata_q;
    assign h_rdata_o = h_rdata_q;
endmodule
`default_nettype wire
