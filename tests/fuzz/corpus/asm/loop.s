li r1, 5
loop r1, e
  addi r2, r2, 1
e: halt
