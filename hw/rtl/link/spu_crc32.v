// spu_crc32 -- byte-serial CRC-32/IEEE (reflected polynomial 0xEDB88320,
// init 0xFFFFFFFF, xorout 0xFFFFFFFF), one byte per cycle.
//
// Drive: pulse clear_i to start a new frame (init value), then assert
// valid_i with data_i for every byte. reg_o is the raw CRC register; the
// finished CRC of the bytes so far is ~reg_o (xorout 0xFFFFFFFF), left to the
// user, who often needs only some of its bits (an inverter per output bit
// would cost a LUT each at a module boundary). residue_ok_o is high when the bytes
// so far are a message followed by its own CRC in little-endian order (the
// raw register then equals the CRC-32 residue 0xDEBB20E3), which is how the
// receiver checks a frame without knowing where the payload ends.
// clear_i has priority over valid_i. Synchronous active-high reset.
`default_nettype none
module spu_crc32 (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clear_i,
    input  wire        valid_i,
    input  wire [7:0]  data_i,
    output wire [31:0] reg_o,
    output wire        residue_ok_o
);
    localparam [31:0] POLY    = 32'hEDB88320;
    localparam [31:0] INIT    = 32'hFFFFFFFF;
    localparam [31:0] RESIDUE = 32'hDEBB20E3;

    reg [31:0] crc_q;
    reg [31:0] crc_d;

    // one byte of the reflected CRC-32
    function [31:0] crc_step(input [31:0] c, input [7:0] d);
        integer i;
        begin
            crc_step = c ^ {24'd0, d};
            for (i = 0; i < 8; i = i + 1)
                crc_step = crc_step[0] ? ((crc_step >> 1) ^ POLY) : (crc_step >> 1);
        end
    endfunction

    // the byte step is called only in the branch that takes a byte: a
    // Verilated model evaluates this block on every clock and in its input
    // pass (valid_i / data_i follow the link inputs combinationally), and
    // skips the call when valid_i is low (docs/sim.md "Speed")
    always @* begin
        crc_d = crc_q;
        if (clear_i)
            crc_d = INIT;
        else if (valid_i)
            crc_d = crc_step(crc_q, data_i);
    end

    always @(posedge clk_i) begin
        if (rst_i)
            crc_q <= INIT;
        else
            crc_q <= crc_d;
    end

    assign reg_o        = crc_q;
    assign residue_ok_o = (crc_q == RESIDUE);
endmodule
`default_nettype wire
