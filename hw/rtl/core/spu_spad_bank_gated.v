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
//
// The write port is spu_spad's whole port: WR_WORDS consecutive words from
// the scratchpad word address waddr_i (WA bits); this bank (number BANK)
// takes the words that fall in it, each with its byte enables. spu_spad's
// hardware banks do the same with WR_WORDS word-interleaved sub-banks
// (spu_ram_1r1w); here one memory takes up to WR_WORDS writes in a cycle,
// and the routing is worked out in the clocked block only when a write
// comes (a Verilated model evaluates combinational routing every cycle).
`default_nettype none
module spu_spad_bank_gated #(
    parameter integer WIDTH    = 64,             // bits per word, multiple of 8
    parameter integer DEPTH    = 1024,           // words (a power of two)
    parameter integer AW       = $clog2(DEPTH),  // address bits in the bank
    parameter integer WR_WORDS = 1,              // words per write
    parameter integer BANK     = 0,              // this bank's number
    parameter integer WA       = AW + 1          // scratchpad word address bits (> AW)
) (
    input  wire                       clk_i,
    input  wire                       core_clk_i,
    input  wire                       we_i,
    input  wire [WR_WORDS*WIDTH/8-1:0] wbe_i,
    input  wire [WA-1:0]              waddr_i,
    input  wire [WR_WORDS*WIDTH-1:0]  wdata_i,
    input  wire                       re_i,
    input  wire [AW-1:0]              raddr_i,
    output wire [WIDTH-1:0]           rdata_o,
    input  wire                       h_re_i,
    input  wire [AW-1:0]              h_raddr_i,
    output wire [WIDTH-1:0]           h_rdata_o
);
    localparam integer WB = WIDTH / 8;
    localparam integer BW = WA - AW;
    localparam [31:0]   BANK32  = BANK;
    localparam [BW-1:0] BANK_ID = BANK32[BW-1:0];
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [WIDTH-1:0] rdata_q, h_rdata_q;

    // each word's byte enables as a bit mask: the write is one whole-word
    // update (old word outside the enabled bytes), which a Verilated model
    // commits as one delayed write instead of one per byte lane
    function [WIDTH-1:0] fn_mask(input integer l);
        integer b;
        for (b = 0; b < WB; b = b + 1)
            fn_mask[b*8 +: 8] = {8{wbe_i[l*WB + b]}};
    endfunction
    // this bank takes word l of the write (enabled, in this bank) ...
    function fn_hit(input [WA-1:0] l);
        reg [WA-1:0] wa;
        begin
            wa     = waddr_i + l;
            fn_hit = ((wa >> AW) == {{AW{1'b0}}, BANK_ID}) && (wbe_i[l*WB +: WB] != {WB{1'b0}});
        end
    endfunction
    // ... at this row of the bank
    function [AW-1:0] fn_row(input [AW-1:0] l);
        fn_row = waddr_i[AW-1:0] + l;
    endfunction
    integer l;
    always @(posedge clk_i) begin
        if (we_i)
            for (l = 0; l < WR_WORDS; l = l + 1)
                if (fn_hit(l[WA-1:0]))
                    mem[fn_row(l[AW-1:0])] <= (mem[fn_row(l[AW-1:0])] & ~fn_mask(l))
                                             | (wdata_i[l*WIDTH +: WIDTH] & fn_mask(l));
        if (h_re_i) h_rdata_q <= mem[h_raddr_i];
    end

    always @(posedge core_clk_i)
        if (re_i) rdata_q <= mem[raddr_i];

    assign rdata_o   = rdata_q;
    assign h_rdata_o = h_rdata_q;
endmodule
`default_nettype wire
