"""The inference image's weights file: every node's parts of every array
cover the array once, in order, whatever the machine size."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rapsim.compiler.infer import inference_plan, weight_arrays, weights_file_words
from rapsim.compiler.reference import initial_weights

from netsrc import net

SRC = """\
layer x: input 9
layer h: tanh 7 bias
layer s: sigmoid 3 bias
layer q: sigmoid 4
layer y: sigmoid 5 bias
connect x -> h full
connect x -> s sparse local(4, 2)
connect x -> q sparse [0 -> 0, 2 -> 0, 5 -> 1, 1 -> 3, 3 -> 3, 8 -> 3]
connect h -> y full
connect s -> y full
connect q -> y full
net n { input x  hidden h, s, q  output y }
train { momentum 0.9 }
"""


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 12))
def test_parts_cover_each_array(nodes):
    n = net(SRC)
    plan = inference_plan(n, nodes)
    assert plan.momentum == 0.0                   # no momentum buffers for inference
    arrays = weight_arrays(plan)
    start = 0
    for a in arrays:
        assert a.start == start
        covered = [i for first, words in a.parts for i in range(first, first + words)]
        assert covered == list(range(a.words))
        start += a.words
    words = weights_file_words(plan, initial_weights(n))
    assert len(words) == start and words.dtype == np.uint32
