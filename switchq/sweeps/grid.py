"""Grid syntax of ``--vary``: values of a parameter from text, checked and canonical.

``VALUES`` is pieces joined by commas, e.g. ``load=0.1:0.9:0.1,0.95``:

=================  ===============================================================
``V1,V2,...``      a list; choices (``pim,islip``), ``none`` for an optional
                   parameter, ``true``/``false`` for a flag, quantities with
                   units (``cable=10m,20m``)
``A:B``            integers A..B (step 1), integer parameters only
``A:B:STEP``       A, A+STEP, ... up to B (B included when it is on the grid);
                   quantities take units on all three (``cable=10m:100m:10m``)
``A:B:*F``         geometric: A, A*F, A*F^2, ... up to B (``ports=4:64:*2``)
``A..B:N``         N values log-spaced from A to B, both included (``1e-3..1:4``)
=================  ===============================================================

Integer parameters round geometric and log values to the nearest integer
(duplicates dropped). Values are canonical (``16.0`` for an integer is 16,
``1`` for a number is 1.0, ``64B`` for a cell is 512 bits), so the same
point is always the same store key.

Examples
--------
>>> from switchq.registry import get
>>> values(get("oq").param("load"), "0.1:0.3:0.1,0.5", "--vary load")
[0.1, 0.2, 0.3, 0.5]
>>> values(get("hol").param("ports"), "4:64:*2", "--vary ports")
[4, 8, 16, 32, 64]
>>> values(get("oq").param("load"), "1e-3..1e-1:3", "--vary load")
[0.001, 0.01, 0.1]
>>> values(get("oq").param("load"), "0.5:0.1:0.1", "--vary load")
Traceback (most recent call last):
...
switchq.errors.InputError: --vary load: got '0.5:0.1:0.1'; allowed: a non-empty range: START:STOP:STEP with STEP > 0 going from START up to STOP (or STEP < 0 going down)
"""

from __future__ import annotations

import json
import math

from switchq.errors import InputError
from switchq.params import Param

__all__ = ["values", "MAX_POINTS", "VARY_SYNTAX", "fmt"]

MAX_POINTS = 1_000_000      # a grid beyond this is a typo, not a sweep


VARY_SYNTAX = """\
--vary NAME=VALUES, repeatable; VALUES is pieces joined by commas:
  V1,V2,...   list (choices, none, true/false, quantities with units: cable=10m,20m)
  A:B         integers A..B, step 1
  A:B:STEP    linear, B included when on the grid (load=0.1:1.0:0.05)
  A:B:*F      geometric, factor F (ports=4:64:*2)
  A..B:N      N log-spaced values, A and B included (load=1e-3..1:10)"""


def _sig(x: float) -> float:
    # Twelve significant digits: 0.1 + 3 * 0.05 is 0.25, not 0.25000000000000006.
    return float(f"{x:.12g}")


def _range_number(param: Param, text: str, where: str, whole: str):
    """One end or step of a range: a number, or a quantity with its unit."""
    if param.kind in ("int", "float"):
        try:
            v = float(text)
        except ValueError:
            raise InputError(where, whole, f"a range of numbers ({text!r} is not one)") from None
        if not math.isfinite(v):
            raise InputError(where, whole, f"a range of finite numbers ({text!r} is not one)")
        return v
    from switchq.units import parse_quantity

    return parse_quantity(text, param.kind, where)


_EMPTY = "a non-empty range: START:STOP:STEP with STEP > 0 going from START up to STOP (or STEP < 0 going down)"


def _expand(param: Param, piece: str, where: str) -> list:
    if not param.numeric:
        raise InputError(where, piece, f"a list for {param.name} ({param.allowed()}); ranges are for numbers")
    if ".." in piece:
        ends, _, count = piece.partition(":")
        a_text, _, b_text = ends.partition("..")
        try:
            n = int(count)
        except ValueError:
            raise InputError(where, piece, "A..B:N, N log-spaced values (N a whole number >= 1)") from None
        a, b = _range_number(param, a_text, where, piece), _range_number(param, b_text, where, piece)
        if n < 1 or a <= 0 or b <= 0:
            raise InputError(where, piece, "A..B:N with A, B > 0 and N >= 1")
        if n > MAX_POINTS:
            raise InputError(where, piece, f"at most {MAX_POINTS} values")
        if n == 1:
            return [a]
        ratio = math.log(b / a)
        raw = [a * math.exp(ratio * i / (n - 1)) for i in range(n)]
        raw[-1] = b
    else:
        parts = piece.split(":")
        if len(parts) == 2:
            if param.kind != "int":
                raise InputError(where, piece, f"START:STOP:STEP (a step is needed for {param.name}; A:B "
                                               "counts in ones for integer parameters only)")
            parts.append("1")
        if len(parts) != 3:
            raise InputError(where, piece, "START:STOP, START:STOP:STEP, START:STOP:*FACTOR or START..STOP:N")
        a, b = _range_number(param, parts[0], where, piece), _range_number(param, parts[1], where, piece)
        if parts[2].startswith("*"):
            try:
                f = float(parts[2][1:])
            except ValueError:
                raise InputError(where, piece, "START:STOP:*FACTOR with FACTOR a number") from None
            if not (math.isfinite(f) and f > 0 and f != 1 and a > 0 and b > 0):
                raise InputError(where, piece, "START:STOP:*FACTOR with START, STOP > 0 and FACTOR > 0, != 1")
            count = math.log(b / a) / math.log(f)
            if count < -1e-9:
                raise InputError(where, piece, "a non-empty range: FACTOR > 1 going up from START to STOP "
                                               "(FACTOR < 1 going down)")
            n = math.floor(count + 1e-9) + 1
            if n > MAX_POINTS:
                raise InputError(where, piece, f"at most {MAX_POINTS} values")
            raw = [a * f ** i for i in range(n)]
        else:
            step = _range_number(param, parts[2], where, piece)
            if step == 0:
                raise InputError(where, piece, "START:STOP:STEP with STEP != 0")
            count = (b - a) / step
            if count < -1e-9:
                raise InputError(where, piece, _EMPTY)
            n = math.floor(count + 1e-9) + 1
            if n > MAX_POINTS:
                raise InputError(where, piece, f"at most {MAX_POINTS} values")
            raw = [a + i * step for i in range(n)]
    if param.kind == "int":
        return [int(round(x)) for x in raw]
    return [_sig(x) for x in raw]


def values(param: Param, spec, where: str) -> list:
    """Canonical, checked, de-duplicated values of ``param`` from a grid spec (text or a Python sequence)."""
    if isinstance(spec, str):
        pieces = [s.strip() for s in spec.split(",")]
        if not spec.strip() or any(not s for s in pieces):
            raise InputError(where, spec, "one or more values: V1,V2,..., A:B:STEP, A:B:*F or A..B:N")
        raw = []
        for piece in pieces:
            is_range = param.numeric and (":" in piece or ".." in piece)
            if is_range:
                raw.extend((v, piece) for v in _expand(param, piece, where))
            else:
                raw.append((piece, piece))
    else:
        try:
            raw = [(v, v) for v in spec]
        except TypeError:
            raw = [(spec, spec)]
        if not raw:
            raise InputError(where, list(spec), "one or more values")
    out, seen = [], set()
    for v, text in raw:
        try:
            value = param.parse(v, where)
        except InputError as e:
            raise InputError(where, e.value if e.value is not None else text, e.allowed) from None
        marker = json.dumps(value)
        if marker not in seen:
            seen.add(marker)
            out.append(value)
    return out


def fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if v is None:
        return "none"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)
