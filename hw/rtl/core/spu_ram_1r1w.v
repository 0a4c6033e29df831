// spu_ram_1r1w -- simple dual-port RAM: one write port with byte enables, one
// synchronous read port. Written so Yosys infers iCE40 EBR (or the FPGA flow
// wraps SPRAM) and Verilator models it as an array.
//
// Drive: we_i/wbe_i/waddr_i/wdata_i write in the cycle they are given; re_i +
// raddr_i return mem[raddr_i] in rdata_o on the next cycle, and rdata_o holds
// that value until the next read (the load unit relies on the hold).
// A read of an address written in the same cycle is UNDEFINED on the FPGA: the
// memory carries Yosys's no_rw_check, so it maps to bare EBR instead of EBR
// plus read-first emulation (about 45 LUTs and 75 flip-flops per RAM on the
// iCE40; docs/fpga.md). Simulation returns the old data. No user reads an
// address in the cycle it writes it, except `mm` reading a block the drain
// unit is still writing, which docs/isa.md already leaves undefined.
// No reset: a RAM's contents and output register are not reset (EBR cannot);
// ZERO_INIT = 1 gives every word the value 0 at configuration (an EBR init
// value) and at the start of simulation (not the output register: an
// initialized one would not fold into the EBR).
`default_nettype none
module spu_ram_1r1w #(
    parameter integer WIDTH = 64,           // bits per word, multiple of 8
    parameter integer DEPTH = 1024,         // words
    parameter integer AW    = $clog2(DEPTH), // address bits
    parameter integer ZERO_INIT = 0
) (
    input  wire                 clk_i,
    input  wire                 we_i,
    input  wire [WIDTH/8-1:0]   wbe_i,
    input  wire [AW-1:0]        waddr_i,
    input  wire [WIDTH-1:0]     wdata_i,
    input  wire                 re_i,
    input  wire [AW-1:0]        raddr_i,
    output wire [WIDTH-1:0]     rdata_o
);
    (* no_rw_check *) reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [WIDTH-1:0] rdata_q;
    integer b;

    generate
        if (ZERO_INIT != 0) begin : g_init
            integer w;
            initial
                for (w = 0; w < DEPTH; w = w + 1) mem[w] = {WIDTH{1'b0}};
        end
    endgenerate

    always @(posedge clk_i) begin
        if (we_i) begin
            for (b = 0; b < WIDTH / 8; b = b + 1)
                if (wbe_i[b]) mem[waddr_i][b*8 +: 8] <= wdata_i[b*8 +: 8];
        end
        if (re_i) rdata_q <= mem[raddr_i];
    end

    assign rdata_o = rdata_q;
endmodule
`default_nettype wire
