// spu_pll_ice40 -- the iCE40 PLL behind a portable wrapper.
//
// clk_pad_i is the board oscillator; clk_o is F_in * (DIVF+1) /
// ((DIVR+1) * 2^DIVQ) with the SIMPLE feedback path, lock_o goes high when the
// PLL has locked. Take DIVR/DIVF/DIVQ/FILTER_RANGE from `icepll -i 12 -o F`
// (spu_board_* carry a table of the values for the supported clocks).
// USE_PAD = 1 uses SB_PLL40_PAD (clk_pad_i must be the PLL pad, as pin 35 on
// the UP5K sg48), USE_PAD = 0 uses SB_PLL40_CORE fed from the global network
// (HX8K breakout, clock on J3).
//
// TWO_CLK = 1 (USE_PAD = 1 only): SB_PLL40_2F_PAD, clk2x_o = F_in * (DIVF+1)
// / ((DIVR+1) * 2^DIVQ) on port A (GENCLK) and clk_o at half of it on port B
// (GENCLK_HALF), rising edges aligned: the settings are those of clk2x_o.
// Otherwise clk2x_o = clk_o.
//
// Simulation (no SYNTHESIS define, e.g. Verilator): clk_o = clk2x_o =
// clk_pad_i and lock_o = 1, so the board top runs at the oscillator clock in
// sim (a TWO_CLK design's fast side is simulated on clk_o's falling edge:
// spu_spram MID).
`default_nettype none
module spu_pll_ice40 #(
    parameter [3:0] DIVR         = 4'd0,
    parameter [6:0] DIVF         = 7'd63,
    parameter [2:0] DIVQ         = 3'd4,
    parameter [2:0] FILTER_RANGE = 3'd1,
    parameter integer USE_PAD    = 1,
    parameter integer TWO_CLK    = 0,
    parameter integer FIN_KHZ    = 12000   // oscillator, for the sim check
) (
    input  wire clk_pad_i,
    output wire clk_o,
    output wire clk2x_o,
    output wire lock_o
);
`ifdef SYNTHESIS
    generate
        if (USE_PAD != 0 && TWO_CLK != 0) begin : g_pad2
            SB_PLL40_2F_PAD #(
                .FEEDBACK_PATH("SIMPLE"),
                .DIVR(DIVR),
                .DIVF(DIVF),
                .DIVQ(DIVQ),
                .FILTER_RANGE(FILTER_RANGE),
                .PLLOUT_SELECT_PORTA("GENCLK"),
                .PLLOUT_SELECT_PORTB("GENCLK_HALF")
            ) u_pll (
                .PACKAGEPIN(clk_pad_i),
                .PLLOUTGLOBALA(clk2x_o),
                .PLLOUTGLOBALB(clk_o),
                .LOCK(lock_o),
                .RESETB(1'b1),
                .BYPASS(1'b0)
            );
        end else if (USE_PAD != 0) begin : g_pad
            SB_PLL40_PAD #(
                .FEEDBACK_PATH("SIMPLE"),
                .DIVR(DIVR),
                .DIVF(DIVF),
                .DIVQ(DIVQ),
                .FILTER_RANGE(FILTER_RANGE)
            ) u_pll (
                .PACKAGEPIN(clk_pad_i),
                .PLLOUTGLOBAL(clk_o),
                .LOCK(lock_o),
                .RESETB(1'b1),
                .BYPASS(1'b0)
            );
        end else begin : g_core
            SB_PLL40_CORE #(
                .FEEDBACK_PATH("SIMPLE"),
                .DIVR(DIVR),
                .DIVF(DIVF),
                .DIVQ(DIVQ),
                .FILTER_RANGE(FILTER_RANGE)
            ) u_pll (
                .REFERENCECLK(clk_pad_i),
                .PLLOUTGLOBAL(clk_o),
                .LOCK(lock_o),
                .RESETB(1'b1),
                .BYPASS(1'b0)
            );
        end
    endgenerate
    generate
        if (USE_PAD == 0 || TWO_CLK == 0) begin : g_one
            assign clk2x_o = clk_o;
        end
    endgenerate
`else
    assign clk_o   = clk_pad_i;
    assign clk2x_o = clk_pad_i;
    assign lock_o  = 1'b1;
    // The settings must be ones the silicon accepts (iCE40 sysCLOCK PLL
    // guide: F_PFD 10..133 MHz, F_VCO 533..1066 MHz, FILTER_RANGE != 0).
    localparam integer PFD_KHZ = FIN_KHZ / ({28'd0, DIVR} + 1);
    localparam integer VCO_KHZ = PFD_KHZ * ({25'd0, DIVF} + 1);
    initial begin
        if (PFD_KHZ < 10000 || PFD_KHZ > 133000 || VCO_KHZ < 533000 ||
            VCO_KHZ > 1066000 || FILTER_RANGE == 3'd0 || DIVQ == 3'd0 ||
            USE_PAD < 0 || USE_PAD > 1 || (TWO_CLK != 0 && USE_PAD == 0))
            $display("spu_pll_ice40: settings outside the PLL's range");
    end
`endif
endmodule
`default_nettype wire
