"""Learning-rate schedules: next_learning_rate as documented in
rapsim.compiler.schedule and docs/network-language.md."""
from __future__ import annotations

import pytest

from rapsim.compiler.ir import Schedule
from rapsim.compiler.schedule import next_learning_rate


def rates(schedule, errors, epochs):
    """Drive the schedule as training does; stop at 0."""
    out, rate = [], 0.0
    for e in range(epochs):
        rate = next_learning_rate(schedule, e, rate, errors[:e])
        out.append(rate)
        if rate == 0:
            break
    return out


def test_constant():
    s = Schedule("constant", {"rate": 0.3})
    assert rates(s, [1.0] * 5, 5) == [0.3] * 5


def test_step():
    s = Schedule("step", {"rate": 1.0, "factor": 0.5, "every": 2})
    assert rates(s, [0.0] * 7, 7) == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.125]


def test_list_ends_with_the_list():
    s = Schedule("list", {"rates": [0.5, 0.25, 0.125]})
    assert rates(s, [0.0] * 10, 10) == [0.5, 0.25, 0.125, 0.0]


def test_list_zero_stops():
    s = Schedule("list", {"rates": [0.5, 0.0, 0.3]})
    assert rates(s, [0.0] * 10, 10) == [0.5, 0.0]


def test_newbob_documented_example():
    s = Schedule("newbob", {"rate": 0.8, "start_below": 0.005, "stop_below": 0.005})
    errors = [1.0, 0.9, 0.899, 0.8, 0.799, 0.5]
    assert rates(s, errors, 10) == [0.8, 0.8, 0.8, 0.4, 0.2, 0.0]


def test_newbob_keeps_rate_while_improving():
    s = Schedule("newbob", {"rate": 0.1, "start_below": 0.01, "stop_below": 0.001})
    errors = [1.0 * 0.9 ** k for k in range(20)]      # 10% better every epoch
    assert rates(s, errors, 20) == [0.1] * 20


def test_newbob_ramp_then_stop_thresholds_and_factor():
    s = Schedule("newbob", {"rate": 1.0, "start_below": 0.1, "stop_below": 0.01, "factor": 0.25})
    # gains: 0.5, 0.05 (< start: ramp), 0.02 (>= stop: go on), 0.005 (< stop: end)
    errors = [1.0, 0.5, 0.475, 0.4655, 0.4631725]
    assert rates(s, errors, 10) == [1.0, 1.0, 1.0, 0.25, 0.0625, 0.0]


def test_newbob_worse_error_starts_ramp():
    s = Schedule("newbob", {"rate": 1.0, "start_below": 0.005, "stop_below": 0.005})
    errors = [1.0, 1.2, 0.6, 0.3]
    assert rates(s, errors, 5) == [1.0, 1.0, 0.5, 0.25, 0.125]


def test_newbob_zero_error_counts_as_no_improvement():
    s = Schedule("newbob", {"rate": 1.0, "start_below": 0.005, "stop_below": 0.005})
    assert rates(s, [0.0, 0.0, 0.0], 10) == [1.0, 1.0, 0.5, 0.0]


def test_newbob_defaults():
    s = Schedule("newbob", {"rate": 1.0})
    assert rates(s, [1.0, 0.999, 0.5, 0.4999], 10) == [1.0, 1.0, 0.5, 0.25, 0.0]


def test_pure_function_of_epoch_and_history():
    s = Schedule("newbob", {"rate": 1.0})
    errors = [1.0, 0.999, 0.5]
    assert next_learning_rate(s, 3, 123.0, errors) == next_learning_rate(s, 3, 0.0, errors) == 0.25


def test_newbob_needs_the_history():
    with pytest.raises(ValueError):
        next_learning_rate(Schedule("newbob", {"rate": 1.0}), 3, 1.0, [1.0])


def test_unknown_kind():
    with pytest.raises(ValueError, match="unknown learning-rate schedule 'cosine'"):
        next_learning_rate(Schedule("cosine", {}), 0, 0.0, [])


def test_schedule_from_description():
    from netsrc import BASE, net
    s = net(BASE + "train { rate step(0.5, 0.1, 3) }").training.rate
    assert [next_learning_rate(s, e, 0, []) for e in (0, 2, 3, 6)] == \
        pytest.approx([0.5, 0.5, 0.05, 0.005])
