; vec_ops.s -- one vector-unit instruction over VL scratchpad words of int8
; lanes (docs/isa.md "Vector unit"), chosen by r5; the host entry points are
; in host/src/kernels/vector.c (spu_vec_map, spu_vec_rows). The vector unit
; waits for nothing here (no GEMM runs), so the cost is 3 + the word steps
; (docs/isa.md) plus this dispatch.
;
; Arguments:
;   r1  destination base       r5  op: 0 vadd, 1 vsub, 2 vmul (shift 7, rne),
;   r2  source 1 base                  3 vmax, 4 vrmax, 5 vrsum, 6 vlut
;   r3  source 2 base (op 6:   r6  destination stride (bytes per word step)
;       the 256-byte table)    r7  source 1 stride
;   r4  VL (words)             r8  source 2 stride (0: one broadcast word)

        vlen r4
        vstride r6, r7, r8
        li r9, 0
        bne r5, r9, not_add
        vadd r1, r2, r3
        halt
not_add:
        li r9, 1
        bne r5, r9, not_sub
        vsub r1, r2, r3
        halt
not_sub:
        li r9, 2
        bne r5, r9, not_mul
        cfg in=int8 out=int32 shift=7 round=rne
        vmul r1, r2, r3
        halt
not_mul:
        li r9, 3
        bne r5, r9, not_max
        vmax r1, r2, r3
        halt
not_max:
        li r9, 4
        bne r5, r9, not_rmax
        vrmax r1, r2
        halt
not_rmax:
        li r9, 5
        bne r5, r9, not_rsum
        vrsum r1, r2
        halt
not_rsum:
        vlutld r3
        vlut r1, r2
        halt
