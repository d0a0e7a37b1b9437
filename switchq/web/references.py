"""Reference lines the pages draw on a model's curves: a limit or bound the literature gives, with its source.

A reference belongs to an answer (by its name) and to one axis: ``y`` (a
horizontal line at ``value`` when that result is the y axis) or ``x`` (a
vertical line when that parameter is the x axis). ``when`` holds the
parameter values it needs (texts, as a page's fields hold them; a field left
blank is at its default). Each value is computed here from its formula, never
typed in, and each names its source.

The table is small on purpose: a line belongs here only when a page's curve
approaches it, so a reader sees how close a finite switch is to the limit. A page draws an ``x`` line only
inside the curve's range (it would otherwise stretch the axis), a ``y`` line always.

Examples
--------
>>> [(r["axis"], r["field"], round(r["value"], 4)) for r in references("hol")]
[('y', 'saturation_throughput', 0.5858)]
>>> references("size-credit")
[]
"""

from __future__ import annotations

import math

__all__ = ["references", "REFERENCES"]

_KAROL = ("Karol, Hluchyj & Morgan, 'Input versus output queueing on a space-division packet switch', "
          "IEEE Trans. Commun. 35(12):1347-1356, 1987")
_ANDERSON = "Anderson, Owicki, Saxe & Thacker, ACM TOCS 11(4), 1993, §3"

REFERENCES: dict = {
    "hol": ({"axis": "y", "field": "saturation_throughput", "value": 2 - math.sqrt(2), "label": "2 - √2 (N → ∞)",
             "formula": "2 - sqrt(2)", "source": _KAROL + ", the limit of Table I"},),
    "iq": ({"axis": "x", "field": "load", "value": 2 - math.sqrt(2), "label": "saturation 2 - √2",
            "formula": "2 - sqrt(2)", "source": _KAROL + ": the mean wait grows without bound as the load nears it"},),
    "voq": ({"axis": "y", "field": "saturation_throughput", "value": 1 - 1 / math.e,
             "label": "1 - 1/e (PIM, 1 iteration, N → ∞)", "formula": "1 - 1/e", "when": {"matching": "pim",
                                                                                          "iterations": "1"},
             "source": _ANDERSON},),
}


def references(name: str) -> list:
    """The reference lines of answer ``name`` (a copy: a page may not change the table)."""
    return [dict(r, when=dict(r.get("when", {}))) if "when" in r else dict(r) for r in REFERENCES.get(name, ())]
