// spu_decoder -- combinational decode of one microcode word: its fields and
// whether it is ILLEGAL by its encoding alone (undefined opcode, a reserved bit
// set per the OPMASK_* of the format, lui/shli/cfg reserved immediate bits, a
// bad cfg value, an unknown counter id), and fmt_o: a well-formed cfg naming
// a dtype this build does not carry (FORMATS; trap FORMAT, docs/isa.md).
// Checks that need register values (loop body, addresses) are the sequencer's.
`default_nettype none
module spu_decoder #(
    parameter [31:0] FORMATS = 32'h1,    // bit d: dtype code d is a carried `in`
    parameter integer VECTOR = 0         // 1: the vector unit's opcodes are defined
) (
    input  wire [31:0] insn_i,
    output wire [5:0]  op_o,
    output wire [3:0]  ra_o,
    output wire [3:0]  rb_o,
    output wire [3:0]  rc_o,
    output wire [31:0] imm18s_o,   // sext(imm18)
    output wire [31:0] imm18u_o,   // zext(imm18)
    output wire [31:0] imm22s_o,   // sext(imm22)
    output wire [31:0] imm22u_o,   // zext(imm22)
    output reg         illegal_o,
    output reg         fmt_o        // cfg legal but not carried (not with illegal_o)
);
`include "spu_isa.vh"
    wire [5:0]  op    = insn_i[31:26];
    wire [25:0] body  = insn_i[25:0];
    wire [21:0] imm22 = insn_i[21:0];
    wire [17:0] imm18 = insn_i[17:0];

    assign op_o     = op;
    assign ra_o     = insn_i[25:22];
    assign rb_o     = insn_i[21:18];
    assign rc_o     = insn_i[17:14];
    assign imm18s_o = {{14{imm18[17]}}, imm18};
    assign imm18u_o = {14'd0, imm18};
    assign imm22s_o = {{10{imm22[21]}}, imm22};
    assign imm22u_o = {10'd0, imm22};

    wire [3:0] cfg_in    = imm22[CFG_IN_LSB    +: CFG_IN_W];
    wire [3:0] cfg_out   = imm22[CFG_OUT_LSB   +: CFG_OUT_W];
    wire [1:0] cfg_round = imm22[CFG_ROUND_LSB +: CFG_ROUND_W];
    // cfg bits above the last field are reserved
    localparam integer CFG_TOP = CFG_OVF_LSB + CFG_OVF_W;
    // a float input format carried: the wide accumulators and the f32 output
    localparam integer HAS_FP = ((FORMATS & ~32'h1) != 32'd0) ? 1 : 0;
    wire in_known  = (cfg_in == DT_INT8) || (cfg_in == DT_E4M3) || (cfg_in == DT_E5M2) || (cfg_in == DT_BF16) ||
                     (cfg_in == DT_MXFP8_E4M3) || (cfg_in == DT_MXFP8_E5M2) || (cfg_in == DT_MXINT8) ||
                     (cfg_in == DT_MXFP6_E3M2) || (cfg_in == DT_MXFP6_E2M3) || (cfg_in == DT_MXFP4_E2M1);
    wire out_known = (cfg_out == DT_INT8) || (cfg_out == DT_INT32) || (cfg_out == DT_F32) ||
                     (cfg_out == DT_BF16) || (cfg_out == DT_F16) || (cfg_out == DT_E4M3) ||
                     (cfg_out == DT_E5M2);
    wire out_int   = (cfg_out == DT_INT8) || (cfg_out == DT_INT32);
    wire in_carried = FORMATS[{1'b0, cfg_in}];

    // the per-instruction checks, each from the word alone
    wire lui_bad     = (imm22[21:16] != 6'd0);
    wire shli_bad    = (imm18[17:5] != 13'd0);
    // cfg: bits above the last field, an unknown in / out, a round mode other
    // than RNE / RTZ / RNA (in: an array dtype, spu_cfg.def; out: int8,
    // int32, f32, bf16, f16, e4m3, e5m2)
    wire cfg_bad     = (imm22[21:CFG_TOP] != {(22-CFG_TOP){1'b0}}) || !in_known || !out_known ||
                       (cfg_round != RND_RNE && cfg_round != RND_RTZ && cfg_round != RND_RNA);
    wire cfg_res_bad = ((body & ~OPMASK_CFG) != 26'd0);
    wire bias_res_bad = ((body & ~OPMASK_BIAS) != 26'd0);
    // counter id >= CNT_COUNT, spelt as a table of the ids below it (a
    // constant compare would map to a carry chain)
    reg  cnt_bad;
    integer ci;
    always @* begin
        cnt_bad = 1'b1;
        for (ci = 0; ci < CNT_COUNT; ci = ci + 1)
            if (imm18 == ci[17:0]) cnt_bad = 1'b0;
    end

    reg [25:0] mask;
    reg        known;
    always @* begin
        known = 1'b1;
        mask  = 26'd0;
        case (op)
            OP_NOP:    mask = OPMASK_NOP;
            OP_HALT:   mask = OPMASK_HALT;
            OP_LI:     mask = OPMASK_LI;
            OP_LUI:    mask = OPMASK_LUI;
            OP_ADDI:   mask = OPMASK_ADDI;
            OP_ADD:    mask = OPMASK_ADD;
            OP_SUB:    mask = OPMASK_SUB;
            OP_SHLI:   mask = OPMASK_SHLI;
            OP_MUL:    mask = OPMASK_MUL;
            OP_BNE:    mask = OPMASK_BNE;
            OP_BLT:    mask = OPMASK_BLT;
            OP_JMP:    mask = OPMASK_JMP;
            OP_LOOP:   mask = OPMASK_LOOP;
            OP_CFG:    mask = OPMASK_CFG;
            OP_STRIDE: mask = OPMASK_STRIDE;
            OP_ZACC:   mask = OPMASK_ZACC;
            OP_MM:     mask = OPMASK_MM;
            OP_ST:     mask = OPMASK_ST;
            OP_SYNC:   mask = OPMASK_SYNC;
            OP_CNT:    mask = OPMASK_CNT;
            OP_BIAS:   mask = OPMASK_BIAS;
            OP_VLEN:   begin mask = OPMASK_VLEN;    known = (VECTOR != 0); end
            OP_VSTRIDE:begin mask = OPMASK_VSTRIDE; known = (VECTOR != 0); end
            OP_VADD:   begin mask = OPMASK_VADD;    known = (VECTOR != 0); end
            OP_VSUB:   begin mask = OPMASK_VSUB;    known = (VECTOR != 0); end
            OP_VMUL:   begin mask = OPMASK_VMUL;    known = (VECTOR != 0); end
            OP_VMAX:   begin mask = OPMASK_VMAX;    known = (VECTOR != 0); end
            OP_VRMAX:  begin mask = OPMASK_VRMAX;   known = (VECTOR != 0); end
            OP_VRSUM:  begin mask = OPMASK_VRSUM;   known = (VECTOR != 0); end
            OP_VLUT:   begin mask = OPMASK_VLUT;    known = (VECTOR != 0); end
            OP_VLUTLD: begin mask = OPMASK_VLUTLD;  known = (VECTOR != 0); end
            OP_VSPLAT: begin mask = OPMASK_VSPLAT;  known = (VECTOR != 0); end
            OP_VGET:   begin mask = OPMASK_VGET;    known = (VECTOR != 0); end
            default:   known = 1'b0;
        endcase
        // vdiv after the case: with VECTOR = 0 a constant-false if, the
        // case above unchanged (the boards do not grow)
        if (VECTOR != 0 && op == OP_VDIV) begin
            mask  = OPMASK_VDIV;
            known = 1'b1;
        end

        // Every check is its own term, OR-ed at the end; none reads another's
        // result (timing: the checks as one priority chain, fmt after
        // illegal, and the counter id's compare as a carry chain put the
        // microcode word -> `illegal` at 12 LUT levels, the iCEBreaker's
        // critical path at seeds 1 and 2 after the branch-decision cut;
        // docs/fpga.md). fmt_o repeats cfg's and bias's own reserved-bit
        // checks with their constant masks instead of reading illegal_o.
        illegal_o = !known || ((body & ~mask) != 26'd0) ||
                    (op == OP_LUI  && lui_bad) || (op == OP_SHLI && shli_bad) ||
                    (op == OP_CFG  && (cfg_res_bad || cfg_bad)) ||
                    (op == OP_CNT  && cnt_bad);
        fmt_o     = (op == OP_CFG  && !cfg_res_bad && !cfg_bad &&
                     (!in_carried || (!out_int && HAS_FP == 0))) ||
                    (op == OP_BIAS && !bias_res_bad && HAS_FP == 0);
    end
endmodule
`default_nettype wire
