"""Printing answers: one JSON object for scripts, Rich tables for people."""

from __future__ import annotations

import json
import math
import sys

from .units import unit_of


def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None  # JSON has no NaN; null means "not measurable here"
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    return v


def to_json(payload: dict) -> str:
    """``payload`` plus a ``units`` object naming the unit of each numeric field."""
    out = dict(payload)
    out["units"] = {k: unit_of(k) for k in payload if unit_of(k)}
    return json.dumps(_clean(out))


def fmt(v) -> str:
    if isinstance(v, float):
        if math.isnan(v):
            return "-"
        return f"{v:.6g}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(fmt(x) for x in v) + "]"
    return str(v)


def _console():
    from rich.console import Console

    console = Console()
    # Tables of figures read badly when wrapped; on narrow terminals and pipes let them run wider.
    if console.width < 140:
        console = Console(width=140)
    return console


def show(payload: dict, inputs: list[str], title: str, as_json: bool, notes=()) -> None:
    """Print ``payload`` as JSON, or as an inputs table and a results table."""
    if as_json:
        sys.stdout.write(to_json(payload) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    console = _console()
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("")
    table.add_column("quantity")
    table.add_column("value")
    table.add_column("unit")
    for k, v in payload.items():
        if k.endswith("_ci95"):
            continue
        kind = "input" if k in inputs else "result"
        value = fmt(v)
        ci = payload.get(k + "_ci95")
        if ci is not None:
            value += f"  (95% CI {fmt(ci[0])} .. {fmt(ci[1])})"
        table.add_row(kind, k, escape(value), unit_of(k))
    console.print(table)
    for n in notes:
        console.print(n)


def show_comparisons(rows, as_json: bool, title: str) -> None:
    """Analytic vs simulated rows with their verdicts."""
    if as_json:
        payload = {"rows": [r.to_dict() for r in rows],
                   "verdict": "DISAGREE" if any(r.verdict == "DISAGREE" for r in rows) else "agree"}
        sys.stdout.write(json.dumps(_clean(payload)) + "\n")
        return
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    for col in ("suite", "case", "quantity", "unit", "analytic", "simulated", "95% CI", "tol", "SE off",
                "verdict"):
        table.add_column(col, justify="right" if col in ("analytic", "simulated", "tol", "SE off") else "left",
                         no_wrap=col != "case")
    styles = {"agree": "green", "marginal": "yellow"}
    for r in rows:
        style = styles.get(r.verdict, "red")
        table.add_row(r.suite, r.case, r.quantity, r.unit, f"{r.analytic:.5g}", f"{r.simulated:.5g}",
                      f"{r.ci95[0]:.5g} .. {r.ci95[1]:.5g}", f"{r.tolerance:.2g}", f"{r.standard_errors:.2f}",
                      f"[{style}]{r.verdict}[/{style}]")
    console = _console()
    console.print(table)
    if rows:
        r = rows[0]
        console.print(f"seed {r.seed}, {r.replications} replications per row; 'SE off' is the gap beyond "
                      "the tolerance in standard errors: agree within the 95 % interval, marginal within "
                      "99.9 %, DISAGREE beyond. Slots per row: --json.")
