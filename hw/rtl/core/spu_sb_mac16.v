// spu_sb_mac16 -- the iCE40 SB_MAC16 under a name of its own, for Yosys
// only (SYNTHESIS): a black box with the cell's ports and parameters, which
// synth/flow.sh retypes to SB_MAC16 after synth_ice40 (`chtype`). Yosys
// 0.23's ice40_dsp pass (synth_ice40 -dsp) takes every SB_MAC16 as a
// multiplier to pack flip-flops into and rewrites its register parameters:
// an instance with its operand and 8x8 product registers on (spu_mul8x2
// REG = 1) came out with both off and its clock tied to 0, and with fabric
// registers around an unregistered cell instead it packed them into a
// configuration whose products are wrong (the signed 8x8 high bytes; seen
// with iverilog on Yosys's cell model). Under this name the pass does not
// see the cell. Simulation (Verilator) never reads this file's module: it
// is empty without SYNTHESIS.
`ifdef SYNTHESIS
(* blackbox *)
module spu_sb_mac16 #(
    parameter [0:0] NEG_TRIGGER = 1'b0,
    parameter [0:0] C_REG = 1'b0,
    parameter [0:0] A_REG = 1'b0,
    parameter [0:0] B_REG = 1'b0,
    parameter [0:0] D_REG = 1'b0,
    parameter [0:0] TOP_8x8_MULT_REG = 1'b0,
    parameter [0:0] BOT_8x8_MULT_REG = 1'b0,
    parameter [0:0] PIPELINE_16x16_MULT_REG1 = 1'b0,
    parameter [0:0] PIPELINE_16x16_MULT_REG2 = 1'b0,
    parameter [1:0] TOPOUTPUT_SELECT = 2'b00,
    parameter [1:0] TOPADDSUB_LOWERINPUT = 2'b00,
    parameter [0:0] TOPADDSUB_UPPERINPUT = 1'b0,
    parameter [1:0] TOPADDSUB_CARRYSELECT = 2'b00,
    parameter [1:0] BOTOUTPUT_SELECT = 2'b00,
    parameter [1:0] BOTADDSUB_LOWERINPUT = 2'b00,
    parameter [0:0] BOTADDSUB_UPPERINPUT = 1'b0,
    parameter [1:0] BOTADDSUB_CARRYSELECT = 2'b00,
    parameter [0:0] MODE_8x8 = 1'b0,
    parameter [0:0] A_SIGNED = 1'b0,
    parameter [0:0] B_SIGNED = 1'b0
) (
    input  wire        CLK, CE,
    input  wire [15:0] C, A, B, D,
    input  wire        AHOLD, BHOLD, CHOLD, DHOLD,
    input  wire        IRSTTOP, IRSTBOT, ORSTTOP, ORSTBOT,
    input  wire        OLOADTOP, OLOADBOT, ADDSUBTOP, ADDSUBBOT,
    input  wire        OHOLDTOP, OHOLDBOT, CI, ACCUMCI, SIGNEXTIN,
    output wire [31:0] O,
    output wire        CO, ACCUMCO, SIGNEXTOUT
);
endmodule
`endif
