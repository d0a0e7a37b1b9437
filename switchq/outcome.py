"""What the Python verbs return: an answer's figures with their units, shown as the CLI shows them.

:func:`switchq.solve` and :func:`switchq.size` return a :class:`Solution`, :func:`switchq.simulate` (of a
declared model) a :class:`Simulation`, :func:`switchq.validate` a :class:`Validation` and
:func:`switchq.report` a :class:`Written`. Each holds what the CLI verb computed from the same inputs, and:

- ``to_dict()`` is the CLI's ``--json``, object for object (a simulation's ``wall_seconds`` aside, which
  is the run's own); ``to_json()`` its text;
- its figures read as attributes (``r.headroom_bytes``) or items (``r["headroom_bytes"]``), a simulated
  metric as an :class:`~switchq.validate.result.Estimate` whose interval is made at any level on demand
  (``r.throughput.confidence_interval(0.99)``); ``r.units`` names each figure's unit;
- printed, it is the CLI's table (plain text, at ``$COLUMNS`` or 80 columns); in a notebook, an HTML table
  (``_repr_html_``).

Several rows side by side (a parameter given several values: ``model="all"``) are ``r.rows``, ``r[i]`` (one
row's own answer) and ``r.to_frame()``.

Examples
--------
>>> import switchq
>>> r = switchq.solve("oq", ports=16, load=0.8)
>>> round(r.mean_wait, 4), r.units["mean_wait"]
(1.875, 'slots')
>>> r.to_dict()["n_ports"]
16
>>> [" ".join(line.split()) for line in str(r).splitlines() if "mean_wait" in line]     # the CLI's table
['│ result │ mean_wait │ 1.875 │ slots │']
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path

from . import render

__all__ = ["Solution", "Simulation", "Validation", "Written"]


def _console():
    """A console that prints into a string, as the CLI prints into a file or a pipe (never as a notebook
    display: the notebook gets :meth:`_repr_html_`)."""
    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=False, force_jupyter=False, color_system=None)


def _text(show) -> str:
    console = _console()
    show(console)
    return console.file.getvalue().rstrip("\n")


def _plain(markup: str) -> str:
    from rich.text import Text

    return Text.from_markup(markup).plain


def _table_html(title: str, heads: list, rows: list, notes=()) -> str:
    cell = "<td style='text-align:left'>{}</td>".format
    out = ["<table>"]
    if title:
        out.append(f"<caption><b>{html.escape(title)}</b></caption>")
    out.append("<thead><tr>" + "".join(f"<th style='text-align:left'>{html.escape(h)}</th>" for h in heads)
               + "</tr></thead><tbody>")
    out += ["<tr>" + "".join(cell(html.escape(str(c))) for c in row) + "</tr>" for row in rows]
    out.append("</tbody></table>")
    out += [f"<p><i>{html.escape(n)}</i></p>" for n in notes]
    return "\n".join(out)


class _Shown:
    """Printed as the CLI prints it; :meth:`_show` draws it on a Rich console."""

    def _show(self, console) -> None:
        raise NotImplementedError

    def __repr__(self) -> str:
        return _text(self._show)

    __str__ = __repr__

    def to_json(self) -> str:
        """The CLI's ``--json`` text."""
        return json.dumps(self.to_dict())


class Solution(_Shown):
    """An analytic answer (``switchq solve|size NAME``): its inputs and results, a row per answer side by side.

    Attributes
    ----------
    command : str
        The command that gives the same answer, ``size pfc`` (no figure of any model has this name, nor the
        other attributes', so a figure always reads as itself: ``r.model`` is the ``model`` input of ``size pfc``).
    title : str
    rows : list of dict
        Each row's inputs and results, as ``--json`` gives them but without ``units``.
    units : dict
        The unit of each figure that has one.
    inputs : list of str
        The names of the first row's inputs.
    """

    def __init__(self, answer, declaration, payloads: list, units: dict):
        self._answer = answer
        self._set(f"{answer.verb} {answer.command}", answer.title, declaration, payloads, units)

    def _set(self, command: str, title: str, declaration, payloads: list, units: dict) -> None:
        self.command, self.title, self._declaration, self.units = command, title, declaration, dict(units)
        self._rows = list(payloads)             # (payload, input names) per row, as solve_answer gives them
        self.inputs = list(payloads[0][1])

    @property
    def _payloads(self) -> list:
        return [p for p, _ in self._rows]

    @property
    def rows(self) -> list:
        return [{k: v for k, v in json.loads(render.to_json(p)).items() if k != "units"} for p in self._payloads]

    def to_dict(self):
        """The CLI's ``--json``: one object, or for several rows what the CLI prints for them (a list, or
        ``{"rows": [...]}``)."""
        if len(self._rows) == 1:
            return json.loads(render.to_json(self._payloads[0], self.units))
        return render.rows_json(self._payloads, self.units, self._declaration.json_rows)    # made afresh

    def to_frame(self):
        """A pandas DataFrame, a row per answer (units in ``df.attrs["units"]``)."""
        import pandas as pd

        df = pd.DataFrame(self._payloads)
        df.attrs["units"] = dict(self.units)
        return df

    def __len__(self) -> int:
        return len(self._rows)

    def _row(self, i: int) -> "Solution":
        return Solution(self._answer, self._declaration, [self._rows[i]], self.units)

    def _figure(self, name: str):
        if len(self._rows) > 1:
            raise AttributeError(f"{name!r}: this answer has {len(self._rows)} rows side by side; read one "
                                 "with r[i], or all with r.rows or r.to_frame()")
        payload = self._payloads[0]
        if name not in payload:
            raise AttributeError(f"{self.command} has no figure {name!r}: " + ", ".join(payload))
        return payload[name]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self._figure(name)

    def __getitem__(self, key):
        """``r[i]``: row ``i``'s own answer; ``r["name"]``: a figure (as an attribute reads it)."""
        return self._row(key) if isinstance(key, int) else self._figure(key)

    def __dir__(self):
        return sorted({*super().__dir__(), *(self._payloads[0] if len(self._rows) == 1 else ())})

    def _show(self, console) -> None:
        from .cli_verbs import shown_answer

        shown_answer(self._answer, self._declaration, self._rows, self.units, False, console)

    def _columns(self) -> list:
        from .cli_verbs import answer_columns

        return answer_columns(self._answer)

    def _repr_html_(self) -> str:
        if len(self._rows) == 1:
            rows = render.figure_rows(self._payloads[0], self.inputs, self.units)
            return _table_html(self.title, ["", "quantity", "value", "unit"], rows)
        heads, cells = render.row_cells(self._payloads, self._columns(), self.units)
        return _table_html(self.title, heads, cells)


class Simulation(Solution):
    """A simulated answer (``switchq simulate NAME``): figures with 95 % intervals and the seeds that
    reproduce them, a row per answer side by side.

    A metric reads as its :class:`~switchq.validate.result.Estimate` (``r.throughput.value``, ``.ci95``,
    ``.confidence_interval(0.99)``); a counter or label as its value; an input as its value. ``r.result``
    is the simulator's own :class:`~switchq.validate.result.Result` (of a single row; ``r.results`` of all).
    """

    def __init__(self, declaration, results: list):
        self.results = list(results)
        self._set(f"simulate {declaration.name}", f"{declaration.title} (simulated)", declaration,
                  [(r.to_dict(), r.inputs()) for r in self.results], self.results[0].units)

    @property
    def result(self):
        if len(self.results) > 1:
            raise AttributeError(f"this simulation has {len(self.results)} rows: r.results holds them")
        return self.results[0]

    def _row(self, i: int) -> "Simulation":
        return Simulation(self._declaration, [self.results[i]])

    def _figure(self, name: str):
        if len(self.results) == 1:
            r = self.results[0]
            for table in (r.metrics, r.counters, r.labels):
                if name in table:
                    return table[name]
        return super()._figure(name)

    def _show(self, console) -> None:
        from .cli_verbs import shown_simulation

        shown_simulation(self.results, self._declaration, False, console)

    def _columns(self) -> list:
        from .cli_verbs import simulation_columns

        return simulation_columns(self._declaration)

    def _repr_html_(self) -> str:
        if len(self.results) > 1:
            return super()._repr_html_()
        from .cli_verbs import shown_payload, simulation_notes

        r = self.results[0]
        rows = render.figure_rows(shown_payload(r), r.inputs(), self.units)
        return _table_html(self.title, ["", "quantity", "value", "unit"], rows,
                           [_plain(n) for n in simulation_notes(r)])


class Validation(_Shown):
    """``switchq validate NAME``: each declared case run both ways with the verdict engine's class.

    Attributes
    ----------
    suite : str
    comparisons : list
        The rows, each a :class:`~switchq.validate.compare.Comparison` (``verdict``, ``why``, ``interval``...).
    verdict : str
        ``agree`` if every row agrees, ``defect`` if any row is neither agree nor inconclusive, else
        ``inconclusive``.
    headline : str
        The rows counted by class.
    """

    def __init__(self, suite: str, comparisons: list):
        self.suite, self.comparisons = suite, list(comparisons)
        self._json = render.comparisons_json(self.comparisons)
        self.verdict, self.headline = self._json["verdict"], self._json["headline"]

    @property
    def rows(self) -> list:
        return [dict(r) for r in self._json["rows"]]

    def to_dict(self) -> dict:
        """The CLI's ``--json``: ``rows``, ``headline`` and ``verdict``."""
        return json.loads(json.dumps(self._json))

    def to_frame(self):
        """A pandas DataFrame, a row per case."""
        import pandas as pd

        return pd.DataFrame(self.rows)

    def __len__(self) -> int:
        return len(self.comparisons)

    def _show(self, console) -> None:
        render.show_comparisons(self.comparisons, False, f"switchq validate {self.suite}", console=console)

    def _repr_html_(self) -> str:
        heads = ["suite", "case", "quantity", "unit", "analytic", "simulated", "interval", "band", "reps",
                 "verdict"]
        rows = [(r.suite, r.case, r.quantity, r.unit, *render.comparison_cells(r), r.verdict)
                for r in self.comparisons]
        notes = [f"{r.suite}: {r.case}: {r.verdict}: {r.why}" for r in self.comparisons if r.verdict != "agree"]
        return _table_html(f"switchq validate {self.suite}: {self.headline}", heads, rows, notes)


class Written(_Shown):
    """``switchq report NAME``: the files a report wrote (markdown, PNG, its verdict record).

    Attributes
    ----------
    report : str
    written : list of Path
    """

    def __init__(self, report: str, written):
        self.report, self.written = report, [Path(p) for p in written]

    def to_dict(self) -> dict:
        """The CLI's ``--json``: ``report`` and ``written``."""
        return {"report": self.report, "written": [str(p) for p in self.written]}

    def _show(self, console) -> None:
        for p in self.written:
            console.print(f"wrote {p}", markup=False, highlight=False, soft_wrap=True)   # a path whole, as click.echo

    def _repr_html_(self) -> str:
        items = "".join(f"<li><a href='{html.escape(p.as_posix())}'>{html.escape(str(p))}</a></li>"
                        for p in self.written)
        return f"<p><b>switchq report {html.escape(self.report)}</b> wrote:</p><ul>{items}</ul>"
