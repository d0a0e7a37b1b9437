"""A report's readings table: each choice its source leaves open or decides, the readings run, the default, the
sentences behind them and why the default (issue 36, item 1).

A default follows the text where the text decides; where it does not, the most literal reading. How many claims a
reading agrees with is never a reason: a default chosen by its score would make the headline circular. A reading
whose sentences are ``()`` rests on nothing the source says (the source is silent, and the default is that nothing
is added that it does not state).

Examples
--------
>>> r = Reading("frame period", "1/30 s; 33 ms", "1/30 s", (Quote("§IV-B.1", "30 frames/sec"),),
...             "the text's rate; 33 ms is its rounding")
>>> print("\\n".join(table([r])[6:]))
| frame period | 1/30 s; 33 ms | 1/30 s | §IV-B.1: "30 frames/sec" | the text's rate; 33 ms is its rounding |
<BLANKLINE>
"""

from __future__ import annotations

from typing import NamedTuple

from ..verdict import Quote  # the examples build rows with it

__all__ = ["Reading", "table", "quotes"]



class Reading(NamedTuple):
    """One choice: its name, the readings run (one cell of text), the default, the sentences (:class:`Quote`)
    that decide or allow them, and why the default."""
    choice: str
    run: str
    default: str
    quotes: tuple
    why: str


def table(readings, changed: str = "", source: str = "paper") -> list:
    """The readings section's lines: the table, then ``changed`` (a paragraph on a default this build changed,
    with the headline it had before) when given. ``source``: what the sentences are from (``paper``; a report
    built on standards and textbooks says ``source``)."""
    lines = ["## Readings", "",
             f"Each choice the {source} leaves open or decides, the readings run, the default and why: the text where "
             "it decides, else the most literal reading; never a reading's count of agreements.", "",
             f"| choice | readings run | default | the {source} | why the default |", "|---|---|---|---|---|"]
    for r in readings:
        said = "<br>".join(f"{q.section}: \"{q.text}\"" for q in r.quotes) or "nothing"
        lines.append(f"| {r.choice} | {r.run} | {r.default} | {said} | {r.why} |")
    return lines + [""] + ([changed, ""] if changed else [])


def quotes(readings) -> list:
    """Every sentence the readings cite (for the test that they are the source's words)."""
    return [q for r in readings for q in r.quotes]
