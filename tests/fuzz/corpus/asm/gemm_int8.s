; gemm_int8.s -- C (int32) = A (int8) x B (int8) on the tile array,
; output-stationary: each ROWS x COLS block of C stays in the accumulators
; while K k-steps stream through, then `st` drains it in the background while
; the next block computes (double-buffered accumulators).
;
; The host (host/src/kernels/gemm.c) packs the operands:
;   A panel ib: K words; word k holds A[ib*ROWS + i][k] in byte i
;   B panel jb: K words; word k holds B[k][jb*COLS + j] in byte j
;   C block (ib, jb) is written at r3 + (ib*NB + jb) * r8, row i at i*COLS*4
;
; Arguments:
;   r1  A panels base        r5  row blocks MB
;   r2  B panels base        r6  column blocks NB
;   r3  C blocks base        r7  panel stride in bytes (K * WORD_BYTES)
;   r4  K                    r8  C block size in bytes (ROWS * COLS * 4)

.alias a_panel, r9
.alias b_panel, r10

        cfg in=int8 out=int32
        mov a_panel, r1
        loop r5, rows_done
          mov b_panel, r2
          loop r6, cols_done
            mm a_panel, b_panel, r4      ; K steps into the array
            st r3                        ; drain this block, zero the accumulators
            add r3, r3, r8
            add b_panel, b_panel, r7
cols_done:
          add a_panel, a_panel, r7
rows_done:
        halt                             ; waits for the last drain
