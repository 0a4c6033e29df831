// spu_eqref_fx2f32 -- miter: spu_fx2f32 (the unit, combinational) against
// the reference model spu_ref_fx2f32. bad_o = 1 when they differ.
`default_nettype none
module spu_eqref_fx2f32 #(
    parameter integer W  = 48,
    parameter integer EW = 10
) (
    input  wire [W-1:0]  x_i,
    input  wire [EW-1:0] e_i,
    input  wire          nan_i,
    input  wire          inf_i,
    input  wire          inf_sign_i,
    output wire          bad_o
);
    wire [31:0] f_unit, f_ref;
    spu_fx2f32 #(.W(W), .EW(EW)) u_unit (.x_i(x_i), .e_i(e_i), .nan_i(nan_i), .inf_i(inf_i),
        .inf_sign_i(inf_sign_i), .f32_o(f_unit));
    spu_ref_fx2f32 #(.W(W), .EW(EW)) u_ref (.x_i(x_i), .e_i(e_i), .nan_i(nan_i), .inf_i(inf_i),
        .inf_sign_i(inf_sign_i), .f32_o(f_ref));
    assign bad_o = (f_unit != f_ref);
endmodule
`default_nettype wire
