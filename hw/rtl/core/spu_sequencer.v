// spu_sequencer -- fetches and executes microcode: 16 scalar registers (r0 =
// 0), pc, nested zero-overhead loops (spu_loop_stack), cfg and strides, traps,
// and the issue of the tensor instructions to the tensor unit (spu_load_unit's
// queue), which runs them while the sequencer goes on (docs/isa.md "Tensor
// unit"). Two cycles per instruction (OVERLAP = 0), so every cost of
// docs/isa.md holds by construction; with OVERLAP = 1 the next word's FETCH
// shares EXEC's last cycle where docs/isa.md "Overlapped issue" allows
// (ovl_go below):
//   FETCH (1 cycle + waits) : watchdog and pc-range checks; the instruction
//                     (read from the microcode store on the way into FETCH)
//                     names the registers, read from spu_regfile (RAM) for
//                     EXEC; a `cnt` stays here until the tensor unit is idle
//                     (its counters have settled)
//   EXEC  (1 cycle + waits) : decode, traps, execute; mm/st/zacc stay here
//                     until the tensor unit's queue takes them (tu_accept_i),
//                     sync until it is idle and the drain unit free, halt
//                     until it is idle (the drain's writes go on after it),
//                     cfg/stride until it is idle (no hazard on the cfg and
//                     strides a queued command uses)
//   mul stays in EXEC for MUL_STEPS extra cycles: an iterative radix-4
//   multiplier (2 bits of rC per cycle, most significant first, 16 steps;
//   rB and rC hold in the regfile's read registers) instead of a 32x32 array
//   of LUTs; its cost (2 + 16) is the MUL row of spu_isa.def
// For timing (the FPGA fabric), each EXEC decision depends only on what it
// needs. mm's scratchpad range is checked step by step by the load unit
// (docs/isa.md): EXEC only checks alignment and queues the mm; when its stream
// reaches a step outside the scratchpad (mm_bad_i, in any later cycle) the
// sequencer traps SPAD_RANGE with pc at that mm (mm_bad_pc_i); the
// instruction in EXEC in that cycle has no effect. Only the loop stack may
// have moved (not observable; RUN clears it). In EXEC pc < UCODE_WORDS (FETCH
// traps otherwise), so all pc arithmetic there is UAW+1 bits wide.
// Cycle accounting is per instruction (docs/isa.md timing rule): EXEC adds 2
// when the instruction completes, every wait cycle adds 1, so CYCLES at
// FETCH is T_n - T_0 (what the watchdog compares and what `cnt` reads).
//
// Drive: run_i (pulse, not while running) starts at run_pc_i with counters,
// r1..r8 reloaded from the argument registers, r9..r15, cfg, strides and the
// loop stack reset; arg_we_i writes the arguments (and r1..r8) while idle; stop_i returns to IDLE. state_o/trap_o/pc_o report the outcome.
`default_nettype none
module spu_sequencer #(
    parameter integer ROWS        = 8,
    parameter integer COLS        = 8,
    parameter integer WORD_BYTES  = 8,
    parameter integer SPAD_BYTES  = 262144,
    parameter integer UCODE_WORDS = 1024,
    parameter integer LOOP_DEPTH  = 4,
    parameter [31:0]  FORMATS     = 32'h1,   // carried `in` dtypes (spu_decoder: trap FORMAT)
    parameter integer VECTOR      = 0,       // 1: the vector unit's opcodes decode (spu_vector_unit)
    parameter integer OVERLAP     = 0,       // 1: overlapped issue (docs/isa.md; INFO features bit 5)
    parameter integer AW          = $clog2(SPAD_BYTES),
    parameter integer UAW         = $clog2(UCODE_WORDS),
    parameter integer OFF_P       = $clog2(WORD_BYTES)
) (
    input  wire           clk_i,
    input  wire           rst_i,
    input  wire           run_i,
    input  wire [31:0]    run_pc_i,
    input  wire [31:0]    run_watchdog_i,
    input  wire           stop_i,
    input  wire           arg_we_i,
    input  wire [2:0]     arg_idx_i,
    input  wire [31:0]    arg_wdata_i,
    // microcode store read port
    output wire           ucode_re_o,
    output wire [UAW-1:0] ucode_raddr_o,
    input  wire [31:0]    ucode_rdata_i,
    // the read address's parts, for spu_core's UCODE_TWIN (a second copy of
    // the store read at the taken target): the address without the taken
    // selects, the target, and the branch decision (meaningful with a read
    // in EXEC)
    output wire [UAW-1:0] ucode_fall_o,
    output wire [UAW-1:0] ucode_tgt_o,
    output wire           ucode_taken_o,
    // status
    output wire [1:0]     state_o,
    output wire [7:0]     trap_o,
    output wire [31:0]    pc_o,
    output wire           running_o,
    input  wire [3:0]     dbg_sel_i,      // REGS: register read while not running
    output wire [31:0]    dbg_value_o,
    // counters
    input  wire [63:0]    cycles_i,
    output wire [3:0]     cnt_sel_o,
    output wire           cnt_use_o,      // EXEC of a cnt: the counter read mux is ours
    output wire           cnt_fetch_o,    // FETCH of a cnt (cnt_sel_o already valid; EXEC may not follow)
    input  wire [31:0]    cnt_value_i,
    output reg  [1:0]     ev_cycles_o,
    output reg            ev_instret_o,
    output reg            ev_stall_drain_o,
    output wire           clear_o,
    output wire [15:0]    drain_add_o,
    // tensor unit (spu_load_unit's queue)
    output wire           tu_push_o,
    output wire [1:0]     tu_kind_o,      // 0 mm, 1 st, 2 zacc
    output wire [UAW-1:0] tu_pc_o,
    input  wire           tu_accept_i,
    input  wire           tu_idle_i,
    output wire           mm_kill_o,      // a stream reached a step outside the scratchpad
    output wire [AW-1:0]  mm_a_o,         // (st: its destination)
    output wire [AW-1:0]  mm_b_o,
    output wire [AW-1:0]  mm_sa_o,
    output wire [AW-1:0]  mm_sb_o,
    output wire [3:0]     mm_over_o,      // {sb, sa, b, a} >= 2^AW (spu_load_unit)
    output wire [31:0]    mm_k_o,
    input  wire           mm_bad_i,
    input  wire [UAW-1:0] mm_bad_pc_i,
    // drain unit
    output wire [AW-1:0]  st_stride_o,
    input  wire           drain_free_i,
    input  wire           drain_busy_i,   // the drain unit writes (bias waits until it does not)
    output wire           bias_re_o,      // bias: read word bias_addr_o for the bias registers
    output wire [AW-OFF_P-1:0] bias_addr_o,
    output wire [3:0]     bias_idx_o,     // which word of the bias (0..)
    input  wire           drain_quiet_i,  // the drain unit writes nothing now or later (vector start)
    input  wire [15:0]    drain_cycles_i,
    output wire [3:0]     cfg_in_o,
    output wire [3:0]     cfg_out_o,
    output wire [4:0]     cfg_shift_o,
    output wire [1:0]     cfg_round_o,
    output wire           cfg_relu_o,
    output wire           cfg_ovf_o,
    // vector unit (spu_vector_unit): VL / strides writes, start, its verdicts
    output wire           vlen_we_o,
    output wire           vstride_we_o,
    output wire           vec_start_o,
    output wire [5:0]     vec_op_o,
    output wire [31:0]    vec_ra_o,
    output wire [31:0]    vec_rb_o,
    output wire [31:0]    vec_rc_o,
    input  wire           vec_mis_i,
    input  wire           vec_busy_i,
    input  wire           vec_done_i,
    input  wire           vec_bad_i,
    input  wire [31:0]    vec_val_i       // vget: the lane (with vec_done_i)
);
`include "spu_isa.vh"
    localparam integer OFF = $clog2(WORD_BYTES);
    localparam [1:0] P_OFF = 2'd0, P_FETCH = 2'd1, P_EXEC = 2'd2, P_WAIT = 2'd3;
    localparam [31:0] WB32  = WORD_BYTES;
    localparam [31:0] SC32  = COLS * 4;
    localparam [31:0] UW32  = UCODE_WORDS;
    localparam [31:0] RM1   = ROWS - 1;
    localparam [15:0] COLS16 = COLS[15:0];
    localparam integer COLSX4 = COLS * 4;
    localparam [15:0] COLS16X4 = COLSX4[15:0];
    localparam [15:0] COLS16X2 = COLS16 * 16'd2;

    // ---- architectural state ---------------------------------------------------
    reg [1:0]  ph_q, status_q;
    reg [7:0]  trap_q;
    reg [31:0] pc_q;
    // strides kept in SW = AW+2 bits: a stride of 2^(AW+1) or more (out of
    // range times any n >= 1) is kept as its low bits plus a "big" top bit --
    // the same verdicts of st's check and mm's per-step check (mm_over_o),
    // 3 x (30 - AW) flip-flops fewer
    localparam integer SW = AW + 2;
    reg [SW-1:0] sa_q, sb_q, sc_q;
    reg [3:0]  cin_q, cout_q;
    reg [4:0]  shift_q;
    reg [1:0]  round_q;
    reg        relu_q;
    reg        ovf_q;


    // ---- decode ------------------------------------------------------------------
    wire [5:0]  op_f;       // decoded from the word out of the microcode RAM
    wire [3:0]  fa, fb, fc;
    wire [31:0] imm18s, imm18u, imm22s, imm22u;
    wire        illegal_f, fmt_f;
    spu_decoder #(.FORMATS(FORMATS), .VECTOR(VECTOR)) u_dec (
        .insn_i(ucode_rdata_i), .op_o(op_f), .ra_o(fa), .rb_o(fb), .rc_o(fc),
        .imm18s_o(imm18s), .imm18u_o(imm18u), .imm22s_o(imm22s), .imm22u_o(imm22u),
        .illegal_o(illegal_f), .fmt_o(fmt_f)
    );
    // The opcode and the (deep) illegal check are registered in FETCH, so
    // EXEC starts from flip-flops (timing); the fields and immediates are
    // used straight from the microcode RAM's output register, which holds the
    // word through EXEC (it is read only on the way into FETCH).
    // OVERLAP = 1 (overlapped issue, docs/isa.md): the RAM's output holds the
    // next word during EXEC (read in FETCH, at the fall-through), so EXEC's
    // fields come from a copy of its word (xw_q) taken when it left FETCH;
    // and the FETCH of the next word may share EXEC's last cycle (ovl_go
    // below). "FETCH work" (decode into the flags, the register read, the
    // fall-through, the loop-end test) then runs in the cycles fgo names, for
    // the word at the RAM's output, whose pc is fpc.
    reg  [25:0] xw_q;
    wire [25:0] xw       = (OVERLAP != 0) ? xw_q : ucode_rdata_i[25:0];   // the word in EXEC (below the opcode)
    wire [3:0]  xa       = xw[25:22];
    wire [31:0] x_imm18u = {14'd0, xw[17:0]};
    wire [31:0] x_imm18s = {{14{xw[17]}}, xw[17:0]};
    wire [31:0] x_imm22u = {10'd0, xw[21:0]};
    wire [31:0] x_imm22s = {{10{xw[21]}}, xw[21:0]};
    wire        unused_imm = ^{imm18s, imm18u[31:18], imm22s, imm22u};
    wire        fload;        // FETCH work in this cycle (the flags below load)
    wire        fgo;          // ... and its word enters EXEC at the next edge
    wire        ovl_go;       // EXEC's last cycle is the next word's FETCH (OVERLAP)
    reg  [5:0]  op;
    reg         illegal;
    reg         is_jmp, is_bne, is_blt, is_loop;   // op decoded for the next-pc path
    reg         wr_imm, wr_alu, wr_mul, wr_cnt;         // ... and for the register write
    reg         mul_pow;                                // the multiplier's rC is 2^imm (shli)
    reg         wr_vec;                                 // vget
    reg         alu_imm, alu_sub;
    reg         is_halt, is_mm, is_st, is_dw;           // ... and for the traps and waits
    reg         is_zacc, is_idw;                        // is_dw: halt/sync/vector; is_idw: cfg/stride
    reg         is_bias;
    reg         is_vs;                                  // a streaming vector instruction
    // ---- fetch checks --------------------------------------------------------------
    // The watchdog: CYCLES >= wd, kept as a down-counter of what is left
    // (wd_rem_q = wd - 1 - CYCLES, 33 bits, stopped once negative), which
    // follows CYCLES' own increments (ev_cycles_o; both clear at RUN), so the
    // verdict is one flip-flop, its sign (timing: no 32-bit compare of CYCLES
    // in front of a `cnt`'s FETCH wait and the counter events -- the UP5K's
    // critical path at 93e0fd2)
    reg  [32:0] wd_rem_q;
    reg         wd_on_q;
    // (OVERLAP: a FETCH in the first EXEC cycle after a FETCH sees CYCLES
    // one short -- that FETCH is counted with this EXEC's 2 -- so it hits
    // one earlier, at wd_rem_q = 0)
    reg         fx_q;                 // the last cycle was a FETCH
    wire        wd_hit = wd_on_q && (wd_rem_q[32] ||
                                     (OVERLAP != 0 && ph_q == P_EXEC && fx_q && wd_rem_q == 33'd0));
    wire        unused_cycles = ^cycles_i;
    // pc >= UCODE_WORDS (pc_bad_q below: a flip-flop for a power of two);
    // f_pc_bad: the same of fpc (OVERLAP: in EXEC, the fall-through's)
    wire pc_bad, f_pc_bad, fall_out;
    // a `cnt` waits in FETCH until the tensor unit is idle (not when FETCH
    // traps: the trap goes ahead)
    wire f_wait = (ph_q == P_FETCH) && (op_f == OP_CNT) && !tu_idle_i && !wd_hit && !pc_bad;
    // FETCH's traps (watchdog, pc range) are decided in FETCH and raised in
    // the next cycle: the instruction enters EXEC as `illegal` (no effect)
    // with the FETCH cause (timing: the watchdog's 32-bit compare of CYCLES
    // no longer feeds the state registers' enables in the same cycle)
    reg         f_trap_q, f_wd_q, f_fmt_q;   // f_fmt_q: cfg of a dtype not carried
    always @(posedge clk_i) begin
        if (fload) begin
            xw_q    <= ucode_rdata_i[25:0];
            op      <= op_f;
            illegal <= illegal_f || fmt_f || wd_hit || f_pc_bad;
            f_fmt_q  <= fmt_f;
            f_trap_q <= wd_hit || f_pc_bad;
            f_wd_q   <= wd_hit;
            is_jmp  <= (op_f == OP_JMP);
            is_bne  <= (op_f == OP_BNE);
            is_blt  <= (op_f == OP_BLT);
            is_loop <= (op_f == OP_LOOP);
            wr_imm  <= (op_f == OP_LI) || (op_f == OP_LUI);
            wr_alu  <= (op_f == OP_ADDI) || (op_f == OP_ADD) || (op_f == OP_SUB);
            wr_mul  <= (op_f == OP_MUL) || (op_f == OP_SHLI);
            mul_pow <= (op_f == OP_SHLI);
            wr_cnt  <= (op_f == OP_CNT);
            wr_vec  <= (VECTOR != 0) && (op_f == OP_VGET);   // VECTOR = 0: VGET is ILLEGAL (as is_vs)
            alu_imm <= (op_f == OP_ADDI);
            alu_sub <= (op_f == OP_SUB);
            is_halt <= (op_f == OP_HALT);
            is_mm   <= (op_f == OP_MM);
            is_st   <= (op_f == OP_ST);
            // without the unit (VECTOR = 0) the decoder makes the vector
            // opcodes ILLEGAL, whose trap wins over every wait: the flags
            // stay 0 and the decode is not built (UP5K timing)
            is_vs   <= (VECTOR != 0) && (op_f >= OP_VADD) && (op_f <= OP_VDIV);
            is_dw   <= (op_f == OP_HALT) || (op_f == OP_SYNC) ||
                       ((VECTOR != 0) && (op_f >= OP_VADD) && (op_f <= OP_VDIV));   // vector: waits as sync
            is_zacc <= (op_f == OP_ZACC);
            is_idw  <= (op_f == OP_CFG) || (op_f == OP_STRIDE);
            is_bias <= (op_f == OP_BIAS);
        end
    end
    // registers (and the arguments RUN restores) in RAM: read in FETCH (the
    // instruction is already there), used in EXEC. Read port A doubles as the
    // host's register read (REGS) while not running, one cycle after dbg_sel_i.
    wire [31:0] ra, rb, rc;
    reg         rf_we;
    wire [31:0] rd_val;
    wire        running_n = (status_q == STATE_RUNNING);
    spu_regfile u_rf (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(run_i && !stop_i),
        .re_i(fload || !running_n),
        .a_i(running_n ? fa : dbg_sel_i), .b_i(fb), .c_i(fc),
        .ra_o(ra), .rb_o(rb), .rc_o(rc),
        .we_i(rf_we), .waddr_i(xa), .wdata_i(rd_val),
        .host_i(ph_q == P_OFF), .arg_we_i(arg_we_i && ph_q == P_OFF && !stop_i && !run_i),
        .arg_idx_i(arg_idx_i), .arg_wdata_i(arg_wdata_i)
    );
    assign dbg_value_o = ra;

    // ---- address checks of mm and st -------------------------------------------
    function [SW-1:0] stride_keep;        // register value -> kept stride
        input [31:0] v;
        stride_keep = {|v[31:SW-1], v[SW-2:0]};
    endfunction
    wire st_bad;
    wire out32 = (cout_q == DT_INT32) || (cout_q == DT_F32);   // 4-byte outputs
    // st: base + (ROWS-1)*strideC + span > LIMIT (no wrap), with everything
    // that does not depend on the base register precomputed from strideC and
    // cfg `out` into registers (timing: EXEC only compares the base with a room).
    // strideC and cfg change in an EXEC; the next st's EXEC is at least two
    // cycles later, so the one-cycle-old precomputation is always current.
    localparam integer NWS = AW + 1;                    // room bits (LIMIT = 2^AW fits)
    localparam [31:0]  LIM32 = SPAD_BYTES;
    wire out16 = (cout_q == DT_BF16) || (cout_q == DT_F16);     // 2-byte outputs
    wire [31:0] st_lim   = RM1 * {{(33-SW){1'b0}}, sc_q[SW-2:0]} +
                           (out32 ? {16'd0, COLS16X4} : out16 ? {16'd0, COLS16X2} : {16'd0, COLS16});
    reg         st_over_q;                              // (ROWS-1)*strideC + span alone > LIMIT
    reg  [NWS-1:0] st_room_q;                           // LIMIT - that, when not over
    always @(posedge clk_i) begin
        st_over_q <= ((RM1 != 32'd0) && sc_q[SW-1]) || (st_lim > LIM32);
        st_room_q <= LIM32[NWS-1:0] - st_lim[NWS-1:0];
    end
    assign st_bad = st_over_q || (ra[31:NWS] != {(32-NWS){1'b0}}) || (ra[NWS-1:0] > st_room_q);
    wire mm_mis = (ra[OFF-1:0] != 0) || (rb[OFF-1:0] != 0) ||
                  (sa_q[OFF-1:0] != 0) || (sb_q[OFF-1:0] != 0);
    wire st_mis = (ra[OFF-1:0] != 0) || (sc_q[OFF-1:0] != 0);

    // ---- bias: COLS elements of 4 bytes (cfg in = int8) or 8 (float in) ----------
    // read one word per cycle on port A once the tensor unit is idle and the
    // drain unit writes no more (its output pipes use the bias registers)
    localparam integer HAS_FPB = ((FORMATS & ~32'h1) != 32'd0) ? 1 : 0;
    localparam integer NW4 = (COLS * 4 + WORD_BYTES - 1) / WORD_BYTES;
    localparam integer NW8 = (COLS * 8 + WORD_BYTES - 1) / WORD_BYTES;
    localparam [32:0]  BSP4 = COLS * 4;
    localparam [32:0]  BSP8 = COLS * 8;
    wire       [32:0]  LIM33 = {1'b0, LIM32};
    wire        bias8    = (HAS_FPB != 0) && (cin_q != DT_INT8);
    wire [3:0]  bias_nw  = bias8 ? NW8[3:0] : NW4[3:0];
    wire        bias_mis = (ra[OFF-1:0] != 0);
    wire        bias_bad = ({1'b0, ra} + (bias8 ? BSP8 : BSP4)) > LIM33;
    wire        bias_idle = tu_idle_i && !drain_busy_i;
    wire        is_bias_c = (HAS_FPB != 0) && is_bias;   // int8-only builds: the decoder traps FORMAT
    reg  [3:0]  bn_q;                      // words read so far
    wire        bias_rd;                   // a read cycle of bias (EXEC again)

    // ---- loop stack --------------------------------------------------------------
    // pc values of PW = UAW+1 bits: in EXEC pc < UCODE_WORDS, so pc + 1 and
    // every loop start fit; a loop end beyond them is kept as all ones, which
    // no pc + 1 reaches (so it never takes the back edge, as in the model)
    localparam integer PW = UAW + 1;
    wire        ls_empty, ls_full;
    wire [PW-1:0] ls_start, ls_end;
    wire [31:0] ls_count;
    wire        unused_ls_count0 = ls_count[0];   // only count > 1 is asked
    reg         ls_push, ls_pop, ls_dec;
    // pc + 1 and the loop-end test depend only on pc and the loop stack, both
    // stable from FETCH to the end of EXEC: computed in FETCH, registered
    // (timing: EXEC's branch decision goes straight to the next pc)
    // fpc: the pc of the word FETCH works on (OVERLAP: in EXEC, the
    // fall-through of the instruction there, the word the RAM now holds)
    reg  [PW-1:0] fall_q;                 // next pc unless a branch / jmp / loop skip is taken
    wire [UAW-1:0] fpc = (OVERLAP != 0 && ph_q != P_FETCH) ? fall_q[UAW-1:0] : pc_q[UAW-1:0];
    wire [PW-1:0] seq_pc_f = {1'b0, fpc} + {{(PW-1){1'b0}}, 1'b1};
    reg  [PW-1:0] seq_pc;
    reg           at_end_q, again_q;      // pc + 1 ends the top loop; it runs again
    wire          at_end_f, again_f;
    wire        imm_hi   = (x_imm18u[17:PW] != {(18-PW){1'b0}});   // (EXEC's word)
    wire        f_imm_hi = (imm18u[17:PW] != {(18-PW){1'b0}});     // (FETCH's word)
    // The stack keeps a loop's last body pc (end - 1), not its end: the
    // loop-end test in FETCH is then pc == last, a compare of two registers
    // with no pc + 1 carry chain in front of it (timing: the UP5K's critical
    // path at a5567d9 ran pc -> pc + 1 -> == end -> fall_q). pc + 1 == end
    // and pc == end - 1 are the same test: pc + 1 <= UCODE_WORDS < 2^PW and
    // a pushed end is > pc + 1 >= 1, so neither side wraps; an end beyond
    // PW bits is kept as all ones, which no pc (< 2^UAW) equals.
    wire [PW-1:0] push_end = imm_hi ? {PW{1'b1}} : (x_imm18u[PW-1:0] - {{(PW-1){1'b0}}, 1'b1});
    // a loop's empty body (end <= pc + 1, spelt end <= pc or end == pc + 1:
    // the two compares side by side instead of a compare behind an adder),
    // from the instruction FETCH already has, registered (timing: no compare
    // between the microcode RAM and EXEC's trap decision)
    wire        loop_empty_f = !f_imm_hi && ((imm18u[PW-1:0] <= {1'b0, fpc}) ||
                                           (imm18u[PW-1:0] == seq_pc_f));
    reg         loop_empty_body;
    // The loop stack's dec / pop of an EXEC is applied in the next cycle
    // (timing: the branch decision no longer drives the stack's flip-flops);
    // a FETCH in that cycle looks past the pending operation.
    // ls_dec_q / ls_pop_q: a sequential instruction at the top loop's end left
    // EXEC. They are loaded without the branch decision (a bne / blt at a
    // loop's end may be taken), which is its own flip-flop, tk_q; the
    // decrement or pop takes effect when the branch was not taken (timing:
    // the register file -> blt's carry chains -> ls_dec_q was the
    // iCEBreaker's critical path, docs/fpga.md). tk_q is the same flip-flop as
    // g_pc_bad_ff's br_q (Yosys merges them); kept apart so that the loop
    // stack does not depend on that block's UCODE_WORDS condition
    // OVERLAP: the FETCH that goes ahead of EXEC takes the back edge of any
    // word but bne / blt (and jmp / loop, which take none) itself, when its
    // word enters EXEC (fgo): the same one-cycle pending dec / pop
    // (ls_fdec_q / ls_fpop_q), with no branch to wait for. A bne / blt at a
    // loop's end keeps the EXEC rule, and no FETCH overlaps its EXEC.
    reg           ls_dec_pq, ls_pop_pq, tk_q;
    reg           ls_fdec_q, ls_fpop_q;
    wire          ls_dec_q = (ls_dec_pq && !tk_q) || ls_fdec_q;
    wire          ls_pop_q = (ls_pop_pq && !tk_q) || ls_fpop_q;
    wire          ls_one;
    wire [PW-1:0] ls_end1, ls_start1;
    // the FETCH ahead takes a back edge: its word ends the top loop and is
    // none of bne / blt / jmp / loop
    wire          f_edge = (OVERLAP != 0) && fgo && at_end_f && op_f != OP_BNE && op_f != OP_BLT &&
                           op_f != OP_JMP && op_f != OP_LOOP;
    wire [31:0]   ls_count1;
    wire          unused_ls_count1_0 = ls_count1[0];
    always @(posedge clk_i) begin
        if (rst_i || run_i || stop_i) begin
            ls_dec_pq <= 1'b0;
            ls_pop_pq <= 1'b0;
            ls_fdec_q <= 1'b0;
            ls_fpop_q <= 1'b0;
        end else begin
            ls_dec_pq <= ls_dec;
            ls_pop_pq <= ls_pop;
            ls_fdec_q <= f_edge && again_f;
            ls_fpop_q <= f_edge && !again_f;
        end
        if (exec) tk_q <= taken;
    end
    wire [PW-1:0] pc_pw = {1'b0, fpc};
    wire [PW-1:0] fall_d;
    assign at_end_f = ls_pop_q ? (!ls_one && (pc_pw == ls_end1))     // ls_end*: last body pc
                               : (!ls_empty && (pc_pw == ls_end));
    assign again_f  = ls_pop_q ? (ls_count1[31:1] != 31'd0)                        // > 1
                    : ls_dec_q ? ((ls_count[31:2] != 30'd0) || (ls_count[1:0] == 2'd3))  // - 1 > 1
                               : (ls_count[31:1] != 31'd0);
    assign fall_d = (at_end_f && again_f && op_f != OP_LOOP) ? (ls_pop_q ? ls_start1 : ls_start) : seq_pc_f;
    always @(posedge clk_i) begin
        if (fload) begin
            // sequential flow (back edge included); `loop` never takes a back edge
            fall_q   <= fall_d;
            seq_pc   <= seq_pc_f;
            loop_empty_body <= loop_empty_f;
            at_end_q <= at_end_f;
            again_q  <= again_f;
        end
    end
    spu_loop_stack #(.DEPTH(LOOP_DEPTH), .PW(PW)) u_loops (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(run_i),
        .push_i(ls_push), .push_start_i(seq_pc), .push_end_i(push_end),
        .push_count_i(ra), .dec_i(ls_dec_q), .pop_i(ls_pop_q),
        .empty_o(ls_empty), .full_o(ls_full), .start_o(ls_start), .end_o(ls_end),
        .count_o(ls_count), .one_o(ls_one), .start1_o(ls_start1), .end1_o(ls_end1),
        .count1_o(ls_count1)
    );

    // ---- execute (combinational, valid in P_EXEC) ---------------------------------
    reg        ex_trap, ex_wait, ex_done, ex_halt;
    reg [7:0]  ex_cause;
    reg [31:0] npc;
    wire       exec = (ph_q == P_EXEC);
    wire       ok   = exec && !illegal;     // a decodable instruction in EXEC
    // mm's range: the load unit reports the first step outside (see the header)
    // (P_WAIT: the sequencer has trapped already; that cause stays)
    wire          mm_kill  = mm_bad_i && (ph_q == P_FETCH || ph_q == P_EXEC);
    always @(posedge clk_i) fx_q <= (ph_q == P_FETCH) && !rst_i;

    // ---- iterative mul: radix 4, low 32 bits, most significant digit first ----
    // Step n (n = 0..15, in mul_n_q) adds rB * rC[31-2n -: 2] to 4 * p. The
    // first EXEC cycle of a mul does step 0 (p = 0); steps 1..15 follow in the
    // next 15 cycles; the 17th EXEC cycle writes rA. rB and rC are the
    // regfile's read registers, which hold all through EXEC. mul_wait counts
    // as a plain extra cycle (not a drain stall).
    // shli is rB * 2^imm on the same steps (mul_pow): its one nonzero digit,
    // 2^(imm mod 2), is step 15 - imm/2's. No barrel shifter: 146 LCs fewer
    // on the UP5K build, for 16 cycles more per shli (docs/isa.md, docs/fpga.md).
    reg  [31:0] mul_p_q;
    reg  [3:0]  mul_n_q;
    reg         mul_busy_q;
    // The digit of step n is picked one cycle ahead, in step n - 1, into
    // mul_dig_q (step 0's, rC[31:30], needs no mux): the register file ->
    // the 16:1 digit select -> the partial-product adder was the SPRAM
    // build's critical path at seed 2 (42.15 ns).
    reg  [1:0]  mul_dig_q;
    wire        is_mul   = exec && !illegal && wr_mul;
    wire [3:0]  mul_n1   = mul_busy_q ? mul_n_q + 4'd1 : 4'd1;   // the next step
    // the digit of step n: rC[31-2n -: 2] (mul), or shli's one nonzero
    // digit at step 15 - imm/2
    function [1:0] mul_digit(input [3:0] n);
        mul_digit = !mul_pow ? rc[{~n, 1'b1} -: 2]
                  : (~n == x_imm18u[4:1]) ? {x_imm18u[0], ~x_imm18u[0]} : 2'b00;
    endfunction
    wire [1:0]  mul_dig1 = mul_digit(mul_n1);
    wire [1:0]  mul_dig0 = mul_digit(4'd0);
    wire [1:0]  mul_dig  = mul_busy_q ? mul_dig_q : mul_dig0;
    always @(posedge clk_i) mul_dig_q <= mul_dig1;
    wire [31:0] mul_p    = mul_busy_q ? {mul_p_q[29:0], 2'b00} : 32'd0;
    wire [31:0] mul_p_d  = mul_p + (mul_dig[0] ? rb : 32'd0)
                                 + (mul_dig[1] ? {rb[30:0], 1'b0} : 32'd0);
    wire        mul_last = mul_busy_q && (mul_n_q == 4'd0);
    always @(posedge clk_i) begin
        if (rst_i || stop_i || run_i || !is_mul || mul_last) begin
            mul_busy_q <= 1'b0;
            mul_n_q    <= 4'd0;
        end else begin
            mul_busy_q <= 1'b1;
            mul_n_q    <= mul_n_q + 4'd1;
            mul_p_q    <= mul_p_d;
        end
    end

    // one adder for addi / add / sub (rB + imm, rB + rC, rB + ~rC + 1)
    wire [31:0] alu_rhs = alu_imm ? x_imm18s : (alu_sub ? ~rc : rc);
    wire [32:0] alu_add = {rb, 1'b1} + {alu_rhs, alu_sub};   // carry-in in bit 0
    wire [31:0] alu_sum = alu_add[32:1];
    wire        unused_alu_c = alu_add[0];

    // per-consumer decisions, each from the few signals it needs
    wire k_zero     = (rc == 32'd0);
    // mm/st/zacc wait for a free queue entry (an mm with K = 0 too, though it
    // queues nothing: timing, no regfile compare on the wait path)
    wire is_tq      = is_st || is_zacc || is_mm;
    // a vector instruction also waits for the drain's last write to land
    // (its word reads follow at once; docs/isa.md "Vector unit")
    // halt waits for the tensor unit only: the last st's drain writes finish
    // after it, in the background (spu_core holds the host port and a RUN)
    wire drain_wait = (is_dw && !(tu_idle_i && (drain_free_i || is_halt))) || (is_idw && !tu_idle_i) ||
                      (is_tq && !tu_accept_i) || (is_bias_c && !bias_idle) || (is_vs && !drain_quiet_i);
    wire bias_trap  = is_bias_c && (bias_mis || bias_bad);
    assign bias_rd  = exec && !illegal && is_bias_c && !bias_trap && bias_idle && (bn_q != bias_nw);
    always @(posedge clk_i)
        if (rst_i || !(exec && is_bias_c) || ovl_go) bn_q <= 4'd0;
        else if (bias_rd)                bn_q <= bn_q + 4'd1;
    assign bias_re_o   = bias_rd;
    assign bias_addr_o = ra[AW-1:OFF] + {{(AW-OFF-4){1'b0}}, bn_q};
    assign bias_idx_o  = bn_q;
    wire mul_wait   = wr_mul && !mul_last;
    // a vector instruction starts the unit in its first EXEC cycle with the
    // tensor unit idle and the drain done, and stays until the unit is done
    wire vec_wait   = is_vs && !vec_done_i;
    wire stays      = drain_wait || mul_wait || bias_rd || vec_wait;   // EXEC again next cycle (if no trap)
    wire vec_start  = ok && is_vs && !drain_wait && !vec_busy_i && !vec_mis_i;
    wire do_mm      = ok && is_mm && !k_zero && !mm_mis && tu_accept_i && !mm_kill;
    wire do_st      = ok && is_st && !st_mis && !st_bad && tu_accept_i && !mm_kill;
    wire do_zacc    = ok && is_zacc && tu_accept_i && !mm_kill;
    wire do_push    = ok && is_loop && !loop_empty_body && !ra_zero && !ls_full;
    wire advance    = ok && !stays;                    // leaves EXEC unless it traps
    wire rd_we = wr_imm || wr_alu || wr_mul || wr_cnt || wr_vec;
    // the value written: an AND-OR of the sources, selected by flags from
    // FETCH (the write enable says whether it is written at all)
    wire [31:0] imm_val = (op == OP_LUI) ? {x_imm22u[15:0], 16'd0} : x_imm22s;
    assign rd_val = ({32{wr_imm}} & imm_val) | ({32{wr_alu}} & alu_sum) |
                    ({32{wr_mul}} & mul_p_q) |
                    ({32{wr_cnt}} & cnt_value_i) | ({32{wr_vec}} & vec_val_i);

    // next pc: a taken branch / jmp / loop skip goes to the target, anything
    // else to fall_q, prepared in FETCH (sequential flow with the back edge,
    // or pc + 1 after a `loop`). The decision is the last select (timing: the
    // register compares, blt's carry chain last of all, feed the microcode
    // RAM's read address through one mux level).
    wire        br_ne, ra_nz;
    spu_ne u_br_ne (.a_i(ra), .b_i(rb), .ne_o(br_ne));                   // own module: shallow
    spu_ne #(.ZERO(1)) u_ra_nz (.a_i(ra), .b_i(32'd0), .ne_o(ra_nz));
    wire        br_lt     = ($signed(ra) < $signed(rb));
    wire        ra_zero   = !ra_nz;
    wire        take_fast = is_jmp || (is_bne && br_ne) || (is_loop && ra_zero);
    wire        take_lt   = is_blt && br_lt;
    wire        taken     = take_fast || take_lt;
    wire [31:0] tgt       = is_jmp ? x_imm22u : x_imm18u;
    wire        is_seq    = !is_jmp && !is_loop;       // may take the back edge (if not taken: tk_q)

    // traps of EXEC, one term per instruction (flags from FETCH): illegal
    // (also a loop's empty body), loop stack overflow, mm misaligned (K = 0:
    // no effect, no checks), st misaligned or out of range
    wire loop_ill  = is_loop && loop_empty_body;
    wire loop_trap = is_loop && !ra_zero && ls_full;
    wire mm_trap   = is_mm && !k_zero && mm_mis;
    wire st_trap   = is_st && (st_mis || st_bad);
    wire vec_trap  = is_vs && (vec_mis_i || vec_bad_i);
    always @* begin
        ex_trap  = illegal || loop_ill || loop_trap || mm_trap || st_trap || bias_trap || vec_trap;
        ex_cause = f_trap_q ? (f_wd_q ? TRAP_WATCHDOG : TRAP_PC_RANGE) :
                   f_fmt_q ? TRAP_FORMAT :
                   (illegal || loop_ill) ? TRAP_ILLEGAL : is_loop ? TRAP_LOOP_STACK :
                   is_vs ? (vec_mis_i ? TRAP_MISALIGNED : TRAP_SPAD_RANGE) :
                   (is_mm || (is_st && st_mis) || (is_bias_c && bias_mis)) ? TRAP_MISALIGNED : TRAP_SPAD_RANGE;
        ex_halt  = is_halt;                 // (used with ex_done: not illegal)
        ex_wait = exec && !ex_trap && stays;
        ex_done = exec && !ex_trap && !stays;
        // register writes never depend on a trap (no writing instruction traps)
        // `advance` spelt for the writing instructions: none of them waits
        // for the tensor unit, the drain or bias (their flags and rd_we's
        // are decoded from different opcodes), so only mul's steps and vget's
        // vector wait hold a write back (timing: the tensor queue's accept ->
        // drain_wait -> the write enable was the iCEBreaker's critical path
        // at seed 3 on 883202c, docs/fpga.md; VECTOR = 0 drops the vget term)
        rf_we   = ok && rd_we && !mul_wait && !(wr_vec && stays) &&
                  !rst_i && !stop_i && !run_i && !mm_kill;

        // next pc, with the zero-overhead back edge on sequential flow. The
        // loop stack moves when the instruction leaves EXEC, trap or not: after
        // a trap it is not observable (RUN clears it)
        ls_push = do_push;
        ls_pop  = 1'b0;
        ls_dec  = 1'b0;
        npc     = taken ? tgt : {{(32-PW){1'b0}}, fall_q};   // (back edge: FETCH)
        if (is_seq && at_end_q && (OVERLAP == 0 || is_bne || is_blt)) begin   // (OVERLAP: FETCH's, above)
            if (again_q) begin                              // count > 1
                ls_dec = advance;
            end else begin
                ls_pop = advance;
            end
        end

        // counter events (see the header: per-instruction cost accounting)
        ev_cycles_o      = 2'd0;
        ev_instret_o     = 1'b0;
        ev_stall_drain_o = 1'b0;
        if (ex_wait) ev_stall_drain_o = drain_wait && !mm_kill;   // not mul's, bias reads' or the vector unit's cycles
        if (f_wait) ev_stall_drain_o = !mm_kill;
        if (ex_done && !mm_kill) ev_instret_o = 1'b1;
        // CYCLES: every EXEC cycle adds 1, the first one also its FETCH's
        // (fx_q) -- the same 2 + waits per instruction, and T_n at every
        // FETCH, without waiting for the wait or trap decisions (timing: the
        // counter's adder is off the EXEC paths); a trapping instruction adds
        // its 2 too -- docs/isa.md leaves the cycle count of trapped runs open
        if (exec) ev_cycles_o = fx_q ? 2'd2 : 2'd1;
        if (f_wait) ev_cycles_o = 2'd1;
    end
`ifndef SYNTHESIS
    // rf_we's spelling is `advance` for the writing instructions: checked
    // every cycle in simulation
    always @(posedge clk_i)
        if (!rst_i && rf_we != (advance && rd_we && !stop_i && !run_i && !mm_kill)) begin
            $display("spu_sequencer: rf_we %0d differs from advance", rf_we);
            $stop;
        end
`endif


    // ---- overlapped issue (OVERLAP; docs/isa.md "Overlapped issue") -------------
    // EXEC's last cycle is the next word's FETCH unless EXEC holds a change of
    // flow FETCH did not foresee (bne, blt, jmp, loop, taken or not), a cfg or
    // a stride (st's checks use them precomputed a cycle later), or the next
    // word is a cnt (its FETCH waits) or names, in a register field of its
    // opcode's format (REGS_*), the register EXEC writes (read in this FETCH
    // while it is written). A word outside the store names nothing.
    wire f_haz   = rd_we && (xa != 4'd0) &&
                   ((REGS_A[op_f] && fa == xa) || (REGS_B[op_f] && fb == xa) || (REGS_C[op_f] && fc == xa));
    wire can_ovl = !is_jmp && !is_bne && !is_blt && !is_loop && !is_idw &&
                   (fall_out || !(f_haz || op_f == OP_CNT));
    // (without EXEC's traps other than illegal: a trapping instruction's
    // run ends, so what its FETCH ahead reads or loads is never used -- but
    // epc_q, which the trap's restore reads, loads only without a trap;
    // timing: the register file's compares stay off the read address)
    assign ovl_go  = (OVERLAP != 0) && exec && !illegal && !stays && !ex_halt && can_ovl && !mm_kill &&
                     !rst_i && !stop_i && !run_i;
    assign fload   = (ph_q == P_FETCH) || ovl_go;
    assign fgo     = ((ph_q == P_FETCH) && !f_wait) || ovl_go;
    assign fall_out = ({{(32-PW){1'b0}}, fall_q} >= UW32);
    assign f_pc_bad = (OVERLAP != 0 && ph_q != P_FETCH) ? fall_out : pc_bad;

    always @(posedge clk_i) begin
        if (rst_i)
            wd_rem_q <= {33{1'b1}};
        else if (run_i && !stop_i)
            wd_rem_q <= {1'b0, run_watchdog_i} - 33'd1;
        else if (!wd_rem_q[32])
            wd_rem_q <= wd_rem_q - {31'd0, ev_cycles_o};
    end

    // ---- state update --------------------------------------------------------------
    // the cause of an EXEC trap, taken into trap_q in P_WAIT (the state still
    // says RUNNING there; timing: trap_q's enable is not the trap decision)
    reg  [7:0] cause_q;
    always @(posedge clk_i)
        if (exec) cause_q <= ex_cause;
    // halt leaves EXEC (ex_done && ex_halt) -- spelt without ex_trap, whose
    // terms other than illegal all name other instructions, and without
    // stays, whose halt term is the tensor unit wait (not the drain's writes)
    wire halt_done = exec && is_halt && !illegal && tu_idle_i;
    always @(posedge clk_i) begin
        if (rst_i) begin
            ph_q     <= P_OFF;
            status_q <= STATE_IDLE;
            trap_q   <= TRAP_NONE;
            wd_on_q  <= 1'b0;
            sa_q <= stride_keep(WB32); sb_q <= stride_keep(WB32); sc_q <= stride_keep(SC32);
            cin_q   <= CFG_IN_DEFAULT[3:0];
            cout_q  <= CFG_OUT_DEFAULT[3:0];
            shift_q <= CFG_SHIFT_DEFAULT[4:0];
            round_q <= CFG_ROUND_DEFAULT[1:0];
            relu_q  <= CFG_RELU_DEFAULT[0];
            ovf_q   <= CFG_OVF_DEFAULT[0];
        end else if (stop_i) begin
            ph_q     <= P_OFF;
            status_q <= STATE_IDLE;
        end else if (run_i) begin
            ph_q     <= P_FETCH;
            status_q <= STATE_RUNNING;
            trap_q   <= TRAP_NONE;
            wd_on_q  <= (run_watchdog_i != 32'd0);
            sa_q <= stride_keep(WB32); sb_q <= stride_keep(WB32); sc_q <= stride_keep(SC32);
            cin_q   <= CFG_IN_DEFAULT[3:0];
            cout_q  <= CFG_OUT_DEFAULT[3:0];
            shift_q <= CFG_SHIFT_DEFAULT[4:0];
            round_q <= CFG_ROUND_DEFAULT[1:0];
            relu_q  <= CFG_RELU_DEFAULT[0];
            ovf_q   <= CFG_OVF_DEFAULT[0];
        end else begin
            // cfg and stride cannot trap (an illegal cfg is `illegal`)
            if (advance && !mm_kill && op == OP_CFG) begin
                cin_q   <= x_imm22u[CFG_IN_LSB    +: CFG_IN_W];
                cout_q  <= x_imm22u[CFG_OUT_LSB   +: CFG_OUT_W];
                shift_q <= x_imm22u[CFG_SHIFT_LSB +: CFG_SHIFT_W];
                round_q <= x_imm22u[CFG_ROUND_LSB +: CFG_ROUND_W];
                relu_q  <= x_imm22u[CFG_RELU_LSB];
                ovf_q   <= x_imm22u[CFG_OVF_LSB];
            end
            if (advance && !mm_kill && op == OP_STRIDE) begin
                sa_q <= stride_keep(ra); sb_q <= stride_keep(rb); sc_q <= stride_keep(rc);
            end
            if (mm_kill) begin
                ph_q <= P_OFF; status_q <= STATE_TRAPPED; trap_q <= TRAP_SPAD_RANGE;
            end else case (ph_q)
                P_FETCH: if (!f_wait) ph_q <= P_EXEC;   // (its traps: EXEC, see f_trap_q)
                P_EXEC: begin
                    if (ex_trap) begin
                        // the tensor unit finishes what it took (the model
                        // applied it) before the state says TRAPPED; P_WAIT
                        // also puts pc back on the trapping instruction (pc_q
                        // below) and takes the cause into trap_q (cause_q),
                        // so a trap always passes through it (one cycle at
                        // least: not counted in CYCLES)
                        ph_q   <= P_WAIT;
                    end else if (ex_done) begin
                        if (ex_halt) begin
                            ph_q <= P_OFF;
                        end else if (!ovl_go) begin
                            ph_q <= P_FETCH;
                        end                             // (ovl_go: the next word's EXEC)
                    end
                    // halt completes unless illegal (no other trap term
                    // names halt; timing: the register file's compares of
                    // the other instructions' traps stay off status_q)
                    if (halt_done) status_q <= STATE_HALTED;
                end
                P_WAIT: begin
                    trap_q <= cause_q;
                    if (tu_idle_i) begin
                        ph_q <= P_OFF; status_q <= STATE_TRAPPED;
                    end
                end
                default: ;
            endcase
        end
    end

    // pc: written in every EXEC cycle (not halt) with npc, trap or not
    // (timing: the trap decision, from the register file's compares, reaches
    // neither pc's enable nor its data); a trap of EXEC puts it back in the
    // next cycle (P_WAIT) from epc_q, the pc of the instruction in EXEC
    // (< UCODE_WORDS there). FETCH's traps (pc range, watchdog) never write
    // it (f_trap_q), so an out-of-range pc stays whole. mm's range trap
    // returns to the mm.
    reg [UAW-1:0] epc_q;
    reg           restore_q;
    always @(posedge clk_i) begin
        if ((ph_q == P_FETCH) || (ovl_go && !ex_trap)) epc_q <= fpc;
        restore_q <= exec && ex_trap && !f_trap_q && !mm_kill && !rst_i && !stop_i && !run_i;
    end
    // pc takes npc in every EXEC cycle but halt's and a FETCH trap's (npc
    // holds through EXEC: the flags, the registers read, the microcode word
    // and fall_q do), so an EXEC that waits shows the next pc from its second
    // cycle on. Timing: the waits (the tensor queue's accept, the drain)
    // reached the enable of pc's 32 flip-flops through `stays`, the
    // iCEBreaker's critical path at seed 2 on 1a19ab0 (docs/fpga.md); the
    // tensor unit takes the mm's pc from epc_q instead
    wire pc_exec = exec && !is_halt && !f_trap_q;
    always @(posedge clk_i) begin
        if (rst_i)
            pc_q <= 32'd0;
        else if (stop_i)
            pc_q <= pc_q;
        else if (run_i)
            pc_q <= run_pc_i;
        else if (mm_kill)
            pc_q <= {{(32-UAW){1'b0}}, mm_bad_pc_i};
        else if (restore_q)
            pc_q <= {{(32-UAW){1'b0}}, epc_q};
        else if (pc_exec)
            pc_q <= npc;
    end

    // pc_bad, for a power-of-two UCODE_WORDS: pc's bits above UAW are not all
    // zero, kept in flip-flops loaded beside pc_q (timing: the 22-bit OR of
    // pc_q's high bits was in front of a `cnt`'s FETCH wait and so of the
    // counter store's read address and write-back, the iCEBreaker's critical
    // path at seeds 1 and 3 once the link's paths were cut, docs/fpga.md).
    // The high bits can only come from RUN's address or from npc: a taken
    // target (the instruction's immediate) or the fall-through (PW bits:
    // out of range when its top bit is set)
    generate
        if ((UCODE_WORDS & (UCODE_WORDS - 1)) == 0) begin : g_pc_bad_ff
            // Two candidates, both from flip-flops and the microcode word,
            // loaded when pc is (pcb_t_q: the taken target's, pcb_f_q: the
            // fall-through's; RUN, a trap's restore and mm's range trap load
            // both with the one answer), and the branch decision in a
            // flip-flop of its own (br_q) loaded in every EXEC cycle with no
            // other condition: FETCH selects (pc_bad is a 3-input LUT). Timing:
            // the register file -> the branch compares' carry chains -> this
            // flip-flop's data and priority muxes was the iCEBreaker's
            // critical path at seeds 1 and 2 on e68a398 / 883202c
            // (docs/fpga.md); now the compares feed one D input.
            reg  pcb_t_q, pcb_f_q, br_q;
            wire tgt_hi = (tgt[31:UAW] != {(32-UAW){1'b0}});
            wire run_hi = (run_pc_i[31:UAW] != {(32-UAW){1'b0}});
            always @(posedge clk_i) begin
                if (rst_i) begin
                    pcb_t_q <= 1'b0; pcb_f_q <= 1'b0;
                end else if (stop_i) begin
                    pcb_t_q <= pcb_t_q; pcb_f_q <= pcb_f_q;
                end else if (run_i) begin
                    pcb_t_q <= run_hi; pcb_f_q <= run_hi;
                end else if (mm_kill || restore_q) begin
                    pcb_t_q <= 1'b0; pcb_f_q <= 1'b0;
                end else if (pc_exec) begin
                    pcb_t_q <= tgt_hi; pcb_f_q <= fall_q[PW-1];
                end
            end
            // pc_exec's cycles are EXEC's (ra, rb and the flags hold
            // through EXEC), so in the next FETCH br_q is the decision that
            // wrote pc; outside FETCH pc_bad is not used
            always @(posedge clk_i)
                if (exec) br_q <= taken;
            assign pc_bad = br_q ? pcb_t_q : pcb_f_q;
`ifndef SYNTHESIS
            // the selected candidate is pc_q's high bits in every FETCH,
            // checked in simulation from the first reset on
            reg chk_q = 1'b0;
            always @(posedge clk_i) begin
                if (rst_i)
                    chk_q <= 1'b1;
                else if (chk_q && ph_q == P_FETCH && pc_bad != (pc_q[31:UAW] != {(32-UAW){1'b0}})) begin
                    $display("spu_sequencer: pc_bad %0d, pc %0d", pc_bad, pc_q);
                    $stop;
                end
            end
`endif
        end else begin : g_pc_bad_cmp
            assign pc_bad = (pc_q >= UW32);
        end
    endgenerate

    // ---- outputs ---------------------------------------------------------------------
    // the microcode read is issued on the way INTO FETCH (RUN, an EXEC that
    // continues, the end of an mm), so FETCH already has the instruction
    // (also when the instruction traps: a read is harmless, and the trap
    // decision stays off this path)
    // OVERLAP: FETCH reads the fall-through of its word as it leaves
    // (fall_d; the word the EXEC after it holds), and so does an EXEC whose
    // last cycle is the next word's FETCH (ovl_go); an EXEC that ends
    // otherwise reads the next pc as without OVERLAP
    wire           f_read     = (OVERLAP != 0) && (((ph_q == P_FETCH) && !f_wait) || ovl_go);
    assign ucode_re_o    = !rst_i && !stop_i && (run_i || (advance && !is_halt) || f_read);
    // (run_i never comes while running; the taken selects are last, blt's last of all)
    wire [UAW-1:0] raddr_base = run_i ? run_pc_i[UAW-1:0] : f_read ? fall_d[UAW-1:0] :
                                exec ? fall_q[UAW-1:0] : pc_q[UAW-1:0];
    wire [UAW-1:0] raddr_fast = (exec && !run_i && !f_read && take_fast) ? tgt[UAW-1:0] : raddr_base;
    assign ucode_raddr_o = (exec && !run_i && !f_read && take_lt) ? tgt[UAW-1:0] : raddr_fast;
    assign ucode_fall_o  = raddr_base;
    assign ucode_tgt_o   = tgt[UAW-1:0];
    assign ucode_taken_o = taken;
    assign state_o       = status_q;
    assign trap_o        = trap_q;
    assign pc_o          = pc_q;
    assign running_o     = running_n;
    assign cnt_sel_o     = (ph_q == P_FETCH) ? imm18u[3:0] : x_imm18u[3:0];
    assign cnt_use_o     = ok && wr_cnt;
    // the counter store reads the cnt's slot in its last FETCH cycle. Without
    // FETCH's traps in the condition (timing: the watchdog and pc-range
    // verdicts -> the store's read select and write-back): a FETCH that traps
    // with the tensor unit busy then reads as a plain cycle, and its EXEC
    // (illegal, `ok` low) uses no counter value
    assign cnt_fetch_o   = (ph_q == P_FETCH) && (op_f == OP_CNT) && tu_idle_i;
    assign clear_o       = run_i;
    assign drain_add_o   = do_st ? drain_cycles_i : 16'd0;
    assign tu_push_o     = do_mm || do_st || do_zacc;
    assign tu_kind_o     = is_st ? 2'd1 : is_zacc ? 2'd2 : 2'd0;
    assign tu_pc_o       = epc_q;               // the pc of the instruction in EXEC
    assign mm_kill_o     = mm_kill;
    assign mm_a_o        = ra[AW-1:0];
    assign mm_b_o        = rb[AW-1:0];
    assign mm_sa_o       = sa_q[AW-1:0];
    assign mm_sb_o       = sb_q[AW-1:0];
    assign mm_over_o     = {|sb_q[SW-1:AW], |sa_q[SW-1:AW], |rb[31:AW], |ra[31:AW]};
    assign mm_k_o        = rc;
    assign st_stride_o   = sc_q[AW-1:0];
    assign cfg_in_o      = cin_q;
    assign cfg_out_o     = cout_q;
    assign cfg_shift_o   = shift_q;
    assign cfg_round_o   = round_q;
    assign cfg_relu_o    = relu_q;
    assign cfg_ovf_o     = ovf_q;
    assign vlen_we_o     = advance && !mm_kill && (op == OP_VLEN);
    assign vstride_we_o  = advance && !mm_kill && (op == OP_VSTRIDE);
    assign vec_start_o   = vec_start;
    assign vec_op_o      = op;
    assign vec_ra_o      = ra;
    assign vec_rb_o      = rb;
    assign vec_rc_o      = rc;
endmodule
`default_nettype wire
