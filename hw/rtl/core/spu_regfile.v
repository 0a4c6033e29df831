// spu_regfile -- the 16 x 32 scalar registers (r0 = 0) and the 8 kernel
// arguments (r1..r8 as the host set them), in RAM (iCE40 EBR) instead of
// 768 flip-flops and their 16:1 read muxes.
//
// Drive: three SYNCHRONOUS read ports. With re_i high, ra_o/rb_o/rc_o show
// registers a_i/b_i/c_i from the next cycle on and hold them until the next
// re_i (the sequencer reads in FETCH, from the instruction the microcode store
// already returned, and uses the values in EXEC). One write port: we_i writes
// waddr_i (r1..r15; r0 ignored); arg_we_i writes argument arg_idx_i (r1 + idx)
// -- never in the same cycle as we_i (arguments are written while idle).
// A read in the cycle after a write sees the new value; a read in the same
// cycle as a write to the same register sees the old one (never needed).
// clear_i (RUN) makes r1..r8 read their arguments and r9..r15 read 0 again,
// in one cycle, without touching the RAM: one "written since RUN" flag per
// register selects between the register's word and its argument's word.
// rst_i also forgets the arguments (they read 0 until written).
// host_i (a flip-flop: the sequencer is idle) selects the argument port as
// the write source, so the write data/address muxes do not wait for the
// enables (timing); arg_we_i only comes with host_i, we_i only without.
// Storage: one 32-word RAM per read port (words 0..15 registers, 16+r the
// argument of r), all written together. Word 0 (r0) is never written and
// starts at 0 (ZERO_INIT), so a register that reads 0 (r0, or neither written
// nor an argument) reads word 0: the ports are the RAMs' outputs, no mux.
`default_nettype none
module spu_regfile (
    input  wire        clk_i,
    input  wire        rst_i,
    input  wire        clear_i,
    input  wire        re_i,
    input  wire [3:0]  a_i,
    input  wire [3:0]  b_i,
    input  wire [3:0]  c_i,
    output wire [31:0] ra_o,
    output wire [31:0] rb_o,
    output wire [31:0] rc_o,
    input  wire        we_i,
    input  wire [3:0]  waddr_i,
    input  wire [31:0] wdata_i,
    input  wire        host_i,
    input  wire        arg_we_i,
    input  wire [2:0]  arg_idx_i,
    input  wire [31:0] arg_wdata_i
);
    reg [15:0] wr_q;     // register r written since RUN / reset
    reg [7:0]  aw_q;     // argument idx written since reset

    wire [3:0] arg_reg = {1'b0, arg_idx_i} + 4'd1;
    wire       w_en    = (we_i && waddr_i != 4'd0) || arg_we_i;
    wire [4:0] w_addr  = host_i ? {1'b1, arg_reg} : {1'b0, waddr_i};
    wire [31:0] w_data = host_i ? arg_wdata_i : wdata_i;

    always @(posedge clk_i) begin
        if (rst_i) begin
            wr_q <= 16'd0;
            aw_q <= 8'd0;
        end else if (clear_i) begin
            wr_q <= 16'd0;
        end else if (arg_we_i) begin
            wr_q[arg_reg]   <= 1'b0;
            aw_q[arg_idx_i] <= 1'b1;
        end else if (we_i && waddr_i != 4'd0) begin
            wr_q[waddr_i] <= 1'b1;
        end
    end

    // per port: the RAM word to read and whether the register reads 0
    function [4:0] sel;   // RAM word; 0 reads 0
        input [3:0]  r;
        input [15:0] wr;
        input [7:0]  aw;
        reg   [2:0]  rm1;
        begin
            rm1 = r[2:0] - 3'd1;      // argument index of r1..r8
            if (wr[r])                       // (wr[0] is never set)
                sel = {1'b0, r};
            else if (r != 4'd0 && r <= 4'd8 && aw[rm1])
                sel = {1'b1, r};
            else
                sel = 5'd0;
        end
    endfunction

    wire [14:0] s_all = {sel(c_i, wr_q, aw_q), sel(b_i, wr_q, aw_q), sel(a_i, wr_q, aw_q)};
    wire [95:0] q;

    genvar g;
    generate
        for (g = 0; g < 3; g = g + 1) begin : g_port
            spu_ram_1r1w #(.WIDTH(32), .DEPTH(32), .ZERO_INIT(1)) u_ram (
                .clk_i(clk_i), .we_i(w_en), .wbe_i(4'hF), .waddr_i(w_addr), .wdata_i(w_data),
                .re_i(re_i), .raddr_i(s_all[g*5 +: 5]), .rdata_o(q[g*32 +: 32])
            );
        end
    endgenerate

    assign ra_o = q[31:0];
    assign rb_o = q[63:32];
    assign rc_o = q[95:64];
endmodule
`default_nettype wire
