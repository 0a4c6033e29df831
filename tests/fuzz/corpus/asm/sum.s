; sum.s -- r2 = 1 + 2 + ... + r1   (r1 is kernel argument 1)
.alias n,   r1
.alias sum, r2
.alias i,   r9

        li   sum, 0
        mov  i, n
        loop n, done        ; body = the next two instructions, run n times
        add  sum, sum, i
        addi i, i, -1
done:   halt
