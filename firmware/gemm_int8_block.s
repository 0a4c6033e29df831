; gemm_int8_block.s -- gemm_int8.s for a GEMM of one output block: M <= ROWS
; and N <= COLS, so every piece (one per K piece) is a single block and the
; loops of gemm_int8.s would only cost time. The host (host/src/kernels/gemm.c)
; runs this kernel instead, with the same arguments and the same cfg word
; (its epilogues patch it as they patch gemm_int8.s's):
;   r1  A panel    r2  B panel    r3  C block    r4  K    (r5 .. r8 unused)
;
; Four instructions to halt instead of eleven: on the 8 x 8 sim a block
; takes K + 9 cycles (docs/isa.md "Tensor unit": the mm launches at 4, the
; st's wave leaves the last tile 2 cycles after its slot K + 5, halt ends
; at the idle K + 8), against K + ROWS + COLS - 2 for an ideal
; output-stationary array that pays the skew (docs/perf-model.md).

        cfg in=int8 out=int32
        mm r1, r2, r4                    ; K steps into the array
        st r3                            ; drain the block
        halt                             ; its drain writes after the halt
