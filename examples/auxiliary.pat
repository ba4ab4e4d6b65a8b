# XOR with the auxiliary output's targets (the inputs): x1 x2 | y aux1 aux2
0 0 | 0 0 0
0 1 | 1 0 1
1 0 | 1 1 0
1 1 | 0 1 1
