; 20000 x mm K=64 (A bank 0, B bank 1): the mm-heavy program of docs/protocol.md "Measured figures"
        li r3, 64
        li r2, 65536
        li r1, 0
        li r4, 20000
        loop r4, done
          mm r1, r2, r3
done:
        halt
