; vec_softmax.s -- softmax of int8 rows on the vector unit (docs/isa.md
; "Vector unit", docs/runtime.md "Device softmax"): per row of L = VL words
;   m = vrmax(x)                 every lane the row maximum
;   d = vsub(x, m)               sat8(x - m) <= 0 (src2 stride 0: m broadcast)
;   e = vlut(d)                  e = LUT[d], the host's exp table, 0..127
;   S = vrsum(e)                 int32 sum of the row's e
;   p = vdiv(e, S)               round(e * 2^7 / S), ties away, saturated
; so p is the probability on the 1/128 grid. Host entry point:
; spu_vec_softmax_rows (host/src/kernels/vector.c).
;
; Arguments:
;   r1  destination (rows x L bytes)   r5  rows
;   r2  source (rows x L bytes)        r6  L (bytes per row)
;   r3  two scratch words (m, S),      r7  the 256-byte exp table
;       in a bank of their own         r8  WORD_BYTES
;   r4  VL = L / WORD_BYTES

.alias dst, r9
.alias src, r10
.alias sum, r11

        vlen r4
        vlutld r7
        cfg in=int8 out=int32 shift=7 round=rne
        vstride r8, r8, r0              ; src2 stride 0: the one word of m
        add sum, r3, r8
        mov dst, r1
        mov src, r2
        loop r5, rows_done
          vrmax r3, src
          vsub dst, src, r3
          vlut dst, dst
          vrsum sum, dst
          vdiv dst, dst, sum
          add dst, dst, r6
          add src, src, r6
rows_done:
        halt
