// spu_link_tb -- test bench top for the link units, driven by
// tests/rtl_link/test_rtl_link.cc: a CRC-32 unit, a COBS encoder, a COBS
// decoder and a UART transmitter looped back into a UART receiver
// (CLKS_PER_BIT = 5, an odd count on purpose), and a receiver plus a
// transmitter at CLKS_PER_BIT = 4 (the boards' ratio: 6 Mbaud at 24 MHz,
// 12 Mbaud at 48 MHz) whose line the test drives itself, with the clock
// error of a real host, and the same pair at CLKS_PER_BIT = 3 (u3_*: the
// boards' rate in sessions 7-20, 8 Mbaud at 24 MHz), and the receiver that
// samples on both clock edges with a transmitter at CLKS_PER_BIT = 2 (u2_*:
// the boards' default since session 21, 12 Mbaud at 24 MHz). All outputs
// are always ready.
`default_nettype none
module spu_link_tb (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        crc_clear_i,
    input  wire        crc_valid_i,
    input  wire [7:0]  crc_data_i,
    output wire [31:0] crc_o,
    output wire        crc_res_ok_o,
    input  wire        enc_valid_i,
    output wire        enc_ready_o,
    input  wire [7:0]  enc_data_i,
    input  wire        enc_last_i,
    output wire        enc_out_valid_o,
    output wire [7:0]  enc_out_data_o,
    output wire        enc_idle_o,
    input  wire        dec_valid_i,
    output wire        dec_ready_o,
    input  wire [7:0]  dec_data_i,
    output wire        dec_out_valid_o,
    output wire [7:0]  dec_out_data_o,
    output wire        dec_end_o,
    output wire        dec_bad_o,
    input  wire        uart_valid_i,
    output wire        uart_ready_o,
    input  wire [7:0]  uart_data_i,
    output wire        uart_out_valid_o,
    output wire [7:0]  uart_out_data_o,
    output wire        uart_line_o,
    output wire        uart_ferr_o,
    input  wire        u4_line_i,
    output wire        u4_out_valid_o,
    output wire [7:0]  u4_out_data_o,
    output wire        u4_ferr_o,
    output wire        u4_ovr_o,
    input  wire        u4_valid_i,
    output wire        u4_ready_o,
    input  wire [7:0]  u4_data_i,
    output wire        u4_line_o,
    input  wire        u3_line_i,
    output wire        u3_out_valid_o,
    output wire [7:0]  u3_out_data_o,
    output wire        u3_ferr_o,
    output wire        u3_ovr_o,
    input  wire        u3_valid_i,
    output wire        u3_ready_o,
    input  wire [7:0]  u3_data_i,
    output wire        u3_line_o,
    input  wire        u2_line_i,
    output wire        u2_out_valid_o,
    output wire [7:0]  u2_out_data_o,
    output wire        u2_ferr_o,
    output wire        u2_ovr_o,
    input  wire        u2_valid_i,
    output wire        u2_ready_o,
    input  wire [7:0]  u2_data_i,
    output wire        u2_line_o
);
    wire [31:0] crc_reg;
    spu_crc32 u_crc (
        .clk_i(clk_i), .rst_i(rst_i), .clear_i(crc_clear_i), .valid_i(crc_valid_i),
        .data_i(crc_data_i), .reg_o(crc_reg), .residue_ok_o(crc_res_ok_o)
    );
    assign crc_o = ~crc_reg;    // the finished CRC
    spu_cobs_enc u_enc (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(enc_valid_i), .in_ready_o(enc_ready_o),
        .in_data_i(enc_data_i), .in_last_i(enc_last_i), .out_valid_o(enc_out_valid_o),
        .out_ready_i(1'b1), .out_data_o(enc_out_data_o), .idle_o(enc_idle_o)
    );
    spu_cobs_dec u_dec (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(dec_valid_i), .in_ready_o(dec_ready_o),
        .in_data_i(dec_data_i), .out_valid_o(dec_out_valid_o), .out_ready_i(1'b1),
        .out_data_o(dec_out_data_o), .end_o(dec_end_o), .bad_o(dec_bad_o)
    );
    wire ovr_unused;
    spu_uart_tx #(.CLKS_PER_BIT(5)) u_tx (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(uart_valid_i), .in_ready_o(uart_ready_o),
        .in_data_i(uart_data_i), .tx_o(uart_line_o)
    );
    spu_uart_rx #(.CLKS_PER_BIT(5)) u_rx (
        .clk_i(clk_i), .rst_i(rst_i), .rx_i(uart_line_o), .out_valid_o(uart_out_valid_o),
        .out_ready_i(1'b1), .out_data_o(uart_out_data_o), .overrun_o(ovr_unused),
        .frame_err_o(uart_ferr_o)
    );
    spu_uart_rx #(.CLKS_PER_BIT(4)) u_rx4 (
        .clk_i(clk_i), .rst_i(rst_i), .rx_i(u4_line_i), .out_valid_o(u4_out_valid_o),
        .out_ready_i(1'b1), .out_data_o(u4_out_data_o), .overrun_o(u4_ovr_o),
        .frame_err_o(u4_ferr_o)
    );
    spu_uart_tx #(.CLKS_PER_BIT(4)) u_tx4 (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(u4_valid_i), .in_ready_o(u4_ready_o),
        .in_data_i(u4_data_i), .tx_o(u4_line_o)
    );
    spu_uart_rx #(.CLKS_PER_BIT(3)) u_rx3 (
        .clk_i(clk_i), .rst_i(rst_i), .rx_i(u3_line_i), .out_valid_o(u3_out_valid_o),
        .out_ready_i(1'b1), .out_data_o(u3_out_data_o), .overrun_o(u3_ovr_o),
        .frame_err_o(u3_ferr_o)
    );
    spu_uart_tx #(.CLKS_PER_BIT(3)) u_tx3 (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(u3_valid_i), .in_ready_o(u3_ready_o),
        .in_data_i(u3_data_i), .tx_o(u3_line_o)
    );
    spu_uart_rx_ddr u_rx2 (
        .clk_i(clk_i), .rst_i(rst_i), .rx_i(u2_line_i), .out_valid_o(u2_out_valid_o),
        .out_ready_i(1'b1), .out_data_o(u2_out_data_o), .overrun_o(u2_ovr_o),
        .frame_err_o(u2_ferr_o)
    );
    spu_uart_tx #(.CLKS_PER_BIT(2)) u_tx2 (
        .clk_i(clk_i), .rst_i(rst_i), .in_valid_i(u2_valid_i), .in_ready_o(u2_ready_o),
        .in_data_i(u2_data_i), .tx_o(u2_line_o)
    );
    wire unused_ok = &{1'b0, ovr_unused};
endmodule
`default_nettype wire
