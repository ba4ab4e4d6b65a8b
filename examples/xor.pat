# XOR truth table: two inputs | target
0 0 | 0
0 1 | 1
1 0 | 1
1 1 | 0
