// spu_uart_rx_ddr -- 8N1 UART receiver at 2 clocks per bit: the line is
// sampled on both clock edges, so a bit is 4 samples (12 Mbaud, the
// FT2232H's maximum, at a 24 MHz clock; docs/fpga.md "UART rate"). With one
// sample per clock a 2-clock bit cannot be found reliably (the start edge is
// known only to half a bit); with two it is known to a quarter.
//
// Sampling: a falling-edge flip-flop takes the line half a clock before the
// rising edge; both samples then pass two rising-edge synchroniser stages
// side by side, so in each clock the receiver sees a pair (early e, late l),
// the line at the falling and at the rising edge, in that order. The sample
// stream e0 l0 e1 l1 ... has 4 samples per host bit.
// Framing: the first low sample in idle is the start edge, at sample d
// (phase p: 0 when e was low, 1 when only l was). Bit k of the frame (k = 0
// the start bit, 1..8 data LSB first, 9 the stop bit) is sampled at
// d + 2 + 4k: in clock c + 1 + 2k of a start found in clock c, always at
// phase p (the same half of the pair). Since the synchronisers delay the
// edge and the samples alike, bit k is taken 2 + 4k + [0, 1) samples after
// the host's edge; for the stop bit that is [38, 39) against the host's
// [36, 40) x (1 + err): the host's clock may be off by -2.5 % .. +5.5 %.
// A start bit that reads high at its sample is a glitch (back to idle). The
// next frame's start edge may already be in the stop bit's clock (phase 0,
// its late sample): it is taken there, so back-to-back frames from a host
// up to 2.5 % fast lose no sample.
// Interface and behaviour otherwise as spu_uart_rx: a byte with a good stop
// bit is offered on out_valid_o/out_data_o until out_ready_i; a byte that
// arrives while the previous one is unread replaces it and overrun_o
// pulses; a bad stop bit drops the byte and pulses frame_err_o.
`default_nettype none
module spu_uart_rx_ddr (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       rx_i,
    output wire       out_valid_o,
    input  wire       out_ready_i,
    output wire [7:0] out_data_o,
    output reg        overrun_o,
    output reg        frame_err_o
);
    localparam [1:0] S_IDLE = 2'd0, S_START = 2'd1, S_BITS = 2'd2, S_STOP = 2'd3;

    reg       fall_q;              // the line at the falling edge
    reg [1:0] se_q, sl_q;          // synchronisers: early (fall_q) and late (rx_i) samples
    always @(negedge clk_i) fall_q <= rx_i;

    reg [1:0] state_q, state_d;
    reg       ph_q, ph_d;          // the frame's phase: 0 early, 1 late
    reg       tick_q, tick_d;      // 1: this clock has the frame's next sample
    reg [2:0] bit_q, bit_d;
    reg [7:0] shift_q, shift_d;
    reg [7:0] data_q, data_d;
    reg       valid_q, valid_d;

    wire e = se_q[1];
    wire l = sl_q[1];
    wire s = ph_q ? l : e;         // the sample at the frame's phase

    always @* begin
        state_d     = state_q;
        ph_d        = ph_q;
        tick_d      = !tick_q;     // every other clock, from the start's next clock
        bit_d       = bit_q;
        shift_d     = shift_q;
        data_d      = data_q;
        valid_d     = valid_q && !out_ready_i;
        overrun_o   = 1'b0;
        frame_err_o = 1'b0;
        case (state_q)
            S_IDLE: begin
                tick_d = 1'b1;
                if (!e || !l) begin
                    state_d = S_START;
                    ph_d    = e;           // e high: the edge came between e and l
                end
            end
            S_START: if (tick_q) begin
                if (s) state_d = S_IDLE;   // glitch, not a start bit
                else begin
                    state_d = S_BITS;
                    bit_d   = 3'd0;
                end
            end
            S_BITS: if (tick_q) begin
                shift_d = {s, shift_q[7:1]};
                bit_d   = bit_q + 3'd1;
                if (bit_q == 3'd7) state_d = S_STOP;
            end
            default: if (tick_q) begin // S_STOP
                state_d = S_IDLE;
                if (s) begin
                    overrun_o = valid_d;
                    data_d    = shift_q;
                    valid_d   = 1'b1;
                    if (!ph_q && !l) begin // the next start edge, in this clock's late sample
                        state_d = S_START;
                        ph_d    = 1'b1;
                        tick_d  = 1'b1;
                    end
                end else begin
                    frame_err_o = 1'b1;
                end
            end
        endcase
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            se_q    <= 2'b11;
            sl_q    <= 2'b11;
            state_q <= S_IDLE;
            ph_q    <= 1'b0;
            tick_q  <= 1'b0;
            bit_q   <= 3'd0;
            shift_q <= 8'd0;
            data_q  <= 8'd0;
            valid_q <= 1'b0;
        end else begin
            se_q    <= {se_q[0], fall_q};
            sl_q    <= {sl_q[0], rx_i};
            state_q <= state_d;
            ph_q    <= ph_d;
            tick_q  <= tick_d;
            bit_q   <= bit_d;
            shift_q <= shift_d;
            data_q  <= data_d;
            valid_q <= valid_d;
        end
    end

    assign out_valid_o = valid_q;
    assign out_data_o  = data_q;
endmodule
`default_nettype wire
