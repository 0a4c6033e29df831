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
;
; The first mm is the fourth instruction: r1 and r2 walk the panels
; themselves (RUN restores them from the arguments), and the row's end takes
; back from r2 what the column loop added (b_back, zero after RUN), so no
; copy of a base is made before the first mm (docs/perf-model.md "Device
; cycles"). The inner loop's five instructions (10 cycles) run while the
; block streams (K + 2 cycles) or drains. A GEMM of one block runs
; gemm_int8_block.s instead (no loops: four instructions to halt).

.alias b_back, r11

        cfg in=int8 out=int32
        loop r5, rows_done
          loop r6, cols_done
            mm r1, r2, r4                ; K steps into the array
            st r3                        ; drain this block, zero the accumulators
            add r3, r3, r8
            add r2, r2, r7
            add b_back, b_back, r7
cols_done:
          add r1, r1, r7
          sub r2, r2, b_back
          li b_back, 0
rows_done:
        halt                             ; waits for the last drain
