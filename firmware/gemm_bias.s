; gemm_bias.s -- gemm_int8.s with a per-column bias (docs/isa.md `bias`):
; column blocks outermost, so each column block loads its bias once and every
; row block's st adds it before the output pipeline rounds (cfg `out`).
;
; The host (host/src/kernels/gemm.c, spu_gemm_epi) packs the operands as for
; gemm_int8.s, patches the cfg word (in, out, shift, round, relu, ovf) and the
; two `li` below, and puts the bias of column block jb at r11 + jb * r12:
;   C block (ib, jb) is written at r3 + (jb*MB + ib) * r8, row i at i*COLS*4
;
; Arguments: as gemm_int8.s (r1 A, r2 B, r3 C, r4 K, r5 MB, r6 NB, r7 panel
; stride, r8 C block size); patched: r11 bias base, r12 bias bytes per block.
.alias a_panel, r9
.alias b_panel, r10
.alias bias_p, r11
.alias bias_step, r12
        cfg in=int8 out=int32
        li bias_p, 0                     ; patched: bias base
        li bias_step, 0                  ; patched: COLS * bytes(bias)
        mov b_panel, r2
        loop r6, cols_done
          bias bias_p                    ; waits for the last block's drain
          mov a_panel, r1
          loop r5, rows_done
            mm a_panel, b_panel, r4      ; K steps into the array
            st r3                        ; bias, relu, round: drain this block
            add r3, r3, r8
            add a_panel, a_panel, r7
rows_done:
          add b_panel, b_panel, r7
          add bias_p, bias_p, bias_step
cols_done:
        halt                             ; waits for the last drain
