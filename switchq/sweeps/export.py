"""Sweep output: flat rows for CSV, Parquet and DataFrames, and the plot.

CIs ``x_ci95`` become columns ``x_low`` and ``x_high``; lists ``x_0``, ``x_1``...; per-replication
values (``x_samples``) stay in the JSON rows.
The plot puts the first varied parameter on x, one line per value of the
others, with 95 % CI bands where there are any.
"""

from __future__ import annotations

import math
import sys

from switchq.errors import InputError
from switchq.registry import get as get_model

from .grid import fmt
from .plan import Plan

__all__ = ["flatten", "write_csv", "to_frame", "write_parquet", "write_plot", "check_y"]

_TEXT_RESULTS = ("method", "source", "formula", "note", "exact", "latency_per")


def flatten(row: dict) -> dict:
    """Flat columns for CSV, Parquet and DataFrames: ``x_ci95`` -> ``x_low``, ``x_high``; lists -> ``x_0``...

    Examples
    --------
    >>> flatten({"throughput": 0.8, "throughput_ci95": [0.79, 0.81], "settings": {"slots": 100}})
    {'throughput': 0.8, 'throughput_low': 0.79, 'throughput_high': 0.81, 'settings_slots': 100}
    """
    out = {}
    for k, v in row.items():
        if k.endswith("_samples"):
            continue        # per-replication values: in --json and the store, for paired comparisons
        if isinstance(v, dict):
            for k2, v2 in flatten({f"{k}_{kk}": vv for kk, vv in v.items()}).items():
                out[k2] = v2
        elif isinstance(v, (list, tuple)):
            base = k[:-5] if k.endswith("_ci95") else k
            if k.endswith("_ci95") and len(v) == 2 and not any(isinstance(x, (list, tuple)) for x in v):
                out[base + "_low"], out[base + "_high"] = v
            else:
                for j, x in enumerate(v):
                    if isinstance(x, (list, tuple)) and k.endswith("_ci95") and len(x) == 2:
                        out[f"{base}_{j}_low"], out[f"{base}_{j}_high"] = x
                    else:
                        out[f"{k}_{j}"] = x
        else:
            out[k] = v
    return out


def _columns(flat: list) -> list:
    cols = {}
    for r in flat:
        for k in r:
            cols.setdefault(k, None)
    return list(cols)


def write_csv(rows: list, path) -> None:
    """CSV with flattened columns; ``path`` ``-`` is standard output; empty cells for none."""
    import csv

    flat = [flatten(r) for r in rows]
    out = sys.stdout if str(path) == "-" else open(path, "w", newline="")
    try:
        w = csv.DictWriter(out, fieldnames=_columns(flat), restval="", lineterminator="\n")
        w.writeheader()
        for r in flat:
            w.writerow({k: "" if v is None else v for k, v in r.items()})
    finally:
        if out is not sys.stdout:
            out.close()


def to_frame(rows: list):
    """A pandas DataFrame of flattened rows (none -> NaN / None)."""
    import pandas as pd

    flat = [flatten(r) for r in rows]
    return pd.DataFrame(flat, columns=_columns(flat))


def write_parquet(rows: list, path) -> None:
    """Parquet (pyarrow) with flattened columns."""
    df = to_frame(rows)
    for c in df.columns:       # a column of text and numbers mixed (e.g. a result that is None or text)
        if df[c].dtype == object and len({type(v) for v in df[c] if v is not None}) > 1:
            df[c] = df[c].map(lambda v: None if v is None else str(v))
    df.to_parquet(path, index=False)


def write_plot(run, path, y: str | None = None) -> None:
    """x = the first varied parameter, one line per value of the others, 95 % CI bands where there are any.

    ``run`` is a finished sweep (:class:`~switchq.sweeps.engine.SweepRun`, which reads this module: named
    here, not imported, so that the two do not import each other).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    plan = run.plan
    y = y or plan.model.main[plan.mode]
    rows = run.rows()
    present = {k for r in rows for k, v in r.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    if y not in present or y in plan.fixed or y in plan.varied:
        raise InputError("--y", y, "a numeric result of these points: " + ", ".join(
            k for k in _numeric_results(plan) if k in present))
    fig = Figure(figsize=(7, 4.5))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    x_param = plan.axes[0][0] if plan.axes else None
    others = [p.name for p, _ in plan.axes[1:]]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(r[n] for n in others), []).append(r)

    def num(v):
        return math.nan if v is None or isinstance(v, str) else float(v)

    categorical = x_param is not None and not x_param.numeric
    xticks = [] if not categorical else [fmt(v) for v in plan.axes[0][1]]
    for label, group in groups.items():
        if x_param is None:
            xs = [0.0]
        elif categorical:
            xs = [xticks.index(fmt(r[x_param.name])) for r in group]
        else:
            xs = [num(r[x_param.name]) for r in group]
        ys = [num(r.get(y)) for r in group]
        order = sorted(range(len(xs)), key=lambda j: xs[j])
        xs, ys = [xs[j] for j in order], [ys[j] for j in order]
        name = ", ".join(f"{n}={fmt(v)}" for n, v in zip(others, label)) or None
        line, = ax.plot(xs, ys, marker="o", markersize=3, label=name)
        cis = [group[j].get(y + "_ci95") for j in order]
        if any(isinstance(c, (list, tuple)) for c in cis):
            lo = [num(c[0]) if isinstance(c, (list, tuple)) else math.nan for c in cis]
            hi = [num(c[1]) if isinstance(c, (list, tuple)) else math.nan for c in cis]
            ax.fill_between(xs, lo, hi, alpha=0.2, color=line.get_color(), linewidth=0)
    if categorical:
        ax.set_xticks(range(len(xticks)), xticks)
    elif x_param is not None:
        xv = [v for v in plan.axes[0][1] if v is not None and v > 0]
        if xv and len(xv) == len(plan.axes[0][1]) and max(xv) / min(xv) >= 50:
            ax.set_xscale("log")
    model = plan.model
    if x_param is not None:
        unit = model.unit_of(x_param.name)
        ax.set_xlabel(x_param.name + (f" [{unit}]" if unit and unit != "1" else ""))
    unit = model.unit_of(y)
    ax.set_ylabel(y + (f" [{unit}]" if unit and unit != "1" else ""))
    fixed = plan.fixed_text()
    ax.set_title(f"{model.name} ({plan.mode})" + (f": {fixed}" if fixed else ""), fontsize=9)
    if others:
        ax.legend(fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def _numeric_results(plan: Plan) -> list:
    return [r for r in plan.model.results.get(plan.mode, ()) if r not in _TEXT_RESULTS and not r.endswith("_ci95")]


def check_y(model_name: str, simulate: bool, y: str | None) -> None:
    """``--y`` must be a numeric result of the model in that mode (checked before any work)."""
    if y is None:
        return
    model = get_model(model_name)
    mode = "simulated" if (simulate or model.analytic is None) else "analytic"
    allowed = [r for r in model.results.get(mode, ()) if r not in _TEXT_RESULTS and not r.endswith("_ci95")]
    # The simulator may report more than the registry lists: those are checked once the points are in.
    if y not in allowed and (mode == "analytic" or y in _TEXT_RESULTS or y.endswith("_ci95")):
        raise InputError("--y", y, "a numeric result of " + f"{model.name} ({mode}): " + ", ".join(allowed))
