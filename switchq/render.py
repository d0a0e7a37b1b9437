"""Printing answers: one JSON object for scripts, Rich tables for people.

Tables are laid out for the width they are printed at: the terminal's, or
``$COLUMNS``, or 80 for a file or a pipe. A table whose figures would have to
wrap to fit is printed as one block per row instead (its label on a line, its
figures folded beneath), so nothing is ever split one word per line.
"""

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

    return Console()


def _fits(console, table, folded: int = 0) -> bool:
    """Whether ``table`` fits the console with its figures on one line; ``folded`` characters of it (a
    label column) may fold into a second line."""
    natural = console.measure(table, options=console.options.update(max_width=1 << 16)).maximum
    return natural - folded // 2 <= console.width


def _blocks(console, title: str, rows) -> None:
    """Rows that do not fit a table: a label line each, the figures indented and folded beneath.

    ``rows``: (label, figures, style of the figures' last word or "").
    """
    import textwrap

    from rich.text import Text

    console.print(Text(title, style="bold"))
    for label, figures, style in rows:
        console.print(Text(label))
        # An interval and its label never split: no-break spaces inside them while wrapping.
        whole = figures.replace(" .. ", "\xa0..\xa0").replace("95% CI ", "95%\xa0CI\xa0")
        lines = textwrap.wrap(whole, max(20, console.width - 1), initial_indent="    ", subsequent_indent="    ")
        for k, line in enumerate(lines):
            line = line.replace("\xa0", " ")
            text = Text(line)
            if style and k == len(lines) - 1:
                text.stylize(style, len(line) - len(figures.rsplit(" ", 1)[-1]))
            console.print(text)


def _interval(payload: dict, name: str, form: str) -> str:
    """The interval printed after figure ``name``: none for a figure without one, and none for a run judged
    unstable, whose figures are not steady-state ones (a latency grows with the run length): it says so
    instead of a mean ± an interval."""
    ci = payload.get(name + "_ci95")
    if ci is None or not isinstance(ci, (list, tuple)):
        return ""
    if payload.get("unstable"):
        return " (unstable: no steady state)"
    if ci and isinstance(ci[0], (list, tuple)):
        return " [" + ", ".join(form.format(fmt(a), fmt(b)).strip() for a, b in ci) + "]"
    return form.format(fmt(ci[0]), fmt(ci[1]))


def figure_rows(payload: dict, inputs: list, units: dict) -> list:
    """``payload`` as one answer's table lists it: ``(kind, quantity, value with its interval, unit)`` per figure
    (a per-part figure a row per part); intervals, samples and seeds are left to ``--json``."""
    rows = []
    for k, v in payload.items():
        if k.endswith(("_ci95", "_samples", "_ci_method")) or k == "seeds":   # in --json; notes say what a method means
            continue
        kind = "input" if k in inputs else "result"
        if isinstance(v, dict):
            rows += [(kind, f"{k}: {part}", fmt(x), units.get(k, "")) for part, x in v.items()]
            continue
        value = ("not judged (stability_not_judged says why)" if k == "unstable" and v is None
                 else fmt(v) + _interval(payload, k, "  (95% CI {} .. {})"))
        rows.append((kind, k, value, units.get(k, "")))
    return rows


def show(payload: dict, inputs: list[str], title: str, as_json: bool, notes=(), units: dict | None = None,
         console=None) -> None:
    """Print ``payload`` as JSON, or as one table of inputs and results with their units (on ``console``,
    default stdout's)."""
    units = units or {}
    if as_json:
        sys.stdout.write(to_json(payload, units) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    console = console or _console()
    table = Table(title=title, show_header=True, header_style="bold")
    # Names and units stay whole; a value with its interval folds after the value if it must.
    table.add_column("", no_wrap=True)
    table.add_column("quantity", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("unit", no_wrap=True)
    for kind, quantity, value, unit in figure_rows(payload, inputs, units):
        table.add_row(kind, quantity, escape(value), unit)
    console.print(table)
    for n in notes:
        console.print(n)


def row_cells(payloads: list, columns: list, units: dict) -> tuple:
    """Several answers as a table shows them: ``(heads, rows)``, a head per column with its unit and a row of
    cell texts (a figure with its interval) per answer."""
    heads = []
    for col in columns:
        unit = units.get(col, "")
        heads.append(f"{col} [{unit}]" if unit and unit != "1" else col)
    rows = [[fmt(p.get(col)) + _interval(p, col, " ({} .. {})") for col in columns] for p in payloads]
    return heads, rows


def rows_json(payloads: list, units: dict, json_rows: str = "list"):
    """Several answers as ``--json`` gives them: a list, or ``{"rows": [...]}``."""
    rows = [json.loads(to_json(p, units)) for p in payloads]
    return rows if json_rows == "list" else {"rows": rows}


def show_rows(payloads: list, columns: list, title: str, as_json: bool, units: dict, json_rows: str = "list",
              console=None) -> None:
    """Several answers: JSON (a list, or ``{"rows": [...]}``), or one table, a row each, with intervals."""
    if as_json:
        sys.stdout.write(json.dumps(rows_json(payloads, units, json_rows)) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    heads, rows = row_cells(payloads, columns, units)
    for head in heads:
        table.add_column(escape(head), justify="right", no_wrap=True)
    for cells in rows:
        table.add_row(*(escape(c) for c in cells))
    table_or_blocks(table, title, heads, rows, console)


def table_or_blocks(table, title: str, heads: list, rows: list, console=None) -> None:
    """Print ``table`` if its figures fit the width on one line, else each row (plain ``heads`` and
    ``rows`` of cell texts) as a numbered block of ``head = cell`` pairs."""
    console = console or _console()
    if _fits(console, table):
        console.print(table)
        return
    _blocks(console, title, [(f"{i + 1}.", "; ".join(f"{h} = {c}" for h, c in zip(heads, cells) if c), "")
                             for i, cells in enumerate(rows)])


def comparisons_json(rows) -> dict:
    """Validation rows as ``switchq validate --json`` gives them: the rows, their count by class and the verdict
    over all of them (agree only if every row agrees; a defect if any row is neither agree nor inconclusive)."""
    from switchq.validate.verdict import AGREE, by_class

    payload = {"rows": [r.to_dict() for r in rows], "headline": by_class([r.verdict for r in rows]),
               "verdict": AGREE if all(r.verdict == AGREE for r in rows) else
               "defect" if any(r.verdict != "inconclusive" and r.verdict != AGREE for r in rows)
               else "inconclusive"}
    return _clean(payload)


def comparison_cells(r) -> tuple:
    """One validation row's figures as its table shows them: analytic, simulated, interval, band, replications."""
    band = f"± {r.tolerance:.3g}" if r.tolerance > 0 else f"point, precision {r.precision:.3g}"
    reps = f"{r.replications}" + (f" (from {r.base_replications})" if r.replications != r.base_replications
                                  else "")
    return (f"{r.analytic:.5g}", f"{r.simulated:.5g}", f"{r.interval[0]:.5g} .. {r.interval[1]:.5g}", band, reps)


def show_comparisons(rows, as_json: bool, title: str, console=None) -> None:
    """Analytic vs simulated rows with the verdict engine's class and why (:mod:`switchq.validate.compare`)."""
    from switchq.validate.verdict import AGREE, by_class

    if as_json:
        sys.stdout.write(json.dumps(comparisons_json(rows)) + "\n")
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(title=title, header_style="bold")
    for col in ("suite", "case", "quantity", "unit", "analytic", "simulated", "interval", "band", "reps",
                "verdict"):
        table.add_column(col, justify="right" if col in ("analytic", "simulated", "reps") else "left",
                         no_wrap=col != "case")
    styles = {"agree": "green", "inconclusive": "yellow"}
    blocks = []
    for r in rows:
        style = styles.get(r.verdict, "red")
        *cells, band, reps = comparison_cells(r)
        cells = (*cells, band, reps, f"[{style}]{r.verdict}[/{style}]")
        table.add_row(r.suite, escape(r.case), r.quantity, r.unit, *cells)
        blocks.append((f"{r.suite}: {r.case}",
                       f"{r.quantity} [{r.unit}]: analytic {cells[0]}, simulated {cells[1]} (interval {cells[2]}), "
                       f"{band}, {reps} replications: {r.verdict}", style))
    console = console or _console()
    if _fits(console, table, folded=max((len(r.case) for r in rows), default=0)):
        console.print(table)
    else:
        _blocks(console, title, blocks)
    for r in rows:
        if r.verdict != AGREE:
            console.print(f"[{styles.get(r.verdict, 'red')}]{escape(r.suite)}: {escape(r.case)}: {r.verdict}: "
                          f"{escape(r.why)}[/]")
    if rows:
        r = rows[0]
        console.print(f"seed {r.seed}; {by_class([x.verdict for x in rows])}. Each interval is at "
                      f"{100 * r.level:.4g} %, the level that keeps a correct simulator's chance of any defect among "
                      "all declared rows at 5 %; a point target agrees when its interval holds the analytic value "
                      "with a half-width within the precision, a band when the interval lies inside it. Slots per "
                      "row: --json.")