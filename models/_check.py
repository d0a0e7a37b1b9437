"""Boundary checks shared by every model description: one place, one message format.

Examples
--------
>>> integer("n_ports", 8.0, 2, 64)                  # a whole float is taken as the integer
8
>>> real("load", 1.5, 0.0, 1.0)
Traceback (most recent call last):
...
switchq.errors.InputError: load: got 1.5; allowed: a number in [0.0, 1.0]
"""

from __future__ import annotations

import math
import numbers

from switchq.errors import InputError  # noqa: F401  (re-exported for models)


def assign(obj, **values) -> None:
    """Set checked values on a frozen dataclass being constructed (``__post_init__``)."""
    for name, value in values.items():
        object.__setattr__(obj, name, value)


def optional(check, name: str, value, *args):
    """``check(name, value, *args)``, or None when ``value`` is None (an optional parameter left unset)."""
    return None if value is None else check(name, value, *args)


def integer(name: str, value, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int if it is an integer in [low, high], else raise InputError."""
    allowed = _range_text("an integer", low, high)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise InputError(name, value, allowed)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputError(name, value, allowed)
    return value


def real(name: str, value, low: float | None = None, high: float | None = None,
         low_open: bool = False, high_open: bool = False) -> float:
    """Return ``value`` as a finite float in the given interval, else raise InputError."""
    lo = "(" if low_open else "["
    hi = ")" if high_open else "]"
    if low is not None and high is not None:
        allowed = f"a number in {lo}{low}, {high}{hi}"
    else:
        allowed = _range_text("a number", low, high, low_open, high_open)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputError(name, value, allowed)
    value = float(value)
    if not math.isfinite(value):
        raise InputError(name, value, allowed)
    if low is not None and (value < low or (low_open and value == low)):
        raise InputError(name, value, allowed)
    if high is not None and (value > high or (high_open and value == high)):
        raise InputError(name, value, allowed)
    return value


def only_with(name: str, value, default, holds: bool, where: str) -> None:
    """Refuse a field set where it has no effect (``holds`` False): only its default, what the model does
    there anyway, is taken. ``where`` says when it applies (``pattern is hotspot``).

    >>> only_with("hotspot_fraction", 0.5, 0.0, False, "pattern is hotspot")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: hotspot_fraction: got 0.5; allowed: 0 unless pattern is hotspot
    """
    if not holds and value != default:
        shown = f"{default:g}" if isinstance(default, float) else default
        raise InputError(name, value, f"{shown} unless {where}")


def choice(name: str, value, choices) -> str:
    """Return ``value`` if it is one of ``choices``, else raise InputError listing them."""
    if value not in choices:
        raise InputError(name, value, "one of " + ", ".join(str(c) for c in choices))
    return value


def _range_text(kind: str, low, high, low_open=False, high_open=False) -> str:
    if low is not None and high is not None:
        return f"{kind} in [{low}, {high}]"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high}"
    return kind
