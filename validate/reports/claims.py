"""Verdicts on a paper's claims: every report sentence that compares is made from these.

A claim is a target (a number the paper prints, or the value its words
imply: "no observable difference" is a ratio of 1) and a tolerance (the
paper's stated precision, or how finely its figure can be read). A simulated
estimate agrees when its 95 % interval reaches the band target ± tolerance;
an exact (analytic) value when it lies in the band. A report states the
tolerance beside each verdict and counts them with :func:`tally`.

Examples
--------
>>> from switchq.validate.result import Estimate
>>> within(Estimate(3.36, 3.30, 3.42), 4, 0.5), within(4.9, 5, 0.5)
('DISAGREE', 'agree')
>>> tally(["agree", "DISAGREE", "agree"])
'2 of 3'
"""

from __future__ import annotations

import math

__all__ = ["AGREE", "DISAGREE", "printed", "shown", "within", "tally", "agreeing", "listed"]

AGREE, DISAGREE = "agree", "DISAGREE"


def shown(x, digits: int = 3) -> float:
    """A figure (a number or an estimate's value) as a report's table prints it, to ``digits`` places. Gaps,
    spreads, changes and ratios a report quotes are taken between such values, so a reader recomputing one
    from the table gets the number quoted (0.584 - 0.5815 is 0.0025, whatever the unrounded values give).

    Examples
    --------
    >>> from switchq.validate.result import Estimate
    >>> round(shown(Estimate(0.58353, 0.57, 0.59), 4) - shown(0.58151, 4), 4)
    0.002
    """
    value = x.value if hasattr(x, "value") else x
    return round(value, digits) if math.isfinite(value) else value


def printed(text: str) -> tuple:
    """A number as the paper prints it and the tolerance its digits imply, half a unit in the last place:
    a value agrees with it when it rounds to it.

    Examples
    --------
    >>> printed("0.22"), printed("0.8"), printed("1.00")
    ((0.22, 0.005), (0.8, 0.05), (1.0, 0.005))
    """
    decimals = len(text.split(".")[1]) if "." in text else 0
    return float(text), 0.5 * 10.0 ** -decimals


def within(value, target: float, tolerance: float) -> str:
    """``agree`` if ``value`` (an Estimate, or a number) reaches ``target`` ± ``tolerance``."""
    low, high = (value.low, value.high) if hasattr(value, "low") else (value, value)
    if math.isnan(low) or math.isnan(high):
        low = high = float(value)
    edge = 1e-9 * max(1.0, abs(target))      # a value exactly on the edge agrees, whatever the rounding of 0.8 - 0.75
    return AGREE if low <= target + tolerance + edge and high >= target - tolerance - edge else DISAGREE


def agreeing(verdicts) -> int:
    return sum(v == AGREE for v in verdicts)


def tally(verdicts) -> str:
    """``"k of n"``: how many of the verdicts agree."""
    verdicts = list(verdicts)
    return f"{agreeing(verdicts)} of {len(verdicts)}"


def listed(items, empty: str = "none") -> str:
    """Items joined for a sentence: ``a, b and c``."""
    items = [str(i) for i in items]
    if not items:
        return empty
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
