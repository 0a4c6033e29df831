// spu_load_unit -- streams the K steps of one `mm` from the scratchpad into
// the array edges, skewed.
//
// Drive: pulse start_i (the cycle the sequencer executes mm, K >= 1, operands
// already checked) with the A/B byte addresses, strides and K. From the next
// cycle the unit is busy for exactly  sum_k (1, or 2 if A_k and B_k are in the
// same bank) + ROWS + COLS - 2  cycles; last_o marks the final one. Per cycle:
//   - a different-bank step reads A on spad port A and B on port B (1 cycle);
//   - a same-bank step reads A first (stall_o, A parked in hold_q), then B;
//   - step_o pulses in the cycle a step's last read is issued (mac_active).
// The words arrive one cycle after the read; the unit puts A byte i on west_o
// row i delayed i cycles and B byte j on north_o column j delayed j cycles,
// zeros when no step is in flight (a zero product is a no-op in the array).
// After the stream, ROWS+COLS-2 cycles let the skew drain (the cost docs/isa.md
// charges); the array's own edge register and the tile's accumulator add two
// more: the last product of an mm lands in its tile at the end of the second
// cycle after last_o, which is why the drain snapshots one cycle after `st`
// (spu_core).
// BROADCAST = 1 (spu_array BROADCAST): no skew lines, row i / column j get
// byte i / j of the word as it arrives; the unit still counts the same
// ROWS+COLS-2 cycles after the stream, so the cost is the same.
// Range: a step whose A or B word lies outside the scratchpad (its address
// reached SPAD_BYTES = 2^AW) is not issued: bad_o is high in its first cycle
// (no read counts, no step_o / stall_o) and the sequencer traps SPAD_RANGE
// and aborts. Each address keeps a sticky "over" flag instead of a wider
// register: set at start_i when the base is out of range (a_over_i), and on
// every issued step by the carry out of address + stride or a stride of
// 2^AW or more (sa_over_i) -- an aligned word below 2^AW is inside.
// abort_i (RESET, or an mm that reached a bad step) stops the stream at once.
`default_nettype none
module spu_load_unit #(
    parameter integer ROWS       = 8,
    parameter integer COLS       = 8,
    parameter integer WORD_BYTES = 8,
    parameter integer SPAD_BYTES = 262144,
    parameter integer SPAD_BANKS = 4,
    parameter integer AW         = $clog2(SPAD_BYTES),
    parameter integer BROADCAST  = 0
) (
    input  wire                    clk_i,
    input  wire                    rst_i,
    input  wire                    abort_i,
    input  wire                    start_i,
    input  wire [AW-1:0]           a_addr_i,
    input  wire [AW-1:0]           b_addr_i,
    input  wire [AW-1:0]           a_stride_i,
    input  wire [AW-1:0]           b_stride_i,
    input  wire                    a_over_i,    // base >= 2^AW
    input  wire                    b_over_i,
    input  wire                    sa_over_i,   // stride >= 2^AW
    input  wire                    sb_over_i,
    input  wire [31:0]             k_i,
    output wire                    bad_o,       // this step's A or B word is outside
    output wire                    last_o,
    output wire                    step_o,
    output wire                    stall_o,
    // scratchpad read ports
    output wire                    a_re_o,
    output wire [AW-OFF-1:0]       a_addr_o,   // word address
    input  wire [WORD_BYTES*8-1:0] a_rdata_i,
    output wire                    b_re_o,
    output wire [AW-OFF-1:0]       b_addr_o,
    input  wire [WORD_BYTES*8-1:0] b_rdata_i,
    // skewed array edges
    output wire [ROWS*8-1:0]       west_o,
    output wire [COLS*8-1:0]       north_o
);
    localparam integer BKW  = $clog2(SPAD_BANKS);
    localparam integer OFF  = $clog2(WORD_BYTES);
    localparam integer SKEW = ROWS + COLS - 2;
    localparam integer SW   = $clog2(SKEW + 2);
    localparam [SW-1:0] SKEW_N = SKEW[SW-1:0];
    localparam integer DW   = WORD_BYTES * 8;

    reg          stream_q, skew_q, ph1_q;
    reg [31:0]   k_q;
    reg [AW-1:0] a_q, b_q, as_q, bs_q;
    reg [SW-1:0] skew_cnt_q;
    reg          inj_q, inj_hold_q;
    reg [DW-1:0] hold_q;
    reg          a_over_q, b_over_q, sa_over_q, sb_over_q;

    wire conflict = (a_q[AW-1 -: BKW] == b_q[AW-1 -: BKW]);
    // a step outside the scratchpad: decided in its first cycle, never issued
    wire bad      = stream_q && !ph1_q && (a_over_q || b_over_q);
    // a step completes its reads this cycle
    wire issue    = stream_q && (!conflict || ph1_q) && !bad;
    wire last_k   = (k_q == 32'd1);

    assign step_o   = issue;
    assign stall_o  = stream_q && conflict && !ph1_q && !bad;
    assign bad_o    = bad;
    assign a_re_o   = stream_q && !ph1_q;          // A read: alone (conflict) or with B
    assign a_addr_o = a_q[AW-1:OFF];
    assign b_re_o   = issue;
    assign b_addr_o = b_q[AW-1:OFF];
    assign last_o   = (issue && last_k && (SKEW == 0)) ||
                      (skew_q && (skew_cnt_q == {{(SW-1){1'b0}}, 1'b1}));

    always @(posedge clk_i) begin
        if (rst_i || abort_i || bad) begin
            stream_q   <= 1'b0;
            skew_q     <= 1'b0;
            ph1_q      <= 1'b0;
            k_q        <= 32'd0;
            skew_cnt_q <= {SW{1'b0}};
            inj_q      <= 1'b0;
            inj_hold_q <= 1'b0;
        end else begin
            inj_q      <= issue;
            inj_hold_q <= issue && conflict;
            if (start_i) begin
                stream_q <= 1'b1;
                ph1_q    <= 1'b0;
                k_q      <= k_i;
            end else if (stream_q) begin
                if (!issue) begin
                    ph1_q <= 1'b1;
                end else begin
                    ph1_q <= 1'b0;
                    k_q   <= k_q - 32'd1;
                    if (last_k) begin
                        stream_q   <= 1'b0;
                        skew_q     <= (SKEW != 0);
                        skew_cnt_q <= SKEW_N;
                    end
                end
            end else if (skew_q) begin
                skew_cnt_q <= skew_cnt_q - {{(SW-1){1'b0}}, 1'b1};
                if (skew_cnt_q == {{(SW-1){1'b0}}, 1'b1}) skew_q <= 1'b0;
            end
        end
    end

    wire [AW:0] a_sum = {1'b0, a_q} + {1'b0, as_q};
    wire [AW:0] b_sum = {1'b0, b_q} + {1'b0, bs_q};
    // addresses advance per issued step; the A word of a same-bank step is
    // parked in hold_q the cycle its data returns (the B read is then issued)
    always @(posedge clk_i) begin
        if (start_i) begin
            a_q  <= a_addr_i;
            b_q  <= b_addr_i;
            as_q <= a_stride_i;
            bs_q <= b_stride_i;
            a_over_q  <= a_over_i;
            b_over_q  <= b_over_i;
            sa_over_q <= sa_over_i;
            sb_over_q <= sb_over_i;
        end else if (issue) begin
            a_q <= a_sum[AW-1:0];
            b_q <= b_sum[AW-1:0];
            a_over_q <= a_over_q || a_sum[AW] || sa_over_q;
            b_over_q <= b_over_q || b_sum[AW] || sb_over_q;
        end
        if (ph1_q) hold_q <= a_rdata_i;
    end

    // word entering the skew this cycle (zeros when none)
    wire [DW-1:0] a_word = !inj_q ? {DW{1'b0}} : (inj_hold_q ? hold_q : a_rdata_i);
    wire [DW-1:0] b_word = !inj_q ? {DW{1'b0}} : b_rdata_i;

    // triangular delay lines: row i / column j delayed i / j cycles
    genvar g;
    generate
        for (g = 0; g < ROWS; g = g + 1) begin : g_west
            if (g == 0 || BROADCAST != 0) begin : g_direct
                assign west_o[g*8 +: 8] = a_word[g*8 +: 8];
            end else begin : g_delay
                reg [g*8-1:0] line_q;
                // line_q[7:0] is the newest byte; a wider line shifts up by one byte
                wire [g*8+7:0] nxt = {line_q, a_word[g*8 +: 8]};
                always @(posedge clk_i) begin
                    if (rst_i) line_q <= {g*8{1'b0}};
                    else       line_q <= nxt[g*8-1:0] ;
                end
                assign west_o[g*8 +: 8] = nxt[g*8+7 -: 8];   // = oldest byte of line_q
            end
        end
        for (g = 0; g < COLS; g = g + 1) begin : g_north
            if (g == 0 || BROADCAST != 0) begin : g_direct
                assign north_o[g*8 +: 8] = b_word[g*8 +: 8];
            end else begin : g_delay
                reg [g*8-1:0] line_q;
                // line_q[7:0] is the newest byte; a wider line shifts up by one byte
                wire [g*8+7:0] nxt = {line_q, b_word[g*8 +: 8]};
                always @(posedge clk_i) begin
                    if (rst_i) line_q <= {g*8{1'b0}};
                    else       line_q <= nxt[g*8-1:0];
                end
                assign north_o[g*8 +: 8] = nxt[g*8+7 -: 8];
            end
        end
    endgenerate
endmodule
`default_nettype wire
