"""Learning-rate schedules: CLONES' ``next_learning_rate``.

Training calls :func:`next_learning_rate` before every epoch (that is,
after the previous one) and stops when it returns 0, or after
``Training.epochs`` epochs, whichever comes first::

    rate = next_learning_rate(schedule, epoch, rate_so_far, error_history)

``epoch``
    the epoch about to run, counting from 0;
``rate_so_far``
    the rate used in epoch ``epoch - 1`` (0.0 before the first epoch);
``error_history``
    ``error_history[k]`` is the error measured after epoch ``k``, for
    ``k < epoch`` (the trainer's choice of error: the loss on the test set
    when there is one, else on the training set -- see
    :mod:`rapsim.compiler.reference`).

The built-in kinds (:class:`rapsim.compiler.ir.Schedule`) are pure
functions of ``epoch`` and ``error_history``; ``rate_so_far`` is part of
the CLONES interface and is not needed by them.

``constant(rate)``
    ``rate`` every epoch (training ends after ``epochs``).
``step(rate, factor, every)``
    ``rate * factor ** (epoch // every)``.
``list(r0, r1, ...)``
    ``r[epoch]``; 0 past the end of the list (and a 0 in it stops).
``newbob(rate, start_below=0.005, stop_below=0.005, factor=0.5)``
    ICSI's schedule.  The improvement of epoch ``k >= 1`` is relative:
    ``(e[k-1] - e[k]) / e[k-1]`` (0 when ``e[k-1]`` is 0).  The rate stays
    ``rate`` until an epoch's improvement is below ``start_below``; from
    then on ("ramping") it is multiplied by ``factor`` before every epoch,
    and training stops (rate 0) after the first ramping epoch whose
    improvement is below ``stop_below``.  So epochs 0 and 1 always run at
    ``rate``; with errors 1.0, 0.9, 0.899, 0.8, 0.799 and both thresholds
    0.005 the rates are rate, rate, rate, rate/2, rate/4 and then 0.
"""
from __future__ import annotations

from .ir import Schedule
from .parser import REQUIRED

#: schedule kind -> its arguments (name -> default or REQUIRED); ``list``
#: takes its rates as positional arguments instead.
SCHEDULES = {
    "constant": {"rate": REQUIRED},
    "step": {"rate": REQUIRED, "factor": REQUIRED, "every": REQUIRED},
    "list": None,
    "newbob": {"rate": REQUIRED, "start_below": 0.005, "stop_below": 0.005, "factor": 0.5},
}


def next_learning_rate(schedule: Schedule, epoch: int, rate_so_far: float,
                       error_history) -> float:
    """The learning rate of epoch ``epoch`` (0 ends training)."""
    p = schedule.params
    kind = schedule.kind
    if kind == "constant":
        return float(p["rate"])
    if kind == "step":
        return float(p["rate"]) * float(p["factor"]) ** (epoch // int(p["every"]))
    if kind == "list":
        rates = p["rates"]
        return float(rates[epoch]) if epoch < len(rates) else 0.0
    if kind == "newbob":
        return _newbob(p, epoch, list(error_history))
    raise ValueError(f"unknown learning-rate schedule {kind!r}")


def _newbob(p: dict, epoch: int, errors: list) -> float:
    if len(errors) < epoch:
        raise ValueError(f"newbob needs the errors of epochs 0..{epoch - 1}, got {len(errors)}")
    rate = float(p["rate"])
    factor = float(p.get("factor", 0.5))
    start = float(p.get("start_below", 0.005))
    stop = float(p.get("stop_below", 0.005))
    ramping = False
    for k in range(1, epoch):
        prev, cur = errors[k - 1], errors[k]
        gain = (prev - cur) / prev if prev != 0 else 0.0
        if ramping:
            if gain < stop:
                return 0.0
            rate *= factor
        elif gain < start:
            ramping = True
            rate *= factor
    return rate
