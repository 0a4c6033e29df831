; conv_tap.s -- a convolution (stride 1, k x k kernel, zero padding) as a sum
; of shifted GEMMs accumulated in the array, straight from the activation
; codes in the scratchpad: no im2col matrix exists on the host or the device
; (docs/runtime.md "Convolution on the device"). Host driver:
; spu_conv2d_hwc (host/src/kernels/conv.c), which patches every `li` / `addi`
; whose immediate is a placeholder 1001.. (listed below) and the two `cfg`.
;
; Layout (bytes; WB = WORD_BYTES = ROWS = COLS; the batch is one tall image
; of padded images stacked, computed on a padded grid of Wp pixels per row,
; Wp a multiple of WB >= W + k - 1: outputs in pad rows / columns are
; discarded by the host):
;   X    the input band, HWC codes on the padded grid (pads zero)
;   T    the band transposed and shifted, row-interleaved: byte
;        r*(k*C*Wp) + kw*(C*Wp) + c*Wp + col = X[row r, pixel col + kw][c];
;        a word holds WB consecutive pixels of one channel (the array's A
;        layout), and tap t = (kh*k + kw)*C + c of the output block at
;        (row r, col) is the word at T + r*k*C*Wp + col + t*Wp: one stride
;   B    weight panels: column block jb at B + jb*KB; word t = (kh*k + kw)*C
;        + c holds W[jb*COLS + j][c][kh][kw] in byte j
;   Y    the output, HWC on the padded grid: pixel m, channel n at Y + m*N + n
;
; Phase 1 (C a multiple of WB; NGK = 0 skips it and the host writes T, as for
; the network's one-channel input): the array transposes X's WB x WB blocks:
; mm streams WB pixel words (WB channels each, strideA = C) against the
; identity (byte j of word j = one), st with a pass-through cfg (out = in's
; format, shift 0, no relu, bias 0 after RUN) writes channel i's WB pixels
; as row i (strideC = Wp).
; Phase 2: every output block (WB pixels, COLS channels) is ONE mm of the
; k*k*C taps (strideA = Wp) and one st through the patched output pipeline
; (bias, shift, round, relu).
;
; Arguments: r1 output rows of this piece, r2 rows of T to build (r1 + k - 1).
; Placeholders: 1001 X, 1002 T, 1003 identity, 1004 NGK = k*C/WB (0: no
; phase 1), 1005 C, 1007 WB, 1009 WB*C, 1010 k*C*Wp - Wp, 1011 B, 1012 Y,
; 1013 bias, 1014 k*k*C, 1017 N, 1018 Wp, 1021 WB*N, 1022 KB, 1023 bias bytes
; per column block, 1024 NB, 1025 Wp/WB, 1026 WB*Wp.

        cfg in=int8 out=int8             ; patched: pass-through (out = in)
        li r4, 1001                      ; X + kw*C + g*WB: this (kw, group)'s source
        li r5, 1002                      ; T + kw*C*Wp + g*WB*Wp: its rows
        li r11, 1003                     ; the identity
        li r12, 1004                     ; NGK
        li r13, 1005
        li r14, 1007
        li r15, 1018
        li r6, 1025                      ; column blocks per row
        stride r13, r14, r15             ; A: pixel to pixel, B: word, C: channel rows
        loop r12, t_done                 ; (kw, channel group); after a kw's groups, X shifted by a pixel
          mov r9, r4
          mov r10, r5
          loop r2, t_r_done
            loop r6, t_c_done
              mm r9, r11, r14            ; WB pixels x WB channels through the identity
              st r10                     ; channel i's WB pixels -> T row i
              addi r9, r9, 1009
              add r10, r10, r14
t_c_done:
            addi r10, r10, 1010          ; the next row of T
t_r_done:
          add r4, r4, r14
          addi r5, r5, 1026
t_done:
        sync                             ; T written before phase 2 reads it
        cfg in=int8 out=int8             ; patched: the output pipeline
        li r13, 1018
        li r15, 1017
        stride r13, r14, r15             ; A: tap to tap (Wp), B: word, C: output row (N)
        li r4, 1014                      ; k*k*C taps per block
        li r5, 1024
        li r7, 1013
        li r8, 1011
        li r15, 1012
        loop r5, cols_done
          bias r7                        ; waits for the last block's drain
          li r9, 1002
          mov r10, r15
          loop r1, rows_done
            loop r6, cb_done
              mm r9, r8, r4              ; all k*k*C taps of WB pixels into the block
              st r10                     ; bias, shift, round, relu: the block's codes
              add r9, r9, r14
              addi r10, r10, 1021
cb_done:
            addi r9, r9, 1010
rows_done:
          addi r8, r8, 1022
          add r15, r15, r14
          addi r7, r7, 1023
cols_done:
        halt
