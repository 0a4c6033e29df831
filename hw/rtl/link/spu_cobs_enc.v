// spu_cobs_enc -- streaming COBS encoder, one frame at a time.
//
// Input: the raw bytes of a frame with valid/ready; in_last_i marks the last
// byte. Output: the COBS encoding followed by the 0x00 delimiter, valid/ready.
// Non-zero bytes are collected in a block buffer (a synchronous-read RAM, one
// EBR on iCE40, slots 1..254); a block is sent as its code byte and its data
// when a zero arrives, when 254 bytes are pending, or at the end of the frame.
// A frame that ends in a zero gets the final empty block (code 0x01) the COBS
// rules require. Input stalls while a block is being sent; each output byte
// takes two cycles (RAM read, then offer).
// The input goes through a two-entry queue whose in_ready_o is a flip-flop
// (at most one byte held): the sender's byte mux (the command engine's reply
// byte select) ends at the queue's registers instead of running on into the
// encoder's state decision (that chain was the iCEBreaker's critical path,
// 38.6 ns at seed 1). A byte per cycle still flows; a byte waits one cycle.
`default_nettype none
module spu_cobs_enc (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       in_valid_i,
    output wire       in_ready_o,
    input  wire [7:0] in_data_i,
    input  wire       in_last_i,
    output reg        out_valid_o,
    input  wire       out_ready_i,
    output reg  [7:0] out_data_o,
    output wire       idle_o            // no frame in progress
);
    localparam [1:0] S_FILL = 2'd0, S_CODE = 2'd1, S_DATA = 2'd2, S_DELIM = 2'd3;

    // no_rw_check: read and write never meet at one address (spu_ram_1r1w.v)
    (* no_rw_check *) reg [7:0] buf_q [0:255];
    reg [1:0] state_q, state_d;
    reg [7:0] code_q, code_d;        // the block's code byte: pending bytes + 1
    reg [7:0] rd_q, rd_d;            // next buffer slot to send
    reg       have_q, have_d;        // rdata_q holds buf_q[rd_q]
    reg [7:0] rdata_q;
    reg       last_q, last_d;        // the frame ends after this block
    reg       tail_q, tail_d;        // ...and then needs the empty block 0x01
    reg       we;

    // input queue: entry 0 (head, what the encoder sees) and entry 1
    reg       q0_v_q, q1_v_q, q0_last_q, q1_last_q;
    reg [7:0] q0_data_q, q1_data_q;
    wire      in_last = q0_last_q;
    wire [7:0] in_data = q0_data_q;
    wire      push = in_valid_i && !q1_v_q;
    assign in_ready_o = !q1_v_q;
    assign idle_o     = (state_q == S_FILL) && (code_q == 8'd1) && !q0_v_q;
    wire in_fire  = q0_v_q && (state_q == S_FILL);
    wire out_fire = out_valid_o && out_ready_i;

    always @* begin
        state_d     = state_q;
        code_d      = code_q;
        rd_d        = rd_q;
        have_d      = have_q;
        last_d      = last_q;
        tail_d      = tail_q;
        we          = 1'b0;
        out_valid_o = 1'b0;
        out_data_o  = 8'h00;
        case (state_q)
            S_FILL: if (in_fire) begin
                last_d = in_last;
                tail_d = 1'b0;
                if (in_data == 8'h00) begin
                    state_d = S_CODE;
                    tail_d  = in_last;
                end else begin
                    we     = 1'b1;
                    code_d = code_q + 8'd1;
                    if (code_q == 8'd254 || in_last)
                        state_d = S_CODE;
                end
            end
            S_CODE: begin
                out_valid_o = 1'b1;
                out_data_o  = code_q;
                if (out_fire) begin
                    rd_d    = 8'd1;
                    have_d  = 1'b0;
                    state_d = S_DATA;
                end
            end
            S_DATA: begin
                if (rd_q == code_q) begin
                    // block sent; the tail is one more block, empty
                    code_d  = 8'd1;
                    tail_d  = 1'b0;
                    state_d = !last_q ? S_FILL : (tail_q ? S_CODE : S_DELIM);
                end else if (!have_q) begin
                    have_d = 1'b1;
                end else begin
                    out_valid_o = 1'b1;
                    out_data_o  = rdata_q;
                    if (out_fire) begin
                        rd_d   = rd_q + 8'd1;
                        have_d = 1'b0;
                    end
                end
            end
            default: begin // S_DELIM
                out_valid_o = 1'b1;
                if (out_fire)
                    state_d = S_FILL;
            end
        endcase
    end

    // block buffer: one write port, one synchronous read port
    always @(posedge clk_i) begin
        if (we)
            buf_q[code_q] <= in_data;
        rdata_q <= buf_q[rd_q];
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            q0_v_q <= 1'b0;
            q1_v_q <= 1'b0;
        end else if (push && !in_fire) begin
            if (!q0_v_q) q0_v_q <= 1'b1;
            else         q1_v_q <= 1'b1;
        end else if (!push && in_fire) begin
            q0_v_q <= q1_v_q;
            q1_v_q <= 1'b0;
        end
        // data: a push into an empty head or into the head being consumed
        // (entry 1 empty then) lands in entry 0, otherwise in entry 1
        if (push && (!q0_v_q || in_fire)) begin
            q0_data_q <= in_data_i;
            q0_last_q <= in_last_i;
        end else if (in_fire) begin
            q0_data_q <= q1_data_q;
            q0_last_q <= q1_last_q;
        end
        if (push && q0_v_q && !in_fire) begin
            q1_data_q <= in_data_i;
            q1_last_q <= in_last_i;
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            state_q <= S_FILL;
            code_q  <= 8'd1;
            rd_q    <= 8'd1;
            have_q  <= 1'b0;
            last_q  <= 1'b0;
            tail_q  <= 1'b0;
        end else begin
            state_q <= state_d;
            code_q  <= code_d;
            rd_q    <= rd_d;
            have_q  <= have_d;
            last_q  <= last_d;
            tail_q  <= tail_d;
        end
    end
endmodule
`default_nettype wire
