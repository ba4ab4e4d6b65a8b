"""The numpy pair of the soft-sign transfer function (examples/softsign.net):
the reference (rapsim.compiler.reference) uses it where the nodes run
examples/softsign.asm.  The derivative is given from the output y."""
import numpy as np


def forward(x):
    return x / (1.0 + np.abs(x))


def derivative(y):
    return (1.0 - np.abs(y)) ** 2
