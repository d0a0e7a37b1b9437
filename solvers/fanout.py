"""Multicast fanout bounds: the load a switch can carry and the copies an output sees (paper 003 §3.1).

The fanout laws themselves (the size of a packet's destination set) are part
of the traffic's description, :mod:`switchq.models.fanout`. With M active
inputs at packet load p an output carries ``M p E|D| / N`` copies per slot
(:func:`output_utilization`) and no switch carries more than
``min(1, N / (M F))`` (:func:`admissible_load`); :mod:`.multicast` solves
the switches.

Examples
--------
>>> admissible_load(8, 8, 4)
0.25
"""

from __future__ import annotations

from switchq.models import _check
from switchq.models.fanout import MAX_OUTPUTS

__all__ = ["admissible_load", "output_utilization"]


def admissible_load(n_outputs, active_inputs, fanout) -> float:
    """Largest load any switch can carry: ``min(1, N / (M F))``.

    Each output sends at most one copy per slot and receives ``M load F / N``
    on average; each input accepts at most one packet per slot.

    Parameters
    ----------
    n_outputs : int
        N in [1, 1024].
    active_inputs : int
        M in [1, N].
    fanout : float
        Mean fanout F in [1, N].

    Examples
    --------
    >>> admissible_load(8, 2, 4), admissible_load(8, 8, 4), admissible_load(16, 8, 3)
    (1.0, 0.25, 0.6666666666666666)
    """
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    m = _check.integer("active_inputs", active_inputs, 1, n)
    f = _check.real("fanout", fanout, 1.0, float(n))
    return min(1.0, n / (m * f))


def output_utilization(n_outputs, active_inputs, fanout, load) -> float:
    """Copies per output per slot, ``M * load * F / N``, at packet ``load`` per input.

    Examples
    --------
    >>> output_utilization(8, 2, 4, 0.5)
    0.5
    """
    n = _check.integer("n_outputs", n_outputs, 1, MAX_OUTPUTS)
    m = _check.integer("active_inputs", active_inputs, 1, n)
    f = _check.real("fanout", fanout, 1.0, float(n))
    x = _check.real("load", load, 0.0, 1.0)
    return m * x * f / n
