"""C30 floating-point formats against the guide (SPRU031 5.3) and edge cases."""
import math

import numpy as np
import pytest
from hypothesis import given, strategies as st

from rapsim.asm import floatfmt as ff

# (value, single word) -- RAP-REFERENCE.md and the guide's examples (5.3.2, 5.3.3)
SINGLE = [
    (1.0, 0x00000000), (-1.0, 0xFF800000), (0.5, 0xFF000000), (0.0, 0x80000000),
    (-3.0, 0x01C00000), (3 / 64, 0xFB400000), (2.0, 0x01000000), (-2.0, 0x00800000),
    (-1.5, 0x00C00000), (3.0, 0x01400000), (-0.5, 0xFE800000),
    ((2 - 2 ** -23) * 2.0 ** 127, 0x7F7FFFFF),     # largest positive
    (-(2.0 ** 128), 0x7F800000),                  # most negative
    (2.0 ** -127, 0x81000000),                    # smallest positive
    (-(1 + 2 ** -23) * 2.0 ** -127, 0x81FFFFFF),  # negative closest to zero
]
SHORT = [(1.0, 0x0000), (-1.0, 0xF800), (0.5, 0xF000), (2.0, 0x1000), (-2.0, 0x0800),
         (0.0, 0x8000), ((2 - 2 ** -11) * 2 ** 7, 0x77FF), (-256.0, 0x7800), (2.0 ** -7, 0x9000)]


@pytest.mark.parametrize("value,word", SINGLE)
def test_single_known_words(value, word):
    assert ff.to_single(value) == word
    assert ff.from_single(word) == value


@pytest.mark.parametrize("value,word", SHORT)
def test_short_known_words(value, word):
    assert ff.to_short(value) == word
    assert ff.from_short(word) == value


def test_extended_is_single_with_more_fraction():
    for value, word in SINGLE:
        assert ff.to_extended(value) == ff.single_to_extended(word)
        assert ff.extended_to_single(ff.to_extended(value)) == word
    # 1 + 2**-31 needs the extended fraction
    p = ff.to_extended(1 + 2 ** -31)
    assert p == 0x0000000001 and ff.from_extended(p) == 1 + 2 ** -31


def test_any_exponent_minus_128_is_zero():
    assert ff.from_single(0x80123456) == 0.0
    assert ff.from_short(0x8ABC) == 0.0
    assert ff.from_extended(0x80FFFFFFFF) == 0.0


def test_rounding_to_nearest_ties_away_from_zero():
    ulp = 2.0 ** -23
    assert ff.to_single(1 + ulp / 2) == 0x00000001          # tie: away from zero
    assert ff.to_single(1 + ulp / 2 - 2 ** -40) == 0x00000000
    assert ff.to_single(1 + ulp * 0.75) == 0x00000001
    assert ff.to_single(-(1 + ulp / 2)) == ff.to_single(-(1 + ulp))   # magnitude rounded
    # rounding up into the next binade renormalises
    assert ff.to_single(2 - ulp / 4) == ff.to_single(2.0)
    assert ff.to_single(2 - ulp * 0.75) == ff.to_single(2 - ulp)
    assert ff.to_single(2 - ulp / 2) == ff.to_single(2.0)
    assert ff.to_single(-(2 - ulp / 2)) == ff.to_single(-2.0)


def test_overflow_and_underflow():
    big = ff.SINGLE.max_positive
    assert ff.to_single(1e39) == big
    assert ff.to_single(-1e39) == ff.SINGLE.max_negative
    assert ff.to_single(math.inf) == big
    assert ff.to_single(1e-40) == 0x80000000
    with pytest.raises(ff.FloatRangeError):
        ff.to_single(1e39, strict=True)
    with pytest.raises(ff.FloatRangeError):
        ff.to_single(1e-40, strict=True)
    with pytest.raises(ff.FloatRangeError):
        ff.to_short(300.0, strict=True)
    with pytest.raises(ff.FloatRangeError):
        ff.to_single(math.nan)


def test_vectorised_shapes():
    a = np.array([[1.0, -1.0], [0.5, 0.0]])
    w = ff.to_single(a)
    assert w.shape == (2, 2) and w.dtype == np.uint32
    assert np.array_equal(ff.from_single(w), a)
    assert ff.to_extended(a).dtype == np.uint64
    assert isinstance(ff.to_single(1.0), int) and isinstance(ff.from_single(0), float)


@given(st.floats(min_value=-1e38, max_value=1e38, allow_nan=False))
def test_round_trip_within_half_ulp(x):
    w = ff.to_single(x)
    y = ff.from_single(w)
    if abs(x) < 2.0 ** -127:
        assert abs(y) <= 2.0 ** -126
        return
    ulp = 2.0 ** (math.frexp(abs(x))[1] - 24)
    assert abs(y - x) <= ulp / 2 * (1 + 1e-12) or abs(y - x) <= ulp
    assert ff.to_single(y) == w                       # exact values convert exactly


@given(st.integers(min_value=0, max_value=0xFFFFFFFF))
def test_every_word_converts_back_to_itself(w):
    v = ff.from_single(w)
    if (w >> 24) == 0x80:
        assert v == 0.0
    else:
        assert ff.to_single(v) == w
