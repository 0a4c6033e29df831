// spu_core -- the compute side of the SPU: sequencer, tile array, load and
// drain units, banked scratchpad, microcode store, performance counters.
// The port list is the contract with the link side (hw/rtl/link/, which
// drives it from the command engine). Behaviour: docs/isa.md; structure and
// timing: docs/rtl.md.
//
//   ucode RAM -> spu_sequencer -> spu_load_unit -> spu_array -> spu_drain_unit
//                    |               ^ 2 read ports       |          | write port
//                    +-> spu_counters spu_spad (banked) <-----------+
//
// Reset: synchronous, active-high rst_i, everywhere in the design (RAM
// contents excepted). Host access ports are used by the command engine only
// while state_o is not RUNNING (the engine answers BUSY otherwise); the
// scratchpad port also holds spad_req_ready_o low while a background drain
// (after a halt or a trap) is still writing, and a RUN then waits for it.
// Geometry: ROWS, COLS, SPAD_BYTES, SPAD_BANKS powers of two, SPAD_BANKS >= 2,
// UCODE_WORDS <= 2^18; WORD_BYTES = max(ROWS, COLS).
`default_nettype none
module spu_core #(
    parameter integer ROWS        = 8,
    parameter integer COLS        = 8,
    parameter integer SPAD_BYTES  = 262144,
    parameter integer SPAD_BANKS  = 4,
    parameter integer UCODE_WORDS = 1024,
    parameter integer LOOP_DEPTH  = 4,
    parameter integer DRAIN_LANES = COLS,  // accumulators drained per cycle (spu_drain_unit; boards: 1)
    parameter integer USE_ICE40_DSP = 0,   // 1: tile multipliers in SB_MAC16 pairs (UP5K)
    parameter integer BROADCAST   = 0,     // 1: array row/column buses instead of systolic links (spu_array)
    parameter integer CNT_WIDTH   = 64,    // counter width kept (32 on boards), reads zero-extended
    parameter integer CNT_RAM     = 0,     // 1: counters 1..8 in an EBR (boards), spu_counters
    parameter [31:0]  FORMATS     = 32'h1, // bit d: the array carries cfg in = dtype d (INFO formats)
    parameter integer VECTOR      = 0,     // 1: the vector unit (spu_vector_unit; INFO features bit 0)
    parameter integer SPAD_SPRAM  = 0,     // 1: banks in UP5K SPRAM, single port (spu_spad; INFO features bit 1); needs VECTOR = 0
    parameter integer CHAIN       = 0,     // 1: chained streams (spu_load_unit; INFO features bit 2); needs SPAD_SPRAM = 0, USE_ICE40_DSP = 0
    parameter integer UCODE_TWIN  = 0,     // 1: the microcode store twice, the taken target read beside the fall-through (below; timing)
    parameter integer SPAD_2X     = 0,     // 1: SPRAM requests registered, taken mid-cycle on clk2x_i (spu_spram MID); needs SPAD_SPRAM = 1
    parameter integer ARRAY_2X    = 0,     // 1: the array on clk2x_i, k-step pairs (spu_array FAST, spu_load_unit PAIR; INFO features bit 4); needs SPAD_2X, USE_ICE40_DSP, BROADCAST
    parameter integer OVERLAP     = 0      // 1: overlapped issue (spu_sequencer; INFO features bit 5); needs UCODE_TWIN = 0
) (
    input  wire        clk_i,
    input  wire        clk2x_i,            // SPAD_2X: twice clk_i from the same PLL, rising edges aligned (else unused)
    input  wire        rst_i,
    // scratchpad byte port for the host (WRITE / READ commands)
    input  wire        spad_req_valid_i,   // request; held until spad_req_ready_o
    output wire        spad_req_ready_o,
    input  wire        spad_req_we_i,
    input  wire [31:0] spad_req_addr_i,    // byte address, < SPAD_BYTES (engine checks)
    input  wire [7:0]  spad_req_wdata_i,
    output wire        spad_rsp_valid_o,   // one pulse per accepted read, in order
    output wire [7:0]  spad_rsp_rdata_o,
    // microcode store write port (UCODE command)
    input  wire        ucode_we_i,
    input  wire [31:0] ucode_addr_i,       // word address, < UCODE_WORDS (engine checks)
    input  wire [31:0] ucode_wdata_i,
    // kernel arguments r1..r8 (ARGS command); arg_idx_i 0 -> r1
    input  wire        arg_we_i,
    input  wire [2:0]  arg_idx_i,
    input  wire [31:0] arg_wdata_i,
    // control (RUN / RESET commands), one-cycle pulses
    input  wire        run_i,
    input  wire [31:0] run_pc_i,
    input  wire [31:0] run_watchdog_i,     // cycles, 0 = no limit
    input  wire        stop_i,             // RESET: stop, state IDLE, memories kept
    // status (STATUS command)
    output wire [1:0]  state_o,            // STATE_* of spu_isa.vh
    output wire [7:0]  trap_o,             // TRAP_*
    output wire [31:0] pc_o,               // pc of halt / trap / current
    // performance counters (COUNTERS command): registered read, 1-cycle latency,
    // 2 when the sequencer's `cnt` uses the shared read mux; CNT_RAM = 1: up to
    // about 20 cycles (wait for cnt_fresh_o)
    input  wire [3:0]  cnt_sel_i,          // CNT_* id
    output wire [63:0] cnt_value_o,
    output wire        cnt_fresh_o,         // cnt_value_o is counter cnt_sel_i
    // scalar registers (REGS command), combinational read, valid while not RUNNING
    input  wire [3:0]  reg_sel_i,
    output wire [31:0] reg_value_o,
    input  wire        link_rx_byte_i,     // pulse per byte received (LINK_RX)
    input  wire        link_tx_byte_i      // pulse per byte sent (LINK_TX)
`ifdef SPU_CORE_CLOCK_GATE
    ,
    // simulation only (the Verilated sim board; docs/rtl.md "Core clock
    // gate in simulation"): the clock of the sequencer, microcode store,
    // load unit, array, drain and vector units and the scratchpad's unit
    // read registers, which a harness may leave low while core_wake_o is
    // low; clk_i keeps the scratchpad's memory and host port and the
    // counters. Hardware has no such port: those units run on clk_i.
    input  wire        core_clk_i,
    output wire        core_wake_o          // the next core_clk_i edge may change the units' state
`endif
);
`include "spu_isa.vh"
    localparam integer WORD_BYTES = (ROWS > COLS) ? ROWS : COLS;
    localparam integer AW  = $clog2(SPAD_BYTES);
    localparam integer UAW = $clog2(UCODE_WORDS);
    localparam integer OFF = $clog2(WORD_BYTES);
    localparam integer DW  = WORD_BYTES * 8;
    // a float format widens the accumulators to the exact fixed-point grid
    // and adds out=f32 (docs/numerics.md "Datapath numerics")
    localparam integer ACC_W = ((FORMATS & ~32'h1) != 32'd0) ? 80 : 32;

`ifdef SPU_CORE_CLOCK_GATE
    wire core_clk = core_clk_i;
`else
    wire core_clk = clk_i;
`endif

    // ---- microcode store ---------------------------------------------------------
    wire           ucode_re;
    wire [UAW-1:0] ucode_raddr;
    wire [31:0]    ucode_rdata;
    // a word address beyond the store (never sent by the engine) is ignored
    wire ucode_in = (ucode_addr_i[31:UAW] == {(32-UAW){1'b0}});
    // UCODE_TWIN: the first copy's read address and the word the sequencer
    // decodes (the copies and the pick: after the sequencer below)
    wire [UAW-1:0] ucode_raddr_a;
    wire [31:0]    ucode_insn;
    spu_ram_1r1w #(.WIDTH(32), .DEPTH(UCODE_WORDS)) u_ucode (
        .clk_i(core_clk), .we_i(ucode_we_i && ucode_in), .wbe_i(4'hF), .waddr_i(ucode_addr_i[UAW-1:0]),
        .wdata_i(ucode_wdata_i), .re_i(ucode_re), .raddr_i(ucode_raddr_a), .rdata_o(ucode_rdata)
    );

    // ---- sequencer ---------------------------------------------------------------
    wire [UAW-1:0] ucode_fall, ucode_tgt;   // the read address's parts (UCODE_TWIN)
    wire           ucode_taken;
    wire [63:0]   cycles;
    wire [3:0]    seq_cnt_sel;
    wire          seq_cnt_use, seq_cnt_fetch;
    wire [31:0]   seq_cnt_val;
    wire [1:0]    ev_cycles;
    wire          ev_instret, ev_mm, ev_stall_drain, cnt_clear, running;
    wire [15:0]   drain_add, drain_cycles;
    wire          mm_kill, mm_step, mm_stall, mm_bad;
    wire          unused_mm_kill = mm_kill;   // the load unit drops its stream itself (bad_o)
    wire [UAW-1:0] mm_bad_pc, tu_pc;
    wire [3:0]    mm_over;
    wire [AW-1:0] mm_a, mm_b, mm_sa, mm_sb, st_addr, st_stride;
    wire [31:0]   mm_k;
    wire          tu_push, tu_accept, tu_idle, tok, tok_st;
    wire [1:0]    tu_kind;
    wire          drain_free, drain_busy;
    wire [3:0]    cfg_in, cfg_out;
    wire [4:0]    cfg_shift;
    wire [1:0]    cfg_round;
    wire          cfg_relu, cfg_ovf;
    wire          vlen_we, vstride_we, vec_start, vec_mis, vec_busy, vec_done, vec_bad, vec_stall;
    wire [5:0]    vec_op;
    wire [31:0]   vec_ra, vec_rb, vec_rc;
    wire [31:0]   vec_val;

    wire [1:0]    seq_state;

    // ---- RUN after a halt whose last drain still writes -------------------------
    // halt waits for the tensor unit, not for the last st's drain writes
    // (docs/isa.md `halt`): they finish in the background while the host
    // port waits (host_ok). A RUN arriving while they write is held until
    // they are done, the state saying RUNNING meanwhile, so every run starts
    // with the drain unit idle, as the model's does.
    reg           run_hold_q;
    wire          run_go = (run_i || run_hold_q) && !drain_busy;
    always @(posedge core_clk)
        if (rst_i || stop_i) run_hold_q <= 1'b0;
        else                 run_hold_q <= (run_i || run_hold_q) && drain_busy;
    assign state_o = run_hold_q ? STATE_RUNNING : seq_state;

    spu_sequencer #(
        .ROWS(ROWS), .COLS(COLS), .WORD_BYTES(WORD_BYTES), .SPAD_BYTES(SPAD_BYTES),
        .UCODE_WORDS(UCODE_WORDS), .LOOP_DEPTH(LOOP_DEPTH), .FORMATS(FORMATS), .VECTOR(VECTOR),
        .OVERLAP(OVERLAP)
    ) u_seq (
        .clk_i(core_clk), .rst_i(rst_i),
        .run_i(run_go), .run_pc_i(run_pc_i), .run_watchdog_i(run_watchdog_i), .stop_i(stop_i),
        .arg_we_i(arg_we_i), .arg_idx_i(arg_idx_i), .arg_wdata_i(arg_wdata_i),
        .ucode_re_o(ucode_re), .ucode_raddr_o(ucode_raddr), .ucode_rdata_i(ucode_insn),
        .ucode_fall_o(ucode_fall), .ucode_tgt_o(ucode_tgt), .ucode_taken_o(ucode_taken),
        .state_o(seq_state), .trap_o(trap_o), .pc_o(pc_o), .running_o(running),
        .dbg_sel_i(reg_sel_i), .dbg_value_o(reg_value_o),
        .cycles_i(cycles), .cnt_sel_o(seq_cnt_sel), .cnt_use_o(seq_cnt_use), .cnt_fetch_o(seq_cnt_fetch), .cnt_value_i(seq_cnt_val),
        .ev_cycles_o(ev_cycles), .ev_instret_o(ev_instret),
        .ev_stall_drain_o(ev_stall_drain), .clear_o(cnt_clear), .drain_add_o(drain_add),
        .tu_push_o(tu_push), .tu_kind_o(tu_kind), .tu_pc_o(tu_pc), .tu_accept_i(tu_accept), .tu_idle_i(tu_idle),
        .mm_kill_o(mm_kill), .mm_a_o(mm_a), .mm_b_o(mm_b), .mm_sa_o(mm_sa), .mm_sb_o(mm_sb),
        .mm_over_o(mm_over), .mm_k_o(mm_k), .mm_bad_i(mm_bad), .mm_bad_pc_i(mm_bad_pc),
        .st_stride_o(st_stride),
        .drain_free_i(drain_free), .drain_cycles_i(drain_cycles),
        .drain_busy_i(drain_busy), .bias_re_o(bias_re), .bias_addr_o(bias_addr), .bias_idx_o(bias_idx),
        .drain_quiet_i(!drain_busy),
        .cfg_in_o(cfg_in), .cfg_out_o(cfg_out), .cfg_shift_o(cfg_shift),
        .cfg_round_o(cfg_round), .cfg_relu_o(cfg_relu),
        .cfg_ovf_o(cfg_ovf),
        .vlen_we_o(vlen_we), .vstride_we_o(vstride_we), .vec_start_o(vec_start), .vec_op_o(vec_op),
        .vec_ra_o(vec_ra), .vec_rb_o(vec_rb), .vec_rc_o(vec_rc),
        .vec_mis_i(vec_mis), .vec_busy_i(vec_busy), .vec_done_i(vec_done), .vec_bad_i(vec_bad),
        .vec_val_i(vec_val)
    );

    // UCODE_TWIN = 1: the store twice, both copies written by UCODE. A read
    // in EXEC takes the fall-through (pc + 1, a loop's back edge; RUN's pc)
    // from u_ucode and the taken target from u_ucode_t, and tw_q, loaded with
    // the read, picks the word the sequencer decodes (one LUT after the
    // stores). So the branch decision (the register file's compares) ends at
    // tw_q's D input instead of running on through the read-address muxes
    // into the store (timing: docs/rtl.md "Pipelines and timing").
    // UCODE_TWIN = 0: one store at the sequencer's read address.
    generate
        if (UCODE_TWIN != 0) begin : g_ucode_twin
            wire [31:0] rdata_t;
            reg         tw_q;
            always @(posedge core_clk)
                if (rst_i)         tw_q <= 1'b0;
                else if (ucode_re) tw_q <= !run_go && ucode_taken;   // a read without RUN is EXEC's
            spu_ram_1r1w #(.WIDTH(32), .DEPTH(UCODE_WORDS)) u_ucode_t (
                .clk_i(core_clk), .we_i(ucode_we_i && ucode_in), .wbe_i(4'hF), .waddr_i(ucode_addr_i[UAW-1:0]),
                .wdata_i(ucode_wdata_i), .re_i(ucode_re), .raddr_i(ucode_tgt), .rdata_o(rdata_t)
            );
            assign ucode_raddr_a = ucode_fall;
            assign ucode_insn    = tw_q ? rdata_t : ucode_rdata;
            wire unused_raddr = &{1'b0, ucode_raddr};
        end else begin : g_ucode_one
            assign ucode_raddr_a = ucode_raddr;
            assign ucode_insn    = ucode_rdata;
            wire unused_twin = &{1'b0, ucode_fall, ucode_tgt, ucode_taken};
        end
    endgenerate

    // ---- the second clock's phase (SPAD_2X) ------------------------------------------
    // ph: 0 in clk2x_i's first cycle after a clk_i edge, 1 in its second;
    // the SPRAM requests, a pair's second reads and the array's edges follow
    // it (spu_spram, spu_spad, spu_array FAST). clk_i's toggle against its
    // copy on clk2x_i says which half of the cycle ends at an edge of
    // clk2x_i (equal: the second, so the edge is aligned); ph is the
    // flip-flop that takes the half the edge begins, so everything that
    // selects by it starts at a clk2x_i flip-flop (timing)
    wire ph;
    generate
        if (SPAD_2X != 0) begin : g_ph
            reg tog_q = 1'b0, tog2_q = 1'b0, ph_q = 1'b0;
            always @(posedge clk_i)   tog_q  <= ~tog_q;
            always @(posedge clk2x_i) begin
                tog2_q <= tog_q;
                ph_q   <= (tog2_q != tog_q);
            end
            assign ph = ph_q;
        end else begin : g_no_ph
            assign ph = 1'b1;
        end
    endgenerate
    initial
        if ((SPAD_2X != 0 && SPAD_SPRAM == 0) ||
            (ARRAY_2X != 0 && !(SPAD_2X != 0 && USE_ICE40_DSP != 0 && BROADCAST != 0 && CHAIN == 0 &&
                                FORMATS == 32'h1)) ||
            (OVERLAP != 0 && UCODE_TWIN != 0)) begin
            $display("spu_core: SPAD_2X needs SPAD_SPRAM; ARRAY_2X needs SPAD_2X, USE_ICE40_DSP, BROADCAST, int8 only, no CHAIN; OVERLAP needs UCODE_TWIN = 0");
            $finish;
        end

    // ---- scratchpad and its users ----------------------------------------------------
    // bias: the sequencer reads the bias words on port A (tensor unit idle);
    // the word arrives one cycle later, into the drain unit's bias registers
    wire                    bias_re;
    wire [AW-$clog2(WORD_BYTES)-1:0] bias_addr;
    wire [3:0]              bias_idx;
    reg                     bias_we_q;
    reg  [3:0]              bias_idx_q;
    always @(posedge core_clk) begin
        bias_we_q  <= bias_re && !rst_i;
        bias_idx_q <= bias_idx;
    end
    wire          ld_a_re, ld_b_re;
    wire          ld_pair;        // the load unit's step is a k-step pair (ARRAY_2X)
    localparam integer WA = AW - OFF;
    wire [WA-1:0] ld_a_addr, ld_b_addr;
    wire [DW-1:0] a_rdata, b_rdata;
    // the drain writes a group per cycle: DR_WORDS words (spu_drain_unit,
    // spu_spad WR_WORDS); the vector unit and the host write word 0
    localparam integer DR_WORDS = (DRAIN_LANES * 4 > WORD_BYTES) ? DRAIN_LANES * 4 / WORD_BYTES : 1;
    wire          dr_we;
    wire [WA-1:0] dr_waddr;
    wire [DR_WORDS*DW-1:0] dr_wdata;
    wire [DR_WORDS*WORD_BYTES-1:0] dr_wbe;
    // the other writers' word, as word 0 of a write
    wire [DR_WORDS*DW-1:0]         o_wdata;
    wire [DR_WORDS*WORD_BYTES-1:0] o_wbe;
    // the vector unit: runs only while the tensor unit is idle and the drain
    // done (the sequencer starts it then), so it never meets the load or
    // drain unit on a port; the host port is served only while not running
    wire          v_a_re, v_b_re, v_we;
    wire [WA-1:0] v_a_addr, v_b_addr, v_waddr;
    wire [DW-1:0] v_wdata;

    // host byte port: served while not running and no drain is writing
    // (an address beyond the scratchpad, which the engine never sends, is
    // accepted and ignored: no write, read data 0 -- never an alias)
    wire          host_ok  = !running && !drain_busy && tu_idle;
    wire          host_in  = (spad_req_addr_i[31:AW] == {(32-AW){1'b0}});
    wire          host_acc = spad_req_valid_i && host_ok && host_in;
    wire          host_rd  = host_acc && !spad_req_we_i;
    wire          host_wr  = host_acc && spad_req_we_i;
    wire [AW-1:0] host_addr = spad_req_addr_i[AW-1:0];
    reg           rsp_valid_q, rsp_in_q;
    reg [OFF-1:0] rsp_byte_q;

    wire [WORD_BYTES-1:0] host_be = {{(WORD_BYTES-1){1'b0}}, 1'b1} << host_addr[OFF-1:0];
    // the host's read: port A, except in the gated simulation, where the
    // scratchpad gives it a read register of its own on clk_i (spu_spad)
    wire          host_rd_a;
    wire [DW-1:0] host_rdata;
`ifdef SPU_CORE_CLOCK_GATE
    assign host_rd_a = 1'b0;
`else
    assign host_rd_a  = host_rd;
    assign host_rdata = a_rdata;
`endif

    wire [DW-1:0]         o_wdata0 = v_we ? v_wdata : {WORD_BYTES{spad_req_wdata_i}};
    wire [WORD_BYTES-1:0] o_wbe0   = v_we ? {WORD_BYTES{1'b1}} : host_be;
    generate
        if (DR_WORDS > 1) begin : g_ow
            assign o_wdata = {{((DR_WORDS - 1) * DW){1'b0}}, o_wdata0};
            assign o_wbe   = {{((DR_WORDS - 1) * WORD_BYTES){1'b0}}, o_wbe0};
        end else begin : g_ow1
            assign o_wdata = o_wdata0;
            assign o_wbe   = o_wbe0;
        end
    endgenerate
    spu_spad #(.WORD_BYTES(WORD_BYTES), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS),
               .SPRAM(SPAD_SPRAM), .WR_WORDS(DR_WORDS), .MID(SPAD_2X)) u_spad (
        .clk_i   (clk_i),
        .clk2x_i (clk2x_i),
        .ph_i    (ph),
        .pair_i  (ld_pair),
        .a_re_i  (host_rd_a || ld_a_re || bias_re || v_a_re),
        .a_addr_i(host_rd_a ? host_addr[AW-1:OFF] : bias_re ? bias_addr : v_a_re ? v_a_addr : ld_a_addr),
        .a_rdata_o(a_rdata),
        .b_re_i  (ld_b_re || v_b_re),
        .b_addr_i(v_b_re ? v_b_addr : ld_b_addr),
        .b_rdata_o(b_rdata),
        .we_i    (dr_we || host_wr || v_we),
        .waddr_i (dr_we ? dr_waddr : v_we ? v_waddr : host_addr[AW-1:OFF]),
        .wdata_i (dr_we ? dr_wdata : o_wdata),
        .wbe_i   (dr_we ? dr_wbe : o_wbe)
`ifdef SPU_CORE_CLOCK_GATE
        , .core_clk_i(core_clk), .h_re_i(host_rd), .h_addr_i(host_addr[AW-1:OFF]), .h_rdata_o(host_rdata)
`endif
    );

    always @(posedge clk_i) begin
        if (rst_i) begin
            rsp_valid_q <= 1'b0;
            rsp_in_q    <= 1'b0;
            rsp_byte_q  <= {OFF{1'b0}};
        end else begin
            rsp_valid_q <= spad_req_valid_i && host_ok && !spad_req_we_i;
            rsp_in_q    <= host_in;
            if (host_rd) rsp_byte_q <= host_addr[OFF-1:0];
        end
    end
    assign spad_req_ready_o = host_ok;
    assign spad_rsp_valid_o = rsp_valid_q;
    assign spad_rsp_rdata_o = rsp_in_q ? host_rdata[rsp_byte_q*8 +: 8] : 8'd0;

    // ---- load unit, array, drain unit ---------------------------------------------------
    wire [ROWS*8-1:0]       west;       // (ARRAY_2X: changes at both edges of clk2x_i)
    wire [COLS*8-1:0]       north;
    wire                    bf_mk;      // bf16: a k-step's low word enters the skew (spu_load_unit)
    // a tile's slot on the array's bus: the sum and (ACC_W > 32) its 4 flags,
    // padded to whole 32-bit words (spu_array)
    localparam integer ACC_SLOT = (ACC_W > 32) ? 32 * ((ACC_W + 4 + 31) / 32) : ACC_W;
    wire [ROWS*COLS*ACC_SLOT-1:0] accs;
    // The st / zacc token's wave: a token launched in cycle L (spu_load_unit)
    // takes a stream slot with no read, so tile (i,j)'s term in cycle
    // L + 2 + i + j is zero; that cycle the tile clears (and, for st, the
    // drain unit captures its sum), while the products of the next block
    // follow one diagonal behind (docs/isa.md "Tensor unit"). CHAIN: a token
    // paired with the next mm pulses in the cycle that mm's first step issues
    // (L = that cycle), so tile (i,j)'s term in L + 2 + i + j is the step's
    // product, which the clearing tile keeps (spu_array). BROADCAST: every
    // tile's term of slot L arrives in cycle L + 2, so the wave is NW = 2
    // cycles long, not ROWS + COLS. The drain starts when the wave has passed
    // the last tile (go, cycle L + NW), in both.
    // ARRAY_2X: a pair's second step lands half a cycle after the first
    // (spu_array FAST), so the wave is 3 cycles long: every product of the
    // slots before the token is in its tile when the drain fetches group 0
    // (spu_drain_unit FETCH0, in the cycle before go)
    localparam integer NW = (BROADCAST != 0) ? ((ARRAY_2X != 0) ? 3 : 2) : ROWS + COLS;
    reg [NW-1:0] tokc_q, toks_q;          // bit n: the wave of a token launched n+1 cycles ago
    always @(posedge core_clk) begin
        if (rst_i || stop_i) begin
            tokc_q <= {NW{1'b0}};
            toks_q <= {NW{1'b0}};
        end else begin
            tokc_q <= {tokc_q[NW-2:0], tok};
            toks_q <= {toks_q[NW-2:0], tok_st};
        end
    end
    wire [ROWS*COLS-1:0] wave_tok, wave_cap;
    genvar gi, gj;
    generate
        for (gi = 0; gi < ROWS; gi = gi + 1) begin : g_wr
            for (gj = 0; gj < COLS; gj = gj + 1) begin : g_wc
                localparam integer D = (BROADCAST != 0) ? 1 : 1 + gi + gj;
                assign wave_tok[gi*COLS+gj] = tokc_q[D];
                assign wave_cap[gi*COLS+gj] = toks_q[D];
            end
        end
    endgenerate
    // RUN zeroes every tile (as the model). One OR of the whole vector
    // rather than one per tile: run_go follows the engine (clk_i), and a
    // Verilated model evaluates what mixes the clocks on every edge of
    // either (docs/sim.md "Speed")
    // DR_INPLACE (the iCEBreaker's shape: an mm waits for the drain): the
    // drain reads the tiles in place (spu_drain_unit INPLACE) and clears each
    // tile when its group is written (dr_rdclr); the st wave clears nothing,
    // and a zacc wave that meets a running drain is held back -- every tile
    // is then either read and cleared already or cleared when it is read, and
    // no mm adds to a tile before the drain is done (mm_ok below), so the
    // tiles and the written words are the model's (docs/rtl.md "The drain
    // reads the tiles in place").
    localparam integer DR_INPLACE = (SPAD_SPRAM != 0 && BROADCAST != 0 && CHAIN == 0 && ACC_W == 32) ? 1 : 0;
    // (ARRAY_2X: the drain's go cycle, after group 0's fetch, holds it back
    // too: a zacc right behind the st clears then, 3 cycles after its slot)
    wire [ROWS*COLS-1:0] dr_rdclr;
    wire                 zacc_hold = drain_busy || (ARRAY_2X != 0 && toks_q[NW-1]);   // (drain_go)
    wire [ROWS*COLS-1:0] wave_clr = (DR_INPLACE != 0)
        ? ((wave_tok & ~wave_cap & {(ROWS*COLS){!zacc_hold}}) | dr_rdclr | {(ROWS*COLS){run_go}})
        : (wave_tok | {(ROWS*COLS){run_go}});
    // CHAIN: the drain starts when row 0 is captured (cycle L + COLS + 1),
    // reading the groups in place (spu_drain_unit EARLY) while the wave goes
    // on through the later rows; otherwise (and with BROADCAST, where every
    // row is captured in cycle L + 2) when the wave has passed the last tile
    wire drain_go = (CHAIN != 0 && BROADCAST == 0) ? toks_q[COLS] : toks_q[NW-1];
    // (toks_q == 0) kept in a register (timing: the launch decision of the
    // tensor unit starts from flip-flops)
    reg toks_zero_q;
    always @(posedge core_clk)
        if (rst_i || stop_i) toks_zero_q <= 1'b1;
        else                 toks_zero_q <= (toks_q[NW-2:0] == {(NW-1){1'b0}}) && !tok_st;
    // CHAIN: the next st's token may launch ST_GAP cycles after the last one:
    // the drain (go at L + COLS + 1, group g of row i read in cycle L + COLS
    // + 2 + i*DG + g) has read every tile the new wave captures (tile (i,j) at
    // the end of cycle L' + 2 + i + j: L' >= L + COLS + (ROWS-1)(DG-1)) and
    // has written its last group before the next go (L' > L + DL); docs/isa.md
    // "Chained streams". BROADCAST: go at L + 2, the last read in L + 2 + DL,
    // every capture in L' + 2, so L' >= L + DL suffices for the reads.
    // Otherwise: no st token in the array and the drain free.
    localparam integer DG     = COLS / DRAIN_LANES;
    localparam integer DL     = ROWS * DG;
    localparam integer DH     = (BROADCAST != 0) ? DL : COLS + (ROWS - 1) * (DG - 1);
    localparam integer ST_GAP = 1 + ((DL > DH) ? DL : DH);
    localparam integer SGW    = $clog2(ST_GAP + 1);
    localparam [SGW-1:0] SG_MAX = ST_GAP[SGW-1:0];
    wire drain_ok;
    generate
        if (CHAIN != 0) begin : g_st_gap
            reg [SGW-1:0] st_since_q;     // cycles since the last st token, up to ST_GAP
            always @(posedge core_clk)
                if (rst_i || stop_i)            st_since_q <= SG_MAX;
                else if (tok_st)                st_since_q <= {{(SGW-1){1'b0}}, 1'b1};
                else if (st_since_q != SG_MAX)  st_since_q <= st_since_q + {{(SGW-1){1'b0}}, 1'b1};
            assign drain_ok = (st_since_q == SG_MAX);
        end else begin : g_st_free
            assign drain_ok = toks_zero_q && drain_free;
        end
    endgenerate
    // SPAD_SPRAM: a bank does one read OR one write per cycle, so an mm's
    // stream never overlaps a drain's writes: the mm launches once no st
    // token is in the array and the drain unit writes no more (the cycle
    // after its last write). docs/rtl.md "Scratchpad in SPRAM".
    wire mm_ok = (SPAD_SPRAM == 0) || (toks_zero_q && !drain_busy);

    spu_load_unit #(
        .ROWS(ROWS), .COLS(COLS), .WORD_BYTES(WORD_BYTES),
        .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS), .PCW(UAW), .BROADCAST(BROADCAST),
        .BF16((FORMATS[{1'b0, DT_BF16}] != 1'b0) ? 1 : 0),
        .MX(((FORMATS[{1'b0, DT_MXFP8_E4M3}] | FORMATS[{1'b0, DT_MXFP8_E5M2}] | FORMATS[{1'b0, DT_MXINT8}]
              | FORMATS[{1'b0, DT_MXFP6_E3M2}] | FORMATS[{1'b0, DT_MXFP6_E2M3}] | FORMATS[{1'b0, DT_MXFP4_E2M1}]) != 1'b0
            && ACC_W > 32) ? 1 : 0),
        .NARROW((FORMATS[{1'b0, DT_MXFP6_E3M2}] | FORMATS[{1'b0, DT_MXFP6_E2M3}] | FORMATS[{1'b0, DT_MXFP4_E2M1}]) != 1'b0 ? 1 : 0),
        .CHAIN(CHAIN), .WAVE(NW), .PAIR(ARRAY_2X)
    ) u_load (
        .clk_i(core_clk), .clk2x_i(clk2x_i), .ph_i(ph), .rst_i(rst_i), .abort_i(stop_i),
        .push_i(tu_push), .kind_i(tu_kind), .a_addr_i(mm_a), .b_addr_i(mm_b),
        .a_over_i(mm_over[0]), .b_over_i(mm_over[1]), .k_i(mm_k), .pc_i(tu_pc), .fmt_i(cfg_in),
        .accept_o(tu_accept), .idle_o(tu_idle), .drain_ok_i(drain_ok), .mm_ok_i(mm_ok),
        .a_stride_i(mm_sa), .b_stride_i(mm_sb), .sa_over_i(mm_over[2]), .sb_over_i(mm_over[3]),
        .tok_o(tok), .tok_st_o(tok_st), .st_addr_o(st_addr),
        .bad_o(mm_bad), .bad_pc_o(mm_bad_pc), .step_o(mm_step), .pair_o(ld_pair), .stall_o(mm_stall), .mm_o(ev_mm),
        .a_re_o(ld_a_re), .a_addr_o(ld_a_addr), .a_rdata_i(a_rdata),
        .b_re_o(ld_b_re), .b_addr_o(ld_b_addr), .b_rdata_i(b_rdata),
        .west_o(west), .north_o(north), .mk_o(bf_mk)
    );

    spu_array #(.ROWS(ROWS), .COLS(COLS), .USE_ICE40_DSP(USE_ICE40_DSP), .BROADCAST(BROADCAST),
                .FORMATS(FORMATS), .ACC_W(ACC_W), .CHAIN(CHAIN), .SLOT_W(ACC_SLOT), .FAST(ARRAY_2X)) u_array (
        .clk_i(core_clk), .clk2x_i(clk2x_i), .ph_i(ph), .rst_i(rst_i), .clr_i(wave_clr), .fmt_i(cfg_in),
        .west_i(west), .north_i(north), .mk_i(bf_mk), .acc_o(accs)
    );

    spu_drain_unit #(.ROWS(ROWS), .COLS(COLS), .LANES(DRAIN_LANES), .WORD_BYTES(WORD_BYTES), .AW(AW),
                     .ACC_W(ACC_W), .SLOT_W(ACC_SLOT), .WR_WORDS(DR_WORDS), .EARLY(CHAIN),
                     .INPLACE(DR_INPLACE), .FETCH0(ARRAY_2X)) u_drain (
        .clk_i(core_clk), .rst_i(rst_i), .cap_i(wave_cap), .go_i(drain_go), .pre_go_i(toks_q[NW-2]), .acc_i(accs),
        .in_i(cfg_in), .out_i(cfg_out), .shift_i(cfg_shift), .round_i(cfg_round), .relu_i(cfg_relu), .ovf_i(cfg_ovf),
        .bias_clr_i(run_go), .bias_we_i(bias_we_q), .bias_idx_i(bias_idx_q), .bias_word_i(a_rdata),
        .base_i(st_addr), .stride_i(st_stride), .cycles_o(drain_cycles),
        .busy_o(drain_busy), .free_o(drain_free),
        .we_o(dr_we), .waddr_o(dr_waddr), .wdata_o(dr_wdata), .wbe_o(dr_wbe), .rdclr_o(dr_rdclr)
    );

    // ---- vector unit ------------------------------------------------------------------------
    generate
        if (VECTOR != 0) begin : g_vec
            spu_vector_unit #(.WORD_BYTES(WORD_BYTES), .SPAD_BYTES(SPAD_BYTES), .SPAD_BANKS(SPAD_BANKS)) u_vec (
                .clk_i(core_clk), .rst_i(rst_i), .clear_i(run_go || stop_i),
                .vlen_we_i(vlen_we), .vstride_we_i(vstride_we), .start_i(vec_start), .op_i(vec_op),
                .ra_i(vec_ra), .rb_i(vec_rb), .rc_i(vec_rc),
                .shift_i(cfg_shift), .round_i(cfg_round), .relu_i(cfg_relu),
                .mis_o(vec_mis), .busy_o(vec_busy), .done_o(vec_done), .bad_o(vec_bad), .stall_o(vec_stall),
                .val_o(vec_val),
                .a_re_o(v_a_re), .a_addr_o(v_a_addr), .a_rdata_i(a_rdata),
                .b_re_o(v_b_re), .b_addr_o(v_b_addr), .b_rdata_i(b_rdata),
                .we_o(v_we), .waddr_o(v_waddr), .wdata_o(v_wdata)
            );
        end else begin : g_no_vec
            // the decoder traps the vector opcodes: nothing starts
            assign vec_mis = 1'b0; assign vec_busy = 1'b0; assign vec_done = 1'b0;
            assign vec_bad = 1'b0; assign vec_stall = 1'b0; assign vec_val = 32'd0;
            assign v_a_re = 1'b0; assign v_b_re = 1'b0; assign v_we = 1'b0;
            assign v_a_addr = {WA{1'b0}}; assign v_b_addr = {WA{1'b0}};
            assign v_waddr = {WA{1'b0}}; assign v_wdata = {DW{1'b0}};
            wire unused_vec = &{1'b0, vlen_we, vstride_we, vec_start, vec_op, vec_ra, vec_rb, vec_rc};
        end
    endgenerate

    // ---- performance counters -------------------------------------------------------------
    // DRAIN_MAX: the drain length of spu_drain_unit (the same for every out)
    localparam integer DRAIN_MAX = ROWS * (COLS / DRAIN_LANES);
    // Events of counters 1..6 reach the counters one cycle late (a register
    // stage for timing: the sequencer's EXEC decision no longer runs into the
    // counter adders). Exact wherever the ISA looks: they come from EXEC/MM
    // cycles, and a `cnt` reads in EXEC after its own FETCH cycle, by which
    // time the last of them is in; the host reads after the run. CYCLES stays
    // direct (the watchdog compares it in FETCH); LINK_* come from the link.
    reg        ev_instret_q, ev_mm_q, ev_bank_q, ev_sdrain_q, ev_vbusy_q, ev_vstall_q;
    reg  [1:0] ev_mac_q;          // k-steps (a pair: 2)
    reg [15:0] drain_add_q;
    always @(posedge core_clk) begin
        if (rst_i || cnt_clear) begin
            ev_instret_q <= 1'b0; ev_mac_q <= 2'd0; ev_mm_q <= 1'b0;
            ev_bank_q <= 1'b0; ev_sdrain_q <= 1'b0; drain_add_q <= 16'd0;
            ev_vbusy_q <= 1'b0; ev_vstall_q <= 1'b0;
        end else begin
            ev_instret_q <= ev_instret;
            ev_mac_q     <= {mm_step && ld_pair, mm_step && !ld_pair};
            ev_mm_q      <= ev_mm;
            ev_bank_q    <= mm_stall;
            ev_sdrain_q  <= ev_stall_drain;
            drain_add_q  <= drain_add;
            ev_vbusy_q   <= vec_busy;
            ev_vstall_q  <= vec_stall;
        end
    end
    spu_counters #(.CNT_WIDTH(CNT_WIDTH), .CNT_RAM(CNT_RAM), .DRAIN_MAX(DRAIN_MAX),
                   .MAC_MAX((ARRAY_2X != 0) ? 2 : 1)) u_cnt (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(cnt_clear),
        .cycles_add_i(ev_cycles), .instret_i(ev_instret_q), .mac_active_i(ev_mac_q),
        .mm_cycle_i(ev_mm_q), .stall_bank_i(ev_bank_q), .stall_drain_i(ev_sdrain_q),
        .drain_add_i(drain_add_q), .vec_busy_i(ev_vbusy_q), .vec_stall_i(ev_vstall_q), .link_rx_i(link_rx_byte_i), .link_tx_i(link_tx_byte_i),
        .host_sel_i(cnt_sel_i), .host_value_o(cnt_value_o), .host_fresh_o(cnt_fresh_o),
        .seq_use_i(seq_cnt_use), .seq_fetch_i(seq_cnt_fetch),
        .seq_sel_i(seq_cnt_sel), .seq_value_o(seq_cnt_val), .cycles_o(cycles)
    );

`ifdef SPU_CORE_CLOCK_GATE
    // ---- when the units on core_clk may rest (simulation only) -------------------
    // Busy: a run, a held RUN, the tensor unit, a token wave, the drain or
    // the vector unit at work; or a request of the engine that the units
    // take at the next edge (RUN, RESET, ARGS, UCODE: the engine's outputs
    // are registers, so this is known one cycle ahead) or a new REGS
    // selection (the register file's read is clocked). After busy falls the
    // units keep their clock for SETTLE more cycles, longer than any of
    // their pipelines (the event registers, the array's activity history,
    // the vector unit's write stage), so when the clock stops every
    // register is at its fixed point: an edge would not change it, whatever
    // the scratchpad's read data or the link counters do meanwhile. The sim
    // and rtl_link suites run with the gate, and SPU_SIM_CORE_CLOCK=always
    // (spu_board.h) clocks every cycle for a comparison.
    localparam integer SETTLE = 4 * (ROWS + COLS) + 16;
    reg [3:0] reg_sel_seen_q;
    reg [9:0] settle_q;
    wire core_busy = run_i || stop_i || arg_we_i || ucode_we_i || (reg_sel_i != reg_sel_seen_q)
                   || run_hold_q || (seq_state == STATE_RUNNING) || !tu_idle || drain_busy || vec_busy
                   || (tokc_q != {NW{1'b0}}) || (toks_q != {NW{1'b0}});
    always @(posedge clk_i) begin
        reg_sel_seen_q <= reg_sel_i;
        if (rst_i || core_busy) settle_q <= SETTLE[9:0];
        else if (settle_q != 10'd0) settle_q <= settle_q - 10'd1;
    end
    assign core_wake_o = core_busy || (settle_q != 10'd0);
`endif
endmodule
`default_nettype wire
