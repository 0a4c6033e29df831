// spu_requant_post -- the second half of spu_requant: from spu_requant_pre's
// {neg, fits, sticky, g, fl8} to q: round (rne / rtz / rna: add one to the
// floor or not), clamp to [-128, 127], relu (max(q, 0)) when relu_i.
// Purely combinational.
`default_nettype none
module spu_requant_post (
    input  wire [11:0] pre_i,
    input  wire [1:0]  round_i,   // RND_*
    input  wire        relu_i,
    output reg  [7:0]  q_o
);
`include "spu_isa.vh"
    wire [7:0] fl8    = pre_i[7:0];
    wire       g      = pre_i[8];
    wire       sticky = pre_i[9];
    wire       fits   = pre_i[10];
    wire       neg    = pre_i[11];

    reg up;                 // add one to the floor
    always @* begin
        case (round_i)
            RND_RNE: up = g && (sticky || fl8[0]);
            RND_RTZ: up = neg && (g || sticky);
            RND_RNA: up = g && (sticky || !neg);
            default: up = 1'b0;
        endcase
    end
    // q = floor + up, clamped, relu'd. The floor 127 rounded up (128) has
    // neg = 0, so it takes the 7F of a positive value that does not fit.
    wire [7:0] sum  = fl8 + {7'd0, up};
    wire       fitr = fits && !(up && fl8 == 8'h7F);    // the rounded value fits
    wire       pass = fitr && !(relu_i && sum[7]);      // q is sum
    wire       clo  = !fitr && !neg;                    // else 7F, 80 or 00
    wire       chi  = !fitr && neg && !relu_i;
    always @* q_o = pass ? sum : {chi, {7{clo}}};
endmodule
`default_nettype wire
