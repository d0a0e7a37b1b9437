"""Printing answers: one JSON object for scripts, Rich tables for people."""

from __future__ import annotations

import json
import math
import sys



def _clean(v):
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None  # JSON has no NaN; null means "not measurable here"
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    return v


def to_json(payload: dict, units: dict | None = None) -> str:
    """``payload`` plus a ``units`` object naming the unit of each field that has one (from its model)."""
    units = units or {}
    out = dict(payload)
    out["units"] = {k: units[k] for k in payload if units.get(k)}
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


def show(payload: dict, inputs: list[str], title: str, as_json: bool, notes=(), units: dict | None = None) -> None:
    """Print ``payload`` as JSON, or as one table of inputs and results with their units."""
    units = units or {}
    if as_json:
        sys.stdout.write(to_json(payload, units) + "\n")
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
        if k.endswith("_ci95") or k == "seeds":
            continue
        kind = "input" if k in inputs else "result"
        if isinstance(v, dict):
            for part, x in v.items():
                table.add_row(kind, f"{k}: {part}", escape(fmt(x)), units.get(k, ""))
            continue
        value = fmt(v)
        ci = payload.get(k + "_ci95")
        if ci is not None:
            value += f"  (95% CI {fmt(ci[0])} .. {fmt(ci[1])})"
        table.add_row(kind, k, escape(value), units.get(k, ""))
    console.print(table)
    for n in notes:
        console.print(n)


def show_rows(payloads: list, columns: list, title: str, as_json: bool, units: dict, json_rows: str = "list") -> None:
    """Several answers: JSON (a list, or ``{"rows": [...]}``), or one table, a row each, with intervals."""
    if as_json:
        rows = [json.loads(to_json(p, units)) for p in payloads]
        sys.stdout.write(json.dumps(rows if json_rows == "list" else {"rows": rows}) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    for col in columns:
        unit = units.get(col, "")
        table.add_column(escape(f"{col} [{unit}]" if unit and unit != "1" else col), justify="right")
    for p in payloads:
        cells = []
        for col in columns:
            text = fmt(p.get(col))
            ci = p.get(col + "_ci95")
            if ci is not None:
                text += f" ({fmt(ci[0])} .. {fmt(ci[1])})"
            cells.append(escape(text))
        table.add_row(*cells)
    _console().print(table)


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
