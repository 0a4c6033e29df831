// spu_mul8x2 -- two independent signed 8x8 -> 16 multipliers (int8 tiles).
//
// Drive: a0_i * b0_i -> p0_o and a1_i * b1_i -> p1_o, both signed, purely
// combinational. USE_ICE40_DSP = 1 (iCE40 UP5K boards) builds them as ONE
// SB_MAC16 in its "two independent 8x8 multipliers" mode (MODE_8x8, A/B
// signed, unregistered, TOP/BOTOUTPUT_SELECT = 2: O[31:16] = A[15:8]*B[15:8],
// O[15:0] = A[7:0]*B[7:0]), so the 16 tiles of a 4x4 array take exactly the
// UP5K's 8 DSP blocks, by construction rather than by Yosys's inference.
// USE_ICE40_DSP = 0 (simulation, lint, other devices) is a plain signed `*`.
// The SB_MAC16 path is only compiled with SYNTHESIS defined (Yosys); without
// it the parameter falls back to the `*` path, so Verilator needs no cell
// library. tests/synth proves the two paths equal (Yosys sat on the cell's
// simulation model, all 2^32 inputs).
// REG = 1 (spu_array ARRAY_2X): the 8x8 products registered on clk_i in
// the cell (TOP/BOT_8x8_MULT_REG), so p0_o / p1_o are the products of the
// operands presented before the last clk_i edge; without SYNTHESIS (or with
// USE_ICE40_DSP = 0) the same stage in plain registers. (The operand
// registers are the caller's, in the fabric: spu_array.) REG = 0 leaves
// clk_i unused.
`default_nettype none
module spu_mul8x2 #(
    parameter integer USE_ICE40_DSP = 0,
    parameter integer REG           = 0
) (
    input  wire        clk_i,
    input  wire [7:0]  a0_i,
    input  wire [7:0]  b0_i,
    input  wire [7:0]  a1_i,
    input  wire [7:0]  b1_i,
    output wire [15:0] p0_o,
    output wire [15:0] p1_o
);
    // the plain path (everything but the cell): the products, registered
    // when REG = 1
`ifdef SYNTHESIS
    localparam integer PLAIN = (USE_ICE40_DSP == 0) ? 1 : 0;
`else
    localparam integer PLAIN = 1;
`endif
    wire [31:0] prd_r;
    generate
        if (PLAIN != 0) begin : g_plain
            wire [31:0] prd_c;
            if (REG != 0) begin : g_reg
                reg [31:0] prd_q = 32'd0;
                always @(posedge clk_i) prd_q <= prd_c;
                assign prd_r = prd_q;
            end else begin : g_comb
                assign prd_r = prd_c;
                wire unused_clk = clk_i;
            end
            assign prd_c[15:0]  = $signed(a0_i) * $signed(b0_i);
            assign prd_c[31:16] = $signed(a1_i) * $signed(b1_i);
        end else begin : g_cell
            assign prd_r = 32'd0;    // the cell below
        end
    endgenerate
`ifdef SYNTHESIS
    generate
        if (USE_ICE40_DSP != 0) begin : g_dsp
            localparam [0:0] R = (REG != 0) ? 1'b1 : 1'b0;
            wire [31:0] o;
            wire co_unused, acco_unused, sxo_unused;
            wire [31:0] unused_plain = prd_r;
            // (the cell under a name of its own: spu_sb_mac16.v says why)
            spu_sb_mac16 #(
                .NEG_TRIGGER(1'b0), .C_REG(1'b0), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b0),
                .TOP_8x8_MULT_REG(R), .BOT_8x8_MULT_REG(R),
                .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
                .TOPOUTPUT_SELECT(2'b10), .TOPADDSUB_LOWERINPUT(2'b00),
                .TOPADDSUB_UPPERINPUT(1'b0), .TOPADDSUB_CARRYSELECT(2'b00),
                .BOTOUTPUT_SELECT(2'b10), .BOTADDSUB_LOWERINPUT(2'b00),
                .BOTADDSUB_UPPERINPUT(1'b0), .BOTADDSUB_CARRYSELECT(2'b00),
                .MODE_8x8(1'b1), .A_SIGNED(1'b1), .B_SIGNED(1'b1)
            ) u_mac (
                .CLK((REG != 0) ? clk_i : 1'b0), .CE(R),
                .C(16'd0), .A({a1_i, a0_i}), .B({b1_i, b0_i}), .D(16'd0),
                .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(1'b0), .DHOLD(1'b0),
                .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
                .OLOADTOP(1'b0), .OLOADBOT(1'b0), .ADDSUBTOP(1'b0), .ADDSUBBOT(1'b0),
                .OHOLDTOP(1'b0), .OHOLDBOT(1'b0), .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
                .O(o), .CO(co_unused), .ACCUMCO(acco_unused), .SIGNEXTOUT(sxo_unused)
            );
            assign p0_o = o[15:0];
            assign p1_o = o[31:16];
        end else begin : g_lut
            assign p0_o = prd_r[15:0];
            assign p1_o = prd_r[31:16];
        end
    endgenerate
`else
    assign p0_o = prd_r[15:0];
    assign p1_o = prd_r[31:16];
    wire unused_ok = &{1'b0, USE_ICE40_DSP[0]};
`endif
endmodule
`default_nettype wire
