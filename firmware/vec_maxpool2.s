; vec_maxpool2.s -- 2x2 max-pool, stride 2, of an int8 tensor in HWC layout
; (channels innermost, C a multiple of WORD_BYTES: a word holds WORD_BYTES
; channels of one pixel, so the pool is word-wise vmax; docs/isa.md
; "Vector unit"). Output row i, channel group g: three vmax over OW words.
; Host entry point: spu_vec_maxpool2_hwc (host/src/kernels/vector.c).
;
; Arguments:
;   r1  destination (OH x OW x C)   r5  channel groups C / WORD_BYTES
;   r2  source (H x W x C)          r6  source row bytes W * C
;   r3  OH                          r7  WORD_BYTES
;   r4  OW                          r8  C (pixel bytes)

.alias dst, r9
.alias src, r10
.alias d, r11
.alias s, r12
.alias t, r13
.alias c2, r14

        vlen r4
        add c2, r8, r8                  ; two pixels
        mov dst, r1
        mov src, r2
        loop r3, rows_done
          mov d, dst
          mov s, src
          loop r5, groups_done
            vstride r8, c2, c2
            add t, s, r8
            vmax d, s, t                ; (2i, 2j) and (2i, 2j+1)
            vstride r8, r8, c2
            add t, s, r6
            vmax d, d, t                ; (2i+1, 2j)
            add t, t, r8
            vmax d, d, t                ; (2i+1, 2j+1)
            add d, d, r7
            add s, s, r7
groups_done:
          mul t, r4, r8                 ; OW * C: one output row
          add dst, dst, t
          add src, src, r6
          add src, src, r6              ; two input rows
rows_done:
        halt
