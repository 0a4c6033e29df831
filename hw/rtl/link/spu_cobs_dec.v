// spu_cobs_dec -- streaming COBS decoder for frames delimited by 0x00.
//
// Input: encoded bytes with valid/ready (in_ready_o follows out_ready_i, so
// the decoder never needs a buffer: every input byte yields at most one
// output event). Output events, one per accepted input byte at most:
//   out_valid_o            a decoded byte out_data_o
//   end_o   (with valid)   the 0x00 delimiter closed a well-formed frame
//   bad_o   (with valid)   the delimiter came in the middle of a COBS block
//                          (truncated frame); the receiver drops it
// The zero implied by a code byte < 0xFF is emitted only when the next code
// byte arrives, so the zero before the delimiter never appears.
// An empty frame (two delimiters in a row) yields end_o with no bytes.
`default_nettype none
module spu_cobs_dec (
    input  wire       clk_i,
    input  wire       rst_i,
    input  wire       in_valid_i,
    output wire       in_ready_o,
    input  wire [7:0] in_data_i,
    output reg        out_valid_o,
    input  wire       out_ready_i,
    output reg  [7:0] out_data_o,
    output reg        end_o,
    output reg        bad_o
);
    reg [7:0] left_q, left_d;        // data bytes left in the block + 1 (0, 1: a code byte next)
    reg       zero_q, zero_d;        // a zero is owed before the next block

    assign in_ready_o = out_ready_i;
    wire fire = in_valid_i && out_ready_i;
    wire at_code = (left_q[7:1] == 7'd0);

    always @* begin
        left_d      = left_q;
        zero_d      = zero_q;
        out_valid_o = 1'b0;
        out_data_o  = in_data_i;
        end_o       = 1'b0;
        bad_o       = 1'b0;
        if (fire) begin
            if (in_data_i == 8'h00) begin
                // delimiter
                out_valid_o = 1'b1;
                end_o       = at_code;
                bad_o       = !at_code;
                left_d      = 8'd0;
                zero_d      = 1'b0;
            end else if (at_code) begin
                // code byte (kept as the count, which saves a subtractor)
                out_valid_o = zero_q;
                out_data_o  = 8'h00;
                left_d      = in_data_i;
                zero_d      = (in_data_i != 8'hFF);
            end else begin
                out_valid_o = 1'b1;
                left_d      = left_q - 8'd1;
            end
        end
    end

    always @(posedge clk_i) begin
        if (rst_i) begin
            left_q <= 8'd0;
            zero_q <= 1'b0;
        end else begin
            left_q <= left_d;
            zero_q <= zero_d;
        end
    end
endmodule
`default_nettype wire
