// spram_2x -- a timing probe, not part of the SPU: can the UP5K's SPRAM be
// read at twice the system clock (docs/fpga.md "The scratchpad's read side
// at 2x")? One PLL (SB_PLL40_2F_PAD) gives 48 MHz on port A and 24 MHz on
// port B, phase-aligned. A 24 MHz register (an LFSR) holds the word
// addresses of two banks; in the 48 MHz domain the address's low bit is the
// phase (0 in the first fast cycle after a system edge), so each bank reads
// two consecutive words per system cycle, as a pair of k-steps would. The
// read words go into 48 MHz registers and a 32-bit accumulator (a tile's
// adder); a system-clock register takes the accumulator, and writes happen
// in phase 0 only. `make probe-spram2x [SEED=N]` runs it through the flow
// (synth/flow.sh probe): each clock's Fmax, the crossings, and the system
// clock they allow.
`default_nettype none
module spram_2x (
    input  wire clk12_i,
    input  wire uart_rx_i,
    output wire uart_tx_o
);
    wire clk2x, clk1x, lock;
    SB_PLL40_2F_PAD #(
        .FEEDBACK_PATH("SIMPLE"), .DIVR(4'd0), .DIVF(7'd63), .DIVQ(3'd4), .FILTER_RANGE(3'd1),
        .PLLOUT_SELECT_PORTA("GENCLK"), .PLLOUT_SELECT_PORTB("GENCLK_HALF")
    ) u_pll (
        .PACKAGEPIN(clk12_i), .PLLOUTGLOBALA(clk2x), .PLLOUTGLOBALB(clk1x), .LOCK(lock),
        .RESETB(1'b1), .BYPASS(1'b0)
    );
    // system clock: addresses, write enable and data from an LFSR
    reg [31:0] lf_q = 32'h1;
    reg        tog_q = 1'b0;
    always @(posedge clk1x) begin
        lf_q  <= {lf_q[30:0], lf_q[31] ^ lf_q[21] ^ lf_q[1] ^ lf_q[0] ^ uart_rx_i};
        tog_q <= ~tog_q;
    end
    // fast clock: the phase, 0 in the first fast cycle after a system edge
    reg tog_f_q = 1'b0;
    always @(posedge clk2x) tog_f_q <= tog_q;
    wire        ph     = (tog_f_q == tog_q);
    wire [13:0] addr_a = {lf_q[13:1], ph};
    wire [13:0] addr_b = {lf_q[27:15], ph};
    wire        we     = lf_q[31] & ~ph;
    wire [63:0] q;
    genvar g;
    generate
        for (g = 0; g < 4; g = g + 1) begin : g_spram
            SB_SPRAM256KA u_ram (
                .ADDRESS(g < 2 ? addr_a : addr_b), .DATAIN(lf_q[g*4 +: 16]), .MASKWREN(4'hF),
                .WREN(we), .CHIPSELECT(1'b1), .CLOCK(clk2x), .STANDBY(1'b0), .SLEEP(1'b0),
                .POWEROFF(1'b1), .DATAOUT(q[g*16 +: 16])
            );
        end
    endgenerate
    reg [63:0] q_f_q;
    reg [31:0] acc_f_q = 32'd0;
    always @(posedge clk2x) begin
        q_f_q   <= q;
        acc_f_q <= acc_f_q + (q_f_q[31:0] ^ q_f_q[63:32]);   // all four banks
    end
    reg [31:0] acc_s_q;
    always @(posedge clk1x) acc_s_q <= acc_f_q;
    assign uart_tx_o = ^acc_s_q;
    wire unused_ok = &{1'b0, lock};
endmodule
`default_nettype wire
