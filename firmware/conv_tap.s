; conv_tap.s -- a convolution (stride 1, k x k kernel, zero padding) as a sum
; of shifted GEMMs accumulated in the array, straight from the activation
; codes in the scratchpad: no im2col matrix exists on the host or the device
; (docs/runtime.md "Convolution on the device"). Host driver:
; spu_conv2d_hwc (host/src/kernels/conv.c), which patches every `li` / `addi`
; whose immediate is a placeholder 1001.. (listed below) and the two `cfg`.
;
; Layout (bytes; WB = WORD_BYTES = ROWS = COLS; the batch is one tall image
; of padded images stacked, computed on a padded grid of Wp pixels per row,
; Wp a multiple of WB >= W + k - 1: outputs in pad columns are discarded):
;   X    the input band, HWC codes on the padded grid (pads zero)
;   T    k copies of X transposed and shifted, T_kw at T + kw*TS, TS = C*Lp:
;        byte c*Lp + p of T_kw = X[pixel p + kw][channel c]; a word holds WB
;        consecutive pixels of one channel -- the array's A layout
;   B    weight panels: column block jb at B + jb*KB; word (kw*k + kh)*C + c
;        holds W[jb*COLS + j][c][kh][kw] in byte j
;   Y    the output, HWC on the padded grid: pixel m, channel n at Y + m*N + n
;
; Phase 1 (C a multiple of WB; NGK = 0 skips it and the host writes T, as for
; the network's one-channel input): the array transposes X's WB x WB blocks:
; mm streams WB pixel words (WB channels each, strideA = C) against the
; identity (byte j of word j = one), st with a pass-through cfg (out = in's
; format, shift 0, no relu, bias 0 after RUN) writes channel i's WB pixels
; as row i (strideC = Lp).
; Phase 2: output block (pixels WB*ib.., channels COLS*jb..) = the sum over
; kw, kh of mm(A = T_kw + WB*ib + kh*Wp, stepping c by Lp; B = tap (kh, kw)'s
; words), one st per block through the patched output pipeline (bias,
; shift, round, relu). With C = 1 one mm streams the k taps of a column kw
; (strideA = Wp) and the kh loop runs once.
;
; Arguments: r1 MB (row blocks of this piece), r2 NT (pixel blocks per T plane
; to transpose). Placeholders: 1001 X, 1002 T, 1003 identity, 1004 NGK =
; k*C/WB (0: no phase 1), 1005 C, 1006 Lp, 1007 WB, 1008 k, 1009 WB*C,
; 1010 WB*Lp, 1011 B, 1012 Y, 1013 bias, 1014 k-steps per mm (C, or k when
; C = 1), 1015 kh loop count (k, or 1), 1016 phase 2 strideA (Lp, or Wp),
; 1017 N, 1018 Wp, 1019 words per mm * WB, 1020 TS, 1021 WB*N, 1022 KB,
; 1023 bias bytes per column block, 1024 NB.

        cfg in=int8 out=int8             ; patched: pass-through (out = in)
        li r4, 1001                      ; source of this channel group
        li r5, 1002                      ; its T rows
        li r11, 1003                     ; the identity
        li r12, 1004                     ; NGK
        li r13, 1005
        li r14, 1007
        li r15, 1006
        stride r13, r14, r15             ; A: pixel to pixel, B: word, C: a plane
        loop r12, t_done                 ; (kw, channel group): X's groups, then shifted by a pixel
          mov r9, r4
          mov r10, r5
          loop r2, t_q_done
            mm r9, r11, r14              ; WB pixels x WB channels through the identity
            st r10                       ; channel i's WB pixels -> T row i
            addi r9, r9, 1009
            add r10, r10, r14
t_q_done:
          add r4, r4, r14                ; next group; after the last one, X shifted by a pixel
          addi r5, r5, 1010
t_done:
        sync                             ; T written before phase 2 reads it
        cfg in=int8 out=int8             ; patched: the output pipeline
        li r13, 1016
        li r14, 1007
        li r15, 1017
        stride r13, r14, r15
        li r3, 1008
        li r4, 1014
        li r5, 1024
        li r6, 1002
        li r7, 1013
        li r8, 1011
        li r14, 1015
        li r15, 1012
        loop r5, cols_done
          bias r7                        ; waits for the last block's drain
          mov r9, r6
          mov r10, r15
          loop r1, rows_done
            mov r11, r9
            mov r13, r8
            loop r3, kw_done
              mov r12, r11
              loop r14, kh_done
                mm r12, r13, r4          ; tap (kh, kw): all channels into the same block
                addi r12, r12, 1018
                addi r13, r13, 1019
kh_done:
              addi r11, r11, 1020
kw_done:
            st r10                       ; bias, shift, round, relu: this block's codes
            addi r10, r10, 1021
            addi r9, r9, 1007
rows_done:
          addi r8, r8, 1022
          addi r15, r15, 1007
          addi r7, r7, 1023
cols_done:
        halt
