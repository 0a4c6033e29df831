// spu_cmd_engine -- the device end of the link protocol (docs/protocol.md).
//
// Byte side: COBS-encoded bytes in on rx_* and out on tx_* (valid/ready; a
// PHY such as spu_uart_rx/tx or the simulator's byte port sits outside).
// A frame (type u8, seq u8, payload, crc32 u32 LE) is collected into a
// LINK_MAX_PAYLOAD-byte ring buffer (type, seq and the first eight payload
// bytes also into registers) while its CRC is computed; only a frame whose
// CRC checks, is at least 6 bytes and at most 6 + LINK_MAX_PAYLOAD bytes is
// executed. Other frames are dropped silently and reception resyncs at the
// next 0x00. One frame is executed at a time: rx_ready_o is low from the end
// of a good frame until its reply has been handed to the encoder, which is
// why one CRC-32 unit serves both directions.
//
// Core side: drives the host-access ports of spu_core (scratchpad byte port,
// microcode and argument writes, run/stop pulses, counter select) and reads
// its status. Memory commands answer BUSY while the core runs.
//
// Reply: type | LINK_RESP_BIT, the request's seq, a status byte (ST_*), then
// the command's reply payload when the status is ST_OK.
// RUN and RESET are idempotent under retry: the (command, seq) of the last
// frame is remembered when it was an executed RUN/RESET; the same frame again
// answers OK without a second execution.
//
// idle_o: nothing to do until the next input byte (no frame executing, no
// reply being encoded); the simulator uses it to stop the clock.
`default_nettype none
module spu_cmd_engine #(
    parameter integer ROWS        = 8,
    parameter integer COLS        = 8,
    parameter integer SPAD_BYTES  = 262144,
    parameter integer SPAD_BANKS  = 4,
    parameter integer UCODE_WORDS = 1024,
    parameter integer LOOP_DEPTH  = 4,
    parameter integer DRAIN_LANES = COLS,
    parameter [31:0]  FORMATS     = 32'h1,        // bit d: dtype code d (bit0 int8)
    parameter [31:0]  RTL_VERSION = 32'h00000100, // 0.1.0 as major<<16|minor<<8|patch
    parameter [31:0]  CLOCK_HZ    = 32'd12000000,
    parameter integer CNT_WIDTH   = 64,           // counter bits the core keeps (32..64)
    parameter [31:0]  LINK_BAUD   = 32'd0,        // UART rate for INFO (0: no UART PHY)
    parameter [31:0]  FEATURES    = 32'd0         // INFO features (bit 0: the vector unit)
) (
    input  wire        clk_i,
    input  wire        rst_i,
    // encoded link bytes
    input  wire        rx_valid_i,
    output wire        rx_ready_o,
    input  wire [7:0]  rx_data_i,
    output wire        tx_valid_o,
    input  wire        tx_ready_i,
    output wire [7:0]  tx_data_o,
    output wire        idle_o,
    // spu_core host access (see hw/rtl/core/spu_core.v)
    output reg         spad_req_valid_o,
    input  wire        spad_req_ready_i,
    output reg         spad_req_we_o,
    output reg  [31:0] spad_req_addr_o,
    output reg  [7:0]  spad_req_wdata_o,
    input  wire        spad_rsp_valid_i,
    input  wire [7:0]  spad_rsp_rdata_i,
    output reg         ucode_we_o,
    output reg  [31:0] ucode_addr_o,
    output reg  [31:0] ucode_wdata_o,
    output reg         arg_we_o,
    output reg  [2:0]  arg_idx_o,
    output reg  [31:0] arg_wdata_o,
    output reg         run_o,
    output wire [31:0] run_pc_o,
    output wire [31:0] run_watchdog_o,
    output reg         stop_o,
    input  wire [1:0]  state_i,
    input  wire [7:0]  trap_i,
    input  wire [31:0] pc_i,
    output wire [3:0]  cnt_sel_o,
    input  wire [63:0] cnt_value_i,
    input  wire        cnt_fresh_i,       // cnt_value_i is counter cnt_sel_o
    input  wire [31:0] reg_value_i,       // register cnt_sel_o[3:0] (REGS)
    output wire        link_rx_byte_o,
    output wire        link_tx_byte_o
);
`include "spu_isa.vh"

    function integer clog2;
        input integer v;
        integer k;
        begin
            clog2 = 0;
            for (k = 0; k < 31; k = k + 1)
                if ((1 << k) < v) clog2 = k + 1;
        end
    endfunction

    localparam integer WORD_BYTES = (ROWS > COLS) ? ROWS : COLS;
    localparam integer INFO_BYTES = 56;
    localparam integer SAW = clog2(SPAD_BYTES);     // scratchpad address bits
    localparam integer UAW = clog2(UCODE_WORDS);    // microcode address bits
    localparam integer BAW = clog2(LINK_MAX_PAYLOAD); // ring buffer address bits
    // widths of the address sums: arg0's significant bits + an 11- or 9-bit count;
    // one bit above the address width, so that an address equal to the size
    // (a zero-length access at the very end, docs/protocol.md) is in range
    localparam integer SK  = (SAW + 1 > 11) ? SAW + 1 : 11;
    localparam integer UK  = (UAW + 1 > 9) ? UAW + 1 : 9;
    localparam integer CW  = CNT_WIDTH;
    // sized copies of the geometry for comparisons and the INFO record
    localparam [31:0]  P_ROWS  = ROWS;
    localparam [31:0]  P_COLS  = COLS;
    localparam [31:0]  P_WORD  = WORD_BYTES;
    localparam [31:0]  P_SPAD  = SPAD_BYTES;
    localparam [31:0]  P_BANKS = SPAD_BANKS;
    localparam [31:0]  P_UCODE = UCODE_WORDS;
    localparam [31:0]  P_LOOP  = LOOP_DEPTH;
    localparam [31:0]  P_LANES = DRAIN_LANES;
    localparam [31:0]  P_RMAX  = LINK_MAX_PAYLOAD - 1;      // status byte + data
    localparam [31:0]  P_PMAX  = LINK_MAX_PAYLOAD;
    localparam [31:0]  P_LIM_WR = SPAD_BYTES + 4;           // arg0 + payload (= n + 4)
    localparam [31:0]  P_LIM_UC = UCODE_WORDS + 1;          // arg0 + payload/4 (= n + 1)
    localparam [31:0]  P_NCNT  = CNT_COUNT;
    localparam [10:0]  PMAX    = P_PMAX[10:0];
    localparam [15:0]  READ_MAX = P_RMAX[15:0];
    localparam [10:0]  LEN_INIT = 11'h7FA;                  // -6: type, seq, crc32

    // E_CHK: the frame's length/address checks are registered for E_EXEC (timing)
    localparam [2:0] E_CHK = 3'd6;
    localparam [2:0] E_RX = 3'd0, E_EXEC = 3'd1, E_ACT = 3'd2, E_HDR = 3'd3,
                     E_BODY = 3'd4, E_CRC = 3'd5;

    // ------------------------------------------------------------------
    // receive: COBS decoder, CRC check, frame buffer
    // ------------------------------------------------------------------
    reg  [2:0]  st_q, st_d;
    wire        dec_valid, dec_end, dec_bad;
    wire [7:0]  dec_data;
    wire        in_rx = (st_q == E_RX);

    spu_cobs_dec u_dec (
        .clk_i(clk_i), .rst_i(rst_i),
        .in_valid_i(rx_valid_i), .in_ready_o(rx_ready_o), .in_data_i(rx_data_i),
        .out_valid_o(dec_valid), .out_ready_i(in_rx), .out_data_o(dec_data),
        .end_o(dec_end), .bad_o(dec_bad)
    );
    assign link_rx_byte_o = rx_valid_i && rx_ready_o;

    // the decoder only fires while in_rx (its out_ready_i)
    wire dec_byte  = dec_valid && !dec_end && !dec_bad;
    wire dec_close = dec_valid && (dec_end || dec_bad);

    // len_q: while receiving, the frame's bytes so far minus 6 (it starts at
    // -6, so frame byte i goes to ring slot i - 6 and the first data byte of
    // WRITE/UCODE, payload byte 4, to slot 0); it stops at LINK_MAX_PAYLOAD
    // (rx_ovf_q marks a longer frame). At the end of a good frame it is the
    // payload length; E_ACT counts it down as the payload is consumed.
    reg  [10:0] len_q, len_d;
    reg         rx_ovf_q;
    reg  [7:0]  hdr_q [0:9];         // type, seq, first eight payload bytes
    reg  [10:0] cnt_q, cnt_d;        // range check operand, ring slot (E_ACT), reply byte
    reg  [7:0]  rbuf_q;              // rxbuf_q[cnt_q], one cycle late
    // no_rw_check: read and write never meet at one address (spu_ram_1r1w.v)
    (* no_rw_check *) reg [7:0] rxbuf_q [0:(1 << BAW) - 1];
    wire        crc_ok;
    wire        len_fits = !len_q[10] || (len_q == PMAX);   // 0 <= len_q <= MAX
    wire        frame_ok = dec_close && dec_end && !rx_ovf_q && len_fits && crc_ok;
    wire        hdr_slot = (len_q[10:4] == 7'h7F && len_q[3:0] >= 4'hA) || (len_q[10:2] == 9'd0);
    wire [3:0]  hdr_idx  = len_q[3:0] + 4'd6;
    integer h;

    always @(posedge clk_i) begin
        if (dec_byte)
            rxbuf_q[len_q[BAW-1:0]] <= dec_data;
        rbuf_q <= rxbuf_q[cnt_q[BAW-1:0]];
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            rx_ovf_q <= 1'b0;
            for (h = 0; h < 10; h = h + 1) hdr_q[h] <= 8'd0;
        end else begin
            if (dec_close)
                rx_ovf_q <= 1'b0;
            else if (dec_byte && len_q == PMAX)
                rx_ovf_q <= 1'b1;
            if (dec_byte && hdr_slot)
                hdr_q[hdr_idx] <= dec_data;
        end
    end

    // ------------------------------------------------------------------
    // decode the committed frame
    // ------------------------------------------------------------------
    wire [7:0]  cmd  = hdr_q[0];
    wire [7:0]  seq  = hdr_q[1];
    wire [31:0] arg0 = {hdr_q[5], hdr_q[4], hdr_q[3], hdr_q[2]};
    wire [31:0] arg1 = {hdr_q[9], hdr_q[8], hdr_q[7], hdr_q[6]};
    wire [15:0] rlen = {hdr_q[7], hdr_q[6]};
    wire [10:0] plen = len_q;        // in E_EXEC
    wire        running = (state_i == STATE_RUNNING);

    // Range checks, in the bits that matter (arg0's high bits are checked for
    // zero separately), on the address sums arg0 + cnt_q and arg0 + cnt_q/4
    // that later address the scratchpad and the microcode store: on a good
    // frame cnt_q is loaded with READ's len, else with the payload length:
    //   WRITE  arg0 + n          <= SPAD_BYTES   as arg0 + plen   <= SPAD_BYTES + 4
    //   READ   arg0 + len        <= SPAD_BYTES   (len <= 1023 once BAD_LEN passed)
    //   UCODE  arg0 + n (words)  <= UCODE_WORDS  as arg0 + plen/4 <= UCODE_WORDS + 1
    wire [SK:0] spad_sum  = {1'b0, arg0[SK-1:0]} + {{(SK-10){1'b0}}, cnt_q};
    wire [UK:0] ucode_sum = {1'b0, arg0[UK-1:0]} + {{(UK-8){1'b0}}, cnt_q[10:2]};
    wire        spad_hi_ok  = ((arg0 >> SK) == 32'd0);
    wire        ucode_hi_ok = ((arg0 >> UK) == 32'd0);

    reg        known;
    reg        len_ok;
    reg        addr_ok;
    reg        uses_core;
    reg        is_ctl;
    always @* begin
        known = 1'b1; len_ok = 1'b1; addr_ok = 1'b1; uses_core = 1'b0; is_ctl = 1'b0;
        case (cmd)
            CMD_PING, CMD_INFO, CMD_STATUS, CMD_COUNTERS:
                len_ok = (plen == 11'd0);
            CMD_REGS: begin
                len_ok    = (plen == 11'd0);
                uses_core = 1'b1;            // BUSY while running
            end
            CMD_RESET: begin
                len_ok = (plen == 11'd0);
                is_ctl = 1'b1;
            end
            CMD_WRITE: begin
                len_ok    = (plen >= 11'd4);
                addr_ok   = spad_hi_ok && (spad_sum <= P_LIM_WR[SK:0]);
                uses_core = 1'b1;
            end
            CMD_READ: begin
                len_ok    = (plen == 11'd6) && (rlen <= READ_MAX);
                addr_ok   = spad_hi_ok && (spad_sum <= P_SPAD[SK:0]);
                uses_core = 1'b1;
            end
            CMD_UCODE: begin
                len_ok    = (plen >= 11'd4) && (plen[1:0] == 2'b00);
                addr_ok   = ucode_hi_ok && (ucode_sum <= P_LIM_UC[UK:0]);
                uses_core = 1'b1;
            end
            CMD_ARGS: begin
                len_ok    = (plen <= 11'd32) && (plen[1:0] == 2'b00);
                uses_core = 1'b1;
            end
            CMD_RUN: begin
                len_ok    = (plen == 11'd8);
                addr_ok   = ucode_hi_ok && (arg0 < P_UCODE);
                uses_core = 1'b1;
                is_ctl    = 1'b1;
            end
            default: known = 1'b0;
        endcase
    end

    // last executed RUN/RESET, for retries (ctl_run_q: it was a RUN)
    reg        ctl_valid_q;
    reg        ctl_run_q;
    reg [7:0]  ctl_seq_q;
    wire       retry = is_ctl && ctl_valid_q && (ctl_run_q == (cmd == CMD_RUN)) &&
                       (ctl_seq_q == seq);

    reg run_d, stop_d;
    // the command as one-hot flags, registered (cmd holds from the end of the
    // frame): valid from E_EXEC on, they replace 8-bit compares in the reply
    // path (timing: cmd -> reply byte -> CRC / COBS encoder)
    reg c_info_q, c_read_q, c_regs_q, c_status_q, c_counters_q;
    reg c_args_q, c_write_q, c_ucode_q, c_run_q, c_reset_q;
    always @(posedge clk_i) begin
        c_info_q     <= (cmd == CMD_INFO);
        c_read_q     <= (cmd == CMD_READ);
        c_regs_q     <= (cmd == CMD_REGS);
        c_status_q   <= (cmd == CMD_STATUS);
        c_counters_q <= (cmd == CMD_COUNTERS);
        c_args_q     <= (cmd == CMD_ARGS);
        c_write_q    <= (cmd == CMD_WRITE);
        c_ucode_q    <= (cmd == CMD_UCODE);
        c_run_q      <= (cmd == CMD_RUN);
        c_reset_q    <= (cmd == CMD_RESET);
    end
    // the checks, registered in E_CHK (hdr_q, and the ctl_*_q that retry
    // compares, hold still from E_CHK to E_EXEC): E_EXEC's verdict is a few
    // flip-flops and `running` (timing: the command decode and the sequence
    // compare were in front of status_q, run_o and the state at seed 2)
    reg known_q, len_ok_q, addr_ok_q, retry_q, uses_core_q, is_ctl_q;
    always @(posedge clk_i) begin
        known_q     <= known;
        len_ok_q    <= len_ok;
        addr_ok_q   <= addr_ok;
        retry_q     <= retry;
        uses_core_q <= uses_core;
        is_ctl_q    <= is_ctl;
    end
    reg [2:0] status_d;
    always @* begin
        if (!known_q)                    status_d = ST_BAD_CMD[2:0];
        else if (!len_ok_q)              status_d = ST_BAD_LEN[2:0];
        else if (retry_q)                status_d = ST_OK[2:0];
        else if (uses_core_q && running) status_d = ST_BUSY[2:0];
        else if (!addr_ok_q)             status_d = ST_BAD_ADDR[2:0];
        else                             status_d = ST_OK[2:0];
    end

    // ------------------------------------------------------------------
    // transmit: raw reply bytes -> CRC -> COBS encoder
    // ------------------------------------------------------------------
    reg        enc_valid;
    reg [7:0]  enc_data;
    reg        enc_last;
    wire       enc_ready;
    wire       enc_idle;
    wire       enc_fire = enc_valid && enc_ready;
    wire [31:0] crc_reg;             // raw CRC register (the CRC is ~crc_reg)
    reg        crc_clear;

    // One CRC unit for both directions: it checks the frame while in E_RX and
    // sums the reply afterwards (cleared in E_EXEC, and after the reply). The
    // reply's bytes reach it one cycle late, from a register (timing: the
    // reply byte select no longer runs on into the CRC's byte update; it was
    // the iCEBreaker's critical path at seeds 1 and 3, docs/fpga.md). E_CRC
    // sends the finished CRC, ~crc_reg, byte k in cycle k, once no header /
    // body byte is pending: a reply whose last byte went into the encoder's
    // queue in the cycle before E_CRC waits one cycle (the encoder, which
    // takes two cycles per byte it sends, usually makes the engine wait
    // there anyway). The CRC bytes are not summed; the register is cleared
    // after the reply.
    reg        crc_pend_q;           // a reply byte waits for the CRC
    reg [7:0]  crc_pend_data_q;
    always @(posedge clk_i) begin
        if (rst_i)
            crc_pend_q <= 1'b0;
        else
            crc_pend_q <= enc_fire && st_q != E_CRC;
        crc_pend_data_q <= enc_data;
    end
    spu_crc32 u_crc (
        .clk_i(clk_i), .rst_i(rst_i),
        .clear_i(crc_clear), .valid_i(in_rx ? dec_byte : crc_pend_q),
        .data_i(in_rx ? dec_data : crc_pend_data_q),
        .reg_o(crc_reg), .residue_ok_o(crc_ok)
    );

    spu_cobs_enc u_enc (
        .clk_i(clk_i), .rst_i(rst_i),
        .in_valid_i(enc_valid), .in_ready_o(enc_ready), .in_data_i(enc_data), .in_last_i(enc_last),
        .out_valid_o(tx_valid_o), .out_ready_i(tx_ready_i), .out_data_o(tx_data_o),
        .idle_o(enc_idle)
    );
    assign link_tx_byte_o = tx_valid_o && tx_ready_i;

    // ------------------------------------------------------------------
    // command sequencing
    // ------------------------------------------------------------------
    wire [447:0] info_vec = {
        FEATURES, LINK_BAUD, P_LANES, P_LOOP, CLOCK_HZ, RTL_VERSION, SPU_ISA_HASH, FORMATS,
        P_UCODE, P_BANKS, P_SPAD, P_WORD, P_COLS, P_ROWS};

    reg [2:0]    status_q;
    reg [1:0]    sub_q, sub_d;       // step within one byte
    reg [23:0]   word_q, word_d;     // three bytes of a UCODE/ARGS word
    reg [7:0]    rdat_q, rdat_d;     // READ byte from the scratchpad
    reg [3:0]    csel_q, csel_d;     // counter / register select
    // STATUS / COUNTERS snapshot, sent through a byte mux (all loaded at once)
    reg          snap;
    reg [1:0]    snap_state_q;
    reg [7:0]    snap_trap_q;
    reg [31:0]   snap_pc_q;
    reg [CW-1:0] snap_cnt_q;
    wire [63:0]  snap_cnt64;
    generate
        if (CW < 64) begin : g_cnt_narrow
            assign snap_cnt64 = {{(64-CW){1'b0}}, snap_cnt_q};
            wire [63-CW:0] unused_cnt_hi = cnt_value_i[63:CW];
        end else begin : g_cnt_full
            assign snap_cnt64 = snap_cnt_q;
        end
    endgenerate

    assign cnt_sel_o      = csel_q;
    assign run_pc_o       = arg0;          // hdr_q holds still until the next frame
    assign run_watchdog_o = arg1;

    wire [10:0] cnt_inc  = cnt_q + 11'd1;
    // E_BODY: STATUS counts from -6 (state, trap, pc, then cycles at 0..7),
    // COUNTERS from -1 (n, then counter c at 8c..8c+7), the others from 0
    wire [10:0] body_first = c_status_q   ? 11'h7FA :
                             c_counters_q ? 11'h7FF : 11'd0;
    wire [10:0] body_end   = c_info_q     ? INFO_BYTES[10:0] :
                             c_status_q   ? 11'd8 :
                             c_counters_q ? {P_NCNT[7:0], 3'b000} :
                             c_regs_q     ? 11'd64 : rlen[10:0];
    // the body's last byte index, registered (timing: the command flags ->
    // body_end -> cnt_q + 1 == body_end -> st_q / cnt_q was the SPRAM build's
    // critical path, 46.83 ns at seed 1): c_*_q and hdr_q hold still from
    // E_EXEC on, and E_BODY starts after E_HDR's four bytes
    reg  [10:0] body_last_q;
    always @(posedge clk_i)
        body_last_q <= body_end - 11'd1;
    wire        has_body   = c_info_q || c_status_q || c_counters_q ||
                             c_regs_q || (c_read_q && rlen[10:0] != 11'd0);
    // E_ACT ends with the payload: WRITE/UCODE leave the 4-byte address.
    // Registered (timing: len_q's compare no longer sits in front of the
    // scratchpad / microcode / argument write enables): len_q holds still
    // from sub 0 to the end of sub 1, so act_done_q is valid in sub 1,
    // where the verdict is taken (one cycle more per WRITE/UCODE/ARGS frame)
    reg         act_done_q;
    always @(posedge clk_i)
        act_done_q <= (len_q == (c_args_q ? 11'd0 : 11'd4));
    wire [31:0] spad_addr  = {{(32-SAW){1'b0}}, spad_sum[SAW-1:0]};
    wire [31:0] ucode_addr = {{(32-UAW){1'b0}}, ucode_sum[UAW-1:0]};

    always @* begin
        st_d    = st_q;
        len_d   = len_q;
        cnt_d   = cnt_q;
        sub_d   = sub_q;
        word_d  = word_q;
        rdat_d  = rdat_q;
        csel_d  = csel_q;
        snap    = 1'b0;
        crc_clear = 1'b0;
        enc_valid = 1'b0;
        enc_data  = 8'h00;
        enc_last  = 1'b0;
        spad_req_valid_o = 1'b0;
        spad_req_we_o    = 1'b0;
        spad_req_addr_o  = spad_addr;
        spad_req_wdata_o = rbuf_q;
        ucode_we_o    = 1'b0;
        ucode_addr_o  = ucode_addr;
        ucode_wdata_o = {rbuf_q, word_q};
        arg_we_o      = 1'b0;
        arg_idx_o     = cnt_q[4:2] + 3'd1;
        arg_wdata_o   = {rbuf_q, word_q};
        run_d  = 1'b0;
        stop_d = 1'b0;
        case (st_q)
            E_RX: begin
                if (dec_close) begin
                    crc_clear = 1'b1;
                    if (frame_ok) begin
                        st_d  = E_CHK;
                        cnt_d = (cmd == CMD_READ) ? rlen[10:0] : len_q;
                    end else
                        len_d = LEN_INIT;
                end else if (dec_byte && len_q != PMAX) begin
                    len_d = len_q + 11'd1;
                end
            end
            E_CHK: begin
                crc_clear = 1'b1;
                st_d      = E_EXEC;
            end
            E_EXEC: begin
                crc_clear = 1'b1;
                cnt_d  = c_args_q ? 11'h7FC : 11'd0;   // ARGS data from slot -4
                sub_d  = 2'd0;
                csel_d = CNT_CYCLES[3:0];
                st_d   = E_HDR;
                if (status_d == ST_OK[2:0] && !retry_q) begin
                    if (c_write_q || c_ucode_q || c_args_q)
                        st_d = E_ACT;
                    run_d  = c_run_q;
                    stop_d = c_reset_q;
                end
            end
            // ---- move payload bytes into the core: sub 0 read the ring, 1 use
            E_ACT: begin
                if (sub_q == 2'd0) begin
                    sub_d = 2'd1;
                end else if (act_done_q) begin
                    st_d  = E_HDR;
                    cnt_d = 11'd0;
                    sub_d = 2'd0;
                end else if (c_write_q) begin
                    spad_req_valid_o = 1'b1;
                    spad_req_we_o    = 1'b1;
                    if (spad_req_ready_i) begin
                        cnt_d = cnt_inc;
                        len_d = len_q - 11'd1;
                        sub_d = 2'd0;
                    end
                end else begin
                    // UCODE/ARGS: the fourth byte completes a little-endian word
                    word_d = {rbuf_q, word_q[23:8]};
                    cnt_d  = cnt_inc;
                    len_d  = len_q - 11'd1;
                    sub_d  = 2'd0;
                    if (cnt_q[1:0] == 2'b11) begin
                        ucode_we_o = c_ucode_q;
                        arg_we_o   = c_args_q;
                    end
                end
            end
            // ---- reply header: type|0x80, seq, status
            E_HDR: begin
                enc_valid = 1'b1;
                enc_data  = (cnt_q[1:0] == 2'd0) ? (cmd | LINK_RESP_BIT[7:0]) :
                            (cnt_q[1:0] == 2'd1) ? seq : {5'd0, status_q};
                if (enc_fire) begin
                    cnt_d = cnt_inc;
                    if (cnt_q[1:0] == 2'd2) begin
                        sub_d = 2'd0;
                        if (status_q == ST_OK[2:0] && has_body) begin
                            st_d  = E_BODY;
                            cnt_d = body_first;
                        end else begin
                            st_d  = E_CRC;
                            cnt_d = 11'd0;
                        end
                    end
                end
            end
            // ---- reply body
            E_BODY: begin
                if (c_info_q) begin
                    enc_valid = 1'b1;
                    enc_data  = info_vec[{cnt_q[5:0], 3'b000} +: 8];
                end else if (c_read_q) begin
                    if (sub_q == 2'd0) begin
                        spad_req_valid_o = 1'b1;
                        if (spad_req_ready_i) begin
                            sub_d = 2'd1;
                            if (spad_rsp_valid_i) begin
                                rdat_d = spad_rsp_rdata_i;
                                sub_d  = 2'd2;
                            end
                        end
                    end else if (sub_q == 2'd1) begin
                        if (spad_rsp_valid_i) begin
                            rdat_d = spad_rsp_rdata_i;
                            sub_d  = 2'd2;
                        end
                    end else begin
                        enc_valid = 1'b1;
                        enc_data  = rdat_q;
                    end
                end else if (c_regs_q) begin // 16 x u32, select then send
                    // the register read port is stable while the core is not running
                    if (cnt_q[1:0] != 2'd0 || sub_q == 2'd3) begin
                        enc_valid = 1'b1;
                        enc_data  = reg_value_i[{cnt_q[1:0], 3'b000} +: 8];
                    end else if (sub_q == 2'd0) begin
                        csel_d = cnt_q[5:2];
                        sub_d  = 2'd1;
                    end else begin
                        sub_d  = sub_q + 2'd1;      // two cycles for the read port
                    end
                end else begin // STATUS (snapshot once) or COUNTERS (one per counter)
                    if (cnt_q[10] && c_counters_q) begin
                        enc_valid = 1'b1;
                        enc_data  = P_NCNT[7:0];
                    end else if (sub_q == 2'd3) begin
                        enc_valid = 1'b1;
                        enc_data  = !cnt_q[10] ? snap_cnt64[{cnt_q[2:0], 3'b000} +: 8] :
                                    cnt_q[2]   ? snap_pc_q[{cnt_q[1:0], 3'b000} +: 8] :
                                    cnt_q[0]   ? snap_trap_q : {6'd0, snap_state_q};
                    end else if (c_status_q || sub_q == 2'd2) begin
                        // STATUS: csel is CYCLES since E_EXEC
                        if (cnt_fresh_i) begin
                            snap  = 1'b1;
                            sub_d = 2'd3;
                        end
                    end else if (sub_q == 2'd0) begin
                        csel_d = cnt_q[6:3];
                        sub_d  = 2'd1;
                    end else begin
                        sub_d = 2'd2;                 // select registered in the core
                    end                               // (one more cycle after a cnt)
                end
                if (enc_fire) begin
                    cnt_d = cnt_inc;
                    // STATUS keeps its snapshot, COUNTERS for the counter's 8 bytes
                    if (!c_status_q && (!c_counters_q || cnt_inc[2:0] == 3'd0))
                        sub_d = 2'd0;
                    if (cnt_q == body_last_q) begin
                        st_d  = E_CRC;
                        cnt_d = 11'd0;
                    end
                end
            end
            // ---- CRC-32 of type..payload, little-endian; the last byte ends the frame
            default: begin
                enc_valid = !crc_pend_q;
                enc_data  = ~crc_reg[{cnt_q[1:0], 3'b000} +: 8];
                enc_last  = (cnt_q[1:0] == 2'd3);
                if (enc_fire) begin
                    cnt_d = cnt_inc;
                    if (cnt_q[1:0] == 2'd3) begin
                        st_d      = E_RX;
                        len_d     = LEN_INIT;
                        crc_clear = 1'b1;
                    end
                end
            end
        endcase
    end

    always @(posedge clk_i) begin
        if (snap) begin
            snap_state_q <= state_i;
            snap_trap_q  <= trap_i;
            snap_pc_q    <= pc_i;
            snap_cnt_q   <= cnt_value_i[CW-1:0];
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            st_q         <= E_RX;
            len_q        <= LEN_INIT;
            cnt_q        <= 11'd0;
            sub_q        <= 2'd0;
            word_q       <= 24'd0;
            rdat_q       <= 8'd0;
            csel_q       <= 4'd0;
            status_q     <= ST_OK[2:0];
            ctl_valid_q  <= 1'b0;
            ctl_run_q    <= 1'b0;
            ctl_seq_q    <= 8'd0;
        end else begin
            st_q   <= st_d;
            len_q  <= len_d;
            cnt_q  <= cnt_d;
            sub_q  <= sub_d;
            word_q <= word_d;
            rdat_q <= rdat_d;
            csel_q <= csel_d;
            if (st_q == E_EXEC) begin
                status_q     <= status_d;
                ctl_valid_q  <= is_ctl_q && status_d == ST_OK[2:0];
                ctl_run_q    <= (cmd == CMD_RUN);
                ctl_seq_q    <= seq;
            end
        end
    end

    // run/stop leave through registers (timing: they reset much of the core)
    always @(posedge clk_i) begin
        if (rst_i) begin
            run_o  <= 1'b0;
            stop_o <= 1'b0;
        end else begin
            run_o  <= run_d;
            stop_o <= stop_d;
        end
    end

    assign idle_o = in_rx && enc_idle && !rx_valid_i && !running && !run_o && !stop_o;

    wire unused_ok = &{1'b0, rlen[15:11], cnt_inc[10:3]};
endmodule
`default_nettype wire
