// spu_cmd_engine -- the device end of the link protocol (docs/protocol.md).
//
// Byte side: COBS-encoded bytes in on rx_* and out on tx_* (valid/ready; a
// PHY such as spu_uart_rx/tx or the simulator's byte port sits outside).
// A frame (type u8, seq u8, payload, crc32 u32 LE) is collected into a
// 2 KiB buffer while its CRC is computed; only a frame whose CRC checks, is
// at least 6 bytes and at most 6 + LINK_MAX_PAYLOAD bytes is executed. Other
// frames are dropped silently and reception resyncs at the next 0x00.
// One frame is executed at a time: rx_ready_o is low from the end of a good
// frame until its reply has been handed to the encoder.
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
    parameter [31:0]  FORMATS     = 32'h1,        // bit d: dtype code d (bit0 int8)
    parameter [31:0]  RTL_VERSION = 32'h00000100, // 0.1.0 as major<<16|minor<<8|patch
    parameter [31:0]  CLOCK_HZ    = 32'd12000000
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

    localparam integer WORD_BYTES = (ROWS > COLS) ? ROWS : COLS;
    localparam integer FRAME_MAX  = LINK_MAX_PAYLOAD + 6;   // type, seq, payload, crc
    localparam integer INFO_BYTES = 44;
    localparam integer STAT_BYTES = 14;
    // sized copies of the geometry for comparisons and the INFO record
    localparam [31:0]  P_ROWS  = ROWS;
    localparam [31:0]  P_COLS  = COLS;
    localparam [31:0]  P_WORD  = WORD_BYTES;
    localparam [31:0]  P_SPAD  = SPAD_BYTES;
    localparam [31:0]  P_BANKS = SPAD_BANKS;
    localparam [31:0]  P_UCODE = UCODE_WORDS;
    localparam [31:0]  P_LOOP  = LOOP_DEPTH;
    localparam [31:0]  P_RMAX  = LINK_MAX_PAYLOAD - 1;      // status byte + data
    // (wires: Verilator 5.006 rejects sized parameters in a localparam concatenation)
    wire [33:0] spad_limit  = {2'b00, P_SPAD};
    wire [33:0] ucode_limit = {2'b00, P_UCODE};
    localparam [15:0]  READ_MAX    = P_RMAX[15:0];

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

    wire dec_byte  = dec_valid && !dec_end && !dec_bad;
    wire dec_close = dec_valid && (dec_end || dec_bad);
    wire rx_crc_ok;
    wire [31:0] rx_crc_unused;

    spu_crc32 u_rx_crc (
        .clk_i(clk_i), .rst_i(rst_i),
        .clear_i(dec_close), .valid_i(dec_byte), .data_i(dec_data),
        .crc_o(rx_crc_unused), .residue_ok_o(rx_crc_ok)
    );

    // no_rw_check: read and write never meet at one address (spu_ram_1r1w.v)
    (* no_rw_check *) reg [7:0]  rxbuf_q [0:2047];
    reg [10:0] rx_len_q;             // decoded bytes of the current frame
    reg        rx_ovf_q;             // frame longer than FRAME_MAX
    reg [7:0]  hdr_q [0:9];          // type, seq, first eight payload bytes
    reg [10:0] ptr_q, ptr_d;         // frame buffer read index
    reg [7:0]  rbuf_q;               // rxbuf_q[ptr_q], one cycle late
    wire       rx_store = in_rx && dec_byte && !rx_ovf_q && (rx_len_q != FRAME_MAX[10:0]);
    wire       frame_ok = in_rx && dec_valid && dec_end && !rx_ovf_q &&
                          (rx_len_q >= 11'd6) && rx_crc_ok;
    integer h;

    always @(posedge clk_i) begin
        if (rx_store)
            rxbuf_q[rx_len_q] <= dec_data;
        rbuf_q <= rxbuf_q[ptr_q];
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            rx_len_q <= 11'd0;
            rx_ovf_q <= 1'b0;
            for (h = 0; h < 10; h = h + 1) hdr_q[h] <= 8'd0;
        end else if (in_rx) begin
            if (dec_close) begin
                rx_len_q <= 11'd0;
                rx_ovf_q <= 1'b0;
            end else if (dec_byte) begin
                if (rx_len_q == FRAME_MAX[10:0])
                    rx_ovf_q <= 1'b1;
                else
                    rx_len_q <= rx_len_q + 11'd1;
                if (rx_len_q < 11'd10)
                    hdr_q[rx_len_q[3:0]] <= dec_data;
            end
        end
    end

    // ------------------------------------------------------------------
    // decode the committed frame
    // ------------------------------------------------------------------
    reg  [10:0] plen_q;              // payload bytes of the frame being executed
    wire [7:0]  cmd  = hdr_q[0];
    wire [7:0]  seq  = hdr_q[1];
    wire [31:0] arg0 = {hdr_q[5], hdr_q[4], hdr_q[3], hdr_q[2]};
    wire [31:0] arg1 = {hdr_q[9], hdr_q[8], hdr_q[7], hdr_q[6]};
    wire [15:0] rlen = {hdr_q[7], hdr_q[6]};
    wire        running = (state_i == STATE_RUNNING);

    wire [10:0] wr_n   = plen_q - 11'd4;            // WRITE data bytes / UCODE bytes
    wire [33:0] wr_end = {2'b0, arg0} + {23'd0, wr_n};
    wire [33:0] rd_end = {2'b0, arg0} + {18'd0, rlen};
    wire [33:0] uc_end = {2'b0, arg0} + {25'd0, wr_n[10:2]};

    reg        known;
    reg        len_ok;
    reg        addr_ok;
    reg        uses_core;
    reg        is_ctl;
    always @* begin
        known = 1'b1; len_ok = 1'b1; addr_ok = 1'b1; uses_core = 1'b0; is_ctl = 1'b0;
        case (cmd)
            CMD_PING, CMD_INFO, CMD_STATUS, CMD_COUNTERS:
                len_ok = (plen_q == 11'd0);
            CMD_REGS: begin
                len_ok    = (plen_q == 11'd0);
                uses_core = 1'b1;            // BUSY while running
            end
            CMD_RESET: begin
                len_ok = (plen_q == 11'd0);
                is_ctl = 1'b1;
            end
            CMD_WRITE: begin
                len_ok    = (plen_q >= 11'd4);
                addr_ok   = (wr_end <= spad_limit);
                uses_core = 1'b1;
            end
            CMD_READ: begin
                len_ok    = (plen_q == 11'd6) && (rlen <= READ_MAX);
                addr_ok   = (rd_end <= spad_limit);
                uses_core = 1'b1;
            end
            CMD_UCODE: begin
                len_ok    = (plen_q >= 11'd4) && (plen_q[1:0] == 2'b00);
                addr_ok   = (uc_end <= ucode_limit);
                uses_core = 1'b1;
            end
            CMD_ARGS: begin
                len_ok    = (plen_q <= 11'd32) && (plen_q[1:0] == 2'b00);
                uses_core = 1'b1;
            end
            CMD_RUN: begin
                len_ok    = (plen_q == 11'd8);
                addr_ok   = ({2'b0, arg0} < ucode_limit);
                uses_core = 1'b1;
                is_ctl    = 1'b1;
            end
            default: known = 1'b0;
        endcase
    end

    // last executed RUN/RESET, for retries
    reg        ctl_valid_q;
    reg [7:0]  ctl_cmd_q;
    reg [7:0]  ctl_seq_q;
    wire       retry = is_ctl && ctl_valid_q && (ctl_cmd_q == cmd) && (ctl_seq_q == seq);

    reg [7:0] status_d;
    always @* begin
        if (!known)                   status_d = ST_BAD_CMD;
        else if (!len_ok)             status_d = ST_BAD_LEN;
        else if (retry)               status_d = ST_OK;
        else if (uses_core && running) status_d = ST_BUSY;
        else if (!addr_ok)            status_d = ST_BAD_ADDR;
        else                          status_d = ST_OK;
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
    wire [31:0] tx_crc;
    wire       tx_res_unused;

    spu_crc32 u_tx_crc (
        .clk_i(clk_i), .rst_i(rst_i),
        .clear_i(st_q == E_EXEC), .valid_i(enc_fire && (st_q != E_CRC)), .data_i(enc_data),
        .crc_o(tx_crc), .residue_ok_o(tx_res_unused)
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
    wire [351:0] info_vec = {
        P_LOOP, CLOCK_HZ, RTL_VERSION, SPU_ISA_HASH, FORMATS,
        P_UCODE, P_BANKS, P_SPAD, P_WORD, P_COLS, P_ROWS};

    reg [7:0]   status_q;
    reg [10:0]  cnt_q, cnt_d;        // byte index within the action / body
    reg [2:0]   sub_q, sub_d;        // step within one byte
    reg [31:0]  word_q, word_d;      // gathered word (UCODE/ARGS)
    reg [111:0] snap_q, snap_d;      // STATUS / one counter, sent byte by byte
    reg [7:0]   rdat_q, rdat_d;      // READ byte from the scratchpad
    reg [3:0]   csel_q, csel_d;      // counter select

    assign cnt_sel_o      = csel_q;
    assign run_pc_o       = arg0;          // hdr_q holds still until the next frame
    assign run_watchdog_o = arg1;

    wire [10:0] act_n     = (cmd == CMD_ARGS) ? plen_q : wr_n;     // bytes to move
    wire [10:0] act_first = (cmd == CMD_ARGS) ? 11'd2 : 11'd6;     // buffer index
    wire [10:0] body_n    = (cmd == CMD_INFO)     ? INFO_BYTES[10:0] :
                            (cmd == CMD_STATUS)   ? STAT_BYTES[10:0] :
                            (cmd == CMD_READ)     ? rlen[10:0] :
                            (cmd == CMD_COUNTERS) ? (11'd1 + 11'd8 * CNT_COUNT[10:0]) :
                            (cmd == CMD_REGS)     ? 11'd64 : 11'd0;
    wire [10:0] cbyte     = cnt_q - 11'd1;                         // COUNTERS: after n

    always @* begin
        st_d    = st_q;
        cnt_d   = cnt_q;
        sub_d   = sub_q;
        word_d  = word_q;
        snap_d  = snap_q;
        rdat_d  = rdat_q;
        csel_d  = csel_q;
        ptr_d   = ptr_q;
        enc_valid = 1'b0;
        enc_data  = 8'h00;
        enc_last  = 1'b0;
        spad_req_valid_o = 1'b0;
        spad_req_we_o    = 1'b0;
        spad_req_addr_o  = arg0 + {21'd0, cnt_q};
        spad_req_wdata_o = rbuf_q;
        ucode_we_o    = 1'b0;
        ucode_addr_o  = arg0 + {23'd0, cnt_q[10:2]} - 32'd1;
        ucode_wdata_o = word_q;
        arg_we_o      = 1'b0;
        arg_idx_o     = cnt_q[4:2] - 3'd1;
        arg_wdata_o   = word_q;
        run_o  = 1'b0;
        stop_o = 1'b0;
        case (st_q)
            E_RX: if (frame_ok) st_d = E_EXEC;
            E_EXEC: begin
                cnt_d  = 11'd0;
                sub_d  = 3'd0;
                ptr_d  = act_first;
                csel_d = CNT_CYCLES[3:0];
                st_d   = E_HDR;
                if (status_d == ST_OK && !retry) begin
                    if (cmd == CMD_WRITE || cmd == CMD_UCODE || cmd == CMD_ARGS)
                        st_d = E_ACT;
                    run_o  = (cmd == CMD_RUN);
                    stop_o = (cmd == CMD_RESET);
                end
            end
            // ---- move payload bytes into the core: sub 0 read buffer, 1 use
            E_ACT: begin
                if (sub_q == 3'd2) begin
                    // a whole little-endian word gathered (cnt_q = 4 * (index + 1))
                    ucode_we_o = (cmd == CMD_UCODE);
                    arg_we_o   = (cmd == CMD_ARGS);
                    sub_d      = 3'd0;
                end else if (cnt_q == act_n) begin
                    st_d  = E_HDR;
                    cnt_d = 11'd0;
                end else if (sub_q == 3'd0) begin
                    sub_d = 3'd1;
                end else if (cmd == CMD_WRITE) begin
                    spad_req_valid_o = 1'b1;
                    spad_req_we_o    = 1'b1;
                    if (spad_req_ready_i) begin
                        cnt_d = cnt_q + 11'd1;
                        ptr_d = ptr_q + 11'd1;
                        sub_d = 3'd0;
                    end
                end else begin
                    word_d = {rbuf_q, word_q[31:8]};
                    cnt_d  = cnt_q + 11'd1;
                    ptr_d  = ptr_q + 11'd1;
                    sub_d  = (cnt_q[1:0] == 2'b11) ? 3'd2 : 3'd0;
                end
            end
            // ---- reply header: type|0x80, seq, status
            E_HDR: begin
                enc_valid = 1'b1;
                enc_data  = (cnt_q == 11'd0) ? (cmd | LINK_RESP_BIT[7:0]) :
                            (cnt_q == 11'd1) ? seq : status_q;
                if (enc_fire) begin
                    cnt_d = cnt_q + 11'd1;
                    if (cnt_q == 11'd2) begin
                        cnt_d = 11'd0;
                        sub_d = 3'd0;
                        st_d  = (status_q == ST_OK && body_n != 11'd0) ? E_BODY : E_CRC;
                    end
                end
            end
            // ---- reply body
            E_BODY: begin
                if (cmd == CMD_INFO) begin
                    enc_valid = 1'b1;
                    enc_data  = info_vec[{cnt_q[5:0], 3'b000} +: 8];
                end else if (cmd == CMD_STATUS) begin
                    if (sub_q == 3'd0) begin
                        if (cnt_fresh_i) begin
                            snap_d = {cnt_value_i, pc_i, trap_i, 6'd0, state_i};
                            sub_d  = 3'd1;
                        end
                    end else begin
                        enc_valid = 1'b1;
                        enc_data  = snap_q[7:0];
                    end
                end else if (cmd == CMD_READ) begin
                    if (sub_q == 3'd0) begin
                        spad_req_valid_o = 1'b1;
                        if (spad_req_ready_i) begin
                            sub_d = 3'd1;
                            if (spad_rsp_valid_i) begin
                                rdat_d = spad_rsp_rdata_i;
                                sub_d  = 3'd2;
                            end
                        end
                    end else if (sub_q == 3'd1) begin
                        if (spad_rsp_valid_i) begin
                            rdat_d = spad_rsp_rdata_i;
                            sub_d  = 3'd2;
                        end
                    end else begin
                        enc_valid = 1'b1;
                        enc_data  = rdat_q;
                    end
                end else if (cmd == CMD_REGS) begin // 16 x u32, select then send
                    if (cnt_q[1:0] != 2'd0 || sub_q == 3'd3) begin
                        enc_valid = 1'b1;
                        enc_data  = snap_q[7:0];
                    end else if (sub_q == 3'd0) begin
                        csel_d = cnt_q[5:2];
                        sub_d  = 3'd1;
                    end else if (sub_q == 3'd1) begin
                        sub_d = 3'd2;
                    end else begin
                        snap_d = {80'd0, reg_value_i};
                        sub_d  = 3'd3;
                    end
                end else begin // COUNTERS: n, then 8 bytes per counter
                    if (cnt_q == 11'd0) begin
                        enc_valid = 1'b1;
                        enc_data  = CNT_COUNT[7:0];
                    end else if (cbyte[2:0] != 3'd0 || sub_q == 3'd3) begin
                        enc_valid = 1'b1;
                        enc_data  = snap_q[7:0];
                    end else if (sub_q == 3'd0) begin
                        csel_d = cbyte[6:3];
                        sub_d  = 3'd1;
                    end else if (sub_q == 3'd1) begin
                        sub_d = 3'd2;                 // select registered in the core
                    end else if (cnt_fresh_i) begin   // (one more cycle after a cnt)
                        snap_d = {48'd0, cnt_value_i};
                        sub_d  = 3'd3;
                    end
                end
                if (enc_fire) begin
                    cnt_d  = cnt_q + 11'd1;
                    snap_d = {8'd0, snap_q[111:8]};
                    sub_d  = (cmd == CMD_STATUS) ? 3'd1 : 3'd0;
                    if (cnt_q + 11'd1 == body_n) begin
                        st_d  = E_CRC;
                        cnt_d = 11'd0;
                    end
                end
            end
            // ---- CRC-32 of type..payload, little-endian; the last byte ends the frame
            default: begin
                enc_valid = 1'b1;
                enc_data  = tx_crc[{cnt_q[1:0], 3'b000} +: 8];
                enc_last  = (cnt_q[1:0] == 2'd3);
                if (enc_fire) begin
                    cnt_d = cnt_q + 11'd1;
                    if (cnt_q[1:0] == 2'd3)
                        st_d = E_RX;
                end
            end
        endcase
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            st_q         <= E_RX;
            cnt_q        <= 11'd0;
            sub_q        <= 3'd0;
            word_q       <= 32'd0;
            snap_q       <= 112'd0;
            rdat_q       <= 8'd0;
            csel_q       <= 4'd0;
            ptr_q        <= 11'd0;
            plen_q       <= 11'd0;
            status_q     <= ST_OK;
            ctl_valid_q  <= 1'b0;
            ctl_cmd_q    <= 8'd0;
            ctl_seq_q    <= 8'd0;
        end else begin
            st_q   <= st_d;
            cnt_q  <= cnt_d;
            sub_q  <= sub_d;
            word_q <= word_d;
            snap_q <= snap_d;
            rdat_q <= rdat_d;
            csel_q <= csel_d;
            ptr_q  <= ptr_d;
            if (frame_ok)
                plen_q <= rx_len_q - 11'd6;
            if (st_q == E_EXEC) begin
                status_q     <= status_d;
                ctl_valid_q  <= is_ctl && status_d == ST_OK;
                ctl_cmd_q    <= cmd;
                ctl_seq_q    <= seq;
            end
        end
    end

    assign idle_o = in_rx && enc_idle && !rx_valid_i && !running;

    wire unused_ok = &{1'b0, rx_crc_unused, tx_res_unused, cbyte[10:7]};
endmodule
`default_nettype wire
