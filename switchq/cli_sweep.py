"""``switchq sweep MODEL`` and ``switchq results``: design-space sweeps and their result store.

``switchq sweep`` is a group with one command per model of :mod:`switchq.registry`,
each built from the model's parameters: ``--vary NAME=VALUES`` (repeatable) for
the varied ones, ``--<name>`` for a fixed value, the rest at their defaults. The
engine is :mod:`switchq.sweeps`; this module reads options and prints: a table,
``--json`` (a list of points), ``--csv FILE``, ``--parquet FILE``, ``--plot FILE``.
Nothing here imports NumPy, pandas or Dask until a sweep runs.

Examples
--------
>>> import json
>>> from click.testing import CliRunner
>>> out = CliRunner().invoke(sweep_group, ["hol", "--vary", "ports=2,4", "--no-store", "--json"]).output
>>> [(p["ports"], p["exact"]) for p in json.loads(out)]
[(2, '3/4'), (4, '325/496')]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import InputError
from . import registry

__all__ = ["sweep_group", "results_command", "run_options", "SWEEP_KEYWORDS"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 110}

_VARY_HELP = """\b
VALUES: pieces joined by commas, e.g. load=0.1:0.9:0.1,0.95
  V1,V2,...   a list: numbers, choices, none, true/false, quantities with units (cable=10m,20m)
  A:B         integers A..B in steps of 1
  A:B:STEP    A, A+STEP, ... up to B, B included when on the grid (load=0.1:1.0:0.05)
  A:B:*F      geometric: A, A*F, A*F^2, ... up to B (ports=4:64:*2)
  A..B:N      N log-spaced values from A to B, both included (load=1e-3..1:10)"""

_STORE_HELP = ("SQLite result store [default: $SWITCHQ_STORE or ./switchq-results.sqlite]; finished points "
               "are reused, each new one is committed as it finishes.")


def _param_line(p, mode_note=True, params=()) -> str:
    from .params import applies_text

    unit = f" [{p.unit}]" if p.unit and p.unit != "1" else ""
    modes = "" if len(p.modes) == 2 or not mode_note else " (with --simulate)"
    default = "required" if p.required else f"default {p.describe_default() or 'none'}"
    allowed = "" if p.kind == "text" and p.parser is None else f"; {p.allowed()}"   # a text's allowed() is its help
    where = f"; applies {applies_text(p, params)}" if p.applies else ""
    return f"{p.help}{unit}{allowed}{where}; {default}{modes}"


def _list_text(models) -> str:
    lines = []
    for m in models:
        modes = " + ".join(m.modes)
        lines.append(f"{m.name}  ({modes}): {m.note}")
        width = max(len(p.name) for p in m.params)
        for p in m.params:
            lines.append(f"  {p.name:<{width}}  {_param_line(p, True, m.params)}")
        res = ", ".join(f"{mode}: {m.main[mode]}" for mode in m.modes)
        lines.append(f"  main result (--plot y): {res}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------- output

def _cell(row, name) -> str:
    from .render import fmt

    v = row.get(name)
    ci = row.get(name + "_ci95")
    if v is None:
        return "-"
    text = fmt(v)
    if isinstance(ci, (list, tuple)) and None not in ci:
        text += f" ± {fmt((ci[1] - ci[0]) / 2)}"
    return text


def _show_table(run, rows) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .render import _console, table_or_blocks

    plan = run.plan
    model = plan.model
    varied = plan.varied
    shown = [r for r in model.table.get(plan.mode, ()) if any(r in row for row in rows)]
    fixed = plan.fixed_text()
    title = f"{model.title} ({plan.mode})" + (f"\n{fixed}" if fixed else "")
    table = Table(title=escape(title), header_style="bold")
    heads = []
    for name in varied + shown:
        unit = model.unit_of(name)
        heads.append(name + (f" [{unit}]" if unit and unit not in ("1", name) else ""))
    heads += ["seed"] if plan.mode == "simulated" else []
    heads += ["seconds", "point"]
    for h in heads:
        table.add_column(escape(h), justify="left" if h == "point" else "right", no_wrap=True)
    texts = []

    def add(row):
        cells = [_fmt(row[n]) for n in varied] + [_cell(row, n) for n in shown]
        if plan.mode == "simulated":
            cells.append(str(row["seed"]))
        cells += [f"{row['wall_seconds']:.3g}", "stored" if row["cached"] else "new"]
        table.add_row(*(escape(c) for c in cells))
        texts.append(cells)

    head, tail = (rows, []) if len(rows) <= 60 else (rows[:40], rows[-10:])
    for r in head:
        add(r)
    if tail:
        table.add_row(*(["..."] * len(table.columns)))
        for r in tail:
            add(r)
    table_or_blocks(table, title, heads, texts)
    console = _console()
    notes = []
    if tail:
        notes.append(f"{len(rows) - 50} rows not shown: --json, --csv or --parquet give them all.")
    sources = sorted({r.get("source") for r in rows if r.get("source")})
    if 0 < len(sources) <= 2:
        notes.extend(f"source: {s}" for s in sources)
    store = f"store {run.store}" if run.store is not None else "no store"
    notes.append(f"{len(rows)} points: {run.computed} computed, {run.reused} reused ({store}); "
                 f"compute {run.compute_seconds:.3g} s, wall {run.wall_seconds:.3g} s")
    for n in notes:
        console.print(escape(n))


def _fmt(v) -> str:
    from .sweeps import fmt

    return fmt(v)


def _write_outputs(rows, csv_path, parquet_path, as_json, notice) -> None:
    from . import sweeps as engine

    if csv_path is not None:
        engine.write_csv(rows, csv_path)
        if str(csv_path) != "-":
            notice(f"wrote {csv_path}")
    if parquet_path is not None:
        engine.write_parquet(rows, parquet_path)
        notice(f"wrote {parquet_path}")
    if as_json:
        from .render import _clean

        sys.stdout.write(json.dumps(_clean(rows)) + "\n")


def _check_out(option: str, path) -> None:
    if path is None or str(path) == "-":
        return
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise InputError(option, str(path), "a file in an existing folder")


# --------------------------------------------------------------------------- sweep MODEL

def _run_model(model: registry.Model, kw: dict) -> None:
    from . import sweeps as engine

    as_json = kw.pop("as_json")
    if kw.pop("list_"):
        click.echo(_list_text([model]), nl=False)
        return
    vary = list(kw.pop("vary"))
    csv_path, parquet_path, plot_path, y = kw.pop("csv"), kw.pop("parquet"), kw.pop("plot"), kw.pop("y")
    store, no_store, lock_timeout = kw.pop("store"), kw.pop("no_store"), kw.pop("lock_timeout")
    simulate = kw.pop("simulate", False)
    run_kw = _run_values(model, kw)
    if csv_path == "-" and as_json:
        raise InputError("--csv", "-", "a file when --json prints to standard output")
    fixed = {p.name: kw[p.name] for p in model.params if kw.get(p.name) is not None}
    for option, path in (("--csv", csv_path), ("--parquet", parquet_path), ("--plot", plot_path)):
        _check_out(option, path)
    engine.check_y(model.name, simulate, y)
    if store is not None and no_store:
        raise InputError("--no-store", True, "either --store FILE or --no-store, not both")
    store_arg = None if no_store else (engine._DEFAULT if store is None else store)
    progress = not as_json and csv_path != "-" and sys.stderr.isatty()
    try:
        run = engine.run_sweep(model.name, vary, fixed, simulate=simulate, store=store_arg, progress=progress,
                               lock_timeout=lock_timeout, **run_kw)
    except engine.SweepInterrupted as e:
        where = f" in {e.store}" if e.store is not None else " (no store: nothing kept)"
        sys.stderr.write(f"switchq: interrupted: {e.done} of {e.total} points stored{where}; run the same "
                         "command again to resume\n")
        raise SystemExit(130)
    rows = run.rows()

    def notice(text):
        if as_json or csv_path == "-":
            sys.stderr.write(text + "\n")
        else:
            click.echo(text)

    if plot_path is not None:
        engine.write_plot(run, plot_path, y)
    if not as_json and csv_path != "-":
        _show_table(run, rows)
    _write_outputs(rows, csv_path, parquet_path, as_json, notice)
    if plot_path is not None:
        notice(f"wrote {plot_path}")


def run_options(model: registry.Model) -> tuple:
    """The run options of a simulated model's sweep: its twin's (:meth:`Architecture.run_params`), but batch
    means (a sweep point is replications) and with ``--workers`` spreading points, not replications."""
    from dataclasses import replace

    out = []
    for p in model.declaration.run_params():
        if p.name == "workers":
            p = replace(p, default=0, help="Local processes for the points (0 = all cores, 1 = this process); "
                                           "results do not depend on it.")
        elif p.name == "seed":
            p = replace(p, help="Root seed; each point's seed derives from it and the point.")
        if p.name != "batches":
            out.append(p)
    return tuple(out)


# Run settings by target -> run_sweep's keywords (the rest make the precision target).
SWEEP_KEYWORDS = {"slots": "slots", "warmup_slots": "warmup", "replications": "replications", "seed": "seed",
             "workers": "workers"}


def _run_values(model: registry.Model, kw: dict) -> dict:
    """run_sweep's keywords from the run options given (text), each read by its Param; the Dask scheduler."""
    out = {"dask_scheduler": kw.pop("dask_scheduler", None), "target": {}}
    for p in (run_options(model) if model.build is not None else ()):
        text = kw.pop(p.name, None)
        value = None if text is None else p.parse(text, p.option)
        if p.target in SWEEP_KEYWORDS:
            if value is not None or p.name == "workers":
                out[SWEEP_KEYWORDS[p.target]] = p.default if value is None else value
        else:
            out["target"][p.target] = value
    return out


def _model_command(model: registry.Model) -> click.Command:
    simulated = model.build is not None
    analytic = model.analytic is not None
    options = [click.option("--vary", "-v", multiple=True, metavar="NAME=VALUES",
                            help="Vary a parameter over VALUES (repeatable; see below).")]
    for p in model.params:
        options.append(click.option(p.option, p.name, type=str, default=None, metavar="VALUE",
                                    help=_param_line(p, analytic and simulated, model.params)))
    if simulated:
        options.append(click.option("--simulate", is_flag=True,
                                    help=("Simulate instead of solving (Monte Carlo, 95% CIs)." if analytic
                                          else "Simulated (this model has no analytic form: always on).")))
        for p in run_options(model):
            options.append(click.option(*p.options, p.name, type=str, default=None, metavar="VALUE",
                                        help=_param_line(p, False)))
        options.append(click.option("--dask-scheduler", "dask_scheduler", metavar="ADDRESS", default=None,
                                    help="Run the points on this Dask distributed scheduler (tcp://host:8786)."))
    options += [
        click.option("--store", type=click.Path(dir_okay=False), default=None, help=_STORE_HELP),
        click.option("--no-store", is_flag=True, help="Keep nothing: compute every point, store none."),
        click.option("--lock-timeout", type=float, default=10.0, show_default=True,
                     help="Seconds to wait for a store another process is writing."),
        click.option("--json", "as_json", is_flag=True, help="Print a JSON list of points (parameters, results)."),
        click.option("--csv", type=click.Path(dir_okay=False, allow_dash=True), default=None,
                     help="Write CSV here (- for standard output); CIs as NAME_low, NAME_high."),
        click.option("--parquet", type=click.Path(dir_okay=False), default=None, help="Write Parquet here."),
        click.option("--plot", type=click.Path(dir_okay=False), default=None,
                     help="Write a plot (PNG, SVG, PDF): x = first varied parameter, one line per value of "
                          "the others, 95% CI bands."),
        # The default is the main result, which --list shows: an answer's comes from its solver's result, and
        # reading it here would import every solver (and NumPy) to print any help.
        click.option("--y", default=None, help="Result to plot [default: the main result, as --list shows]."),
        click.option("--list", "list_", is_flag=True, help="List this model's parameters and exit."),
    ]
    modes = " and ".join(model.modes)
    first = model.params[0]
    example = f"switchq sweep {model.name} --vary {model.example or first.name + '=...'}"
    mode_text = {"analytic and simulated": "analytic, or simulated with --simulate",
                 "analytic": "analytic only", "simulated": "simulated only"}[modes]
    doc = (f"{model.note[0].upper()}{model.note[1:]}.\n\nModes: {mode_text}.\n\n"
           f"Parameters: {', '.join(p.name for p in model.params)} (--list for types, ranges, defaults and units). "
           "Vary any with --vary NAME=VALUES; fix any with its own option; the rest take their defaults.\n\n"
           f"{_VARY_HELP}\n\n\b\nExample:\n  {example}\n  {example} --json")
    if simulated and analytic:
        doc += f"\n  {example} --simulate --replications 4 --plot {model.name}.png"

    def callback(**kw):
        _run_model(model, kw)

    command = click.Command(model.name, callback=callback, help=doc, context_settings=CONTEXT, short_help=model.note)
    for option in options:      # on a Command (not a function) options append in the order applied
        option(command)
    return command


class _SweepGroup(click.Group):
    """One command per registered model, built when asked for (so ``switchq --help`` stays fast)."""

    def list_commands(self, ctx):
        return list(registry.MODELS)

    def get_command(self, ctx, name):
        model = registry.MODELS.get(name)
        return None if model is None else _model_command(model)

    def resolve_command(self, ctx, args):
        if args and args[0] not in registry.MODELS and not args[0].startswith("-"):
            raise InputError("MODEL", args[0], "one of " + ", ".join(registry.MODELS) + " (switchq sweep --list)")
        return super().resolve_command(ctx, args)


@click.group("sweep", cls=_SweepGroup, invoke_without_command=True, context_settings=CONTEXT)
@click.option("--list", "list_", is_flag=True, help="List every model's parameters (types, ranges, defaults, "
                                                    "units) and exit.")
@click.pass_context
def sweep_group(ctx, list_):
    """Sweep a model over a grid of parameters, analytic or simulated, with a crash-safe result store.

    \b
    switchq sweep MODEL --vary NAME=VALUES [--vary ...] [--NAME VALUE ...] [--simulate]
                  [--store FILE] [--dask-scheduler ADDRESS] [--json | --csv FILE | --parquet FILE] [--plot FILE]

    Every grid point is checked before any work starts. Finished points are committed to the store
    (SQLite, one file) as they finish and reused by later runs: an interrupted sweep resumes where it
    stopped. Simulated points run over all local cores, or on a Dask cluster with --dask-scheduler; each
    point's seed derives from --seed and its parameters, so results never depend on where or in which
    order points run. Parameters are named as on the other verbs: ports, load, window, window_policy,
    buffer, matching, iterations, rtt_slots, crosspoint_cells, protocol, burst, link_rate, rtt, cable,
    cell, ... ('switchq sweep --list', 'switchq sweep MODEL --help').

    \b
    VALUES: pieces joined by commas, e.g. load=0.1:0.9:0.1,0.95
      V1,V2,...   a list: numbers, choices, none, true/false, quantities with units (cable=10m,20m)
      A:B         integers A..B in steps of 1
      A:B:STEP    A, A+STEP, ... up to B, B included when on the grid (load=0.1:1.0:0.05)
      A:B:*F      geometric: A, A*F, A*F^2, ... up to B (ports=4:64:*2)
      A..B:N      N log-spaced values from A to B, both included (load=1e-3..1:10)

    \b
    Example:
      switchq sweep oq --vary load=0.1:0.9:0.1 --vary ports=4,16 --buffer 4
      switchq sweep voq --vary ports=4,8,16,32 --vary load=0.5:1.0:0.1 --simulate --plot voq.png
      switchq sweep size-credit --vary cable=10m:100m:10m --link-rate 100Gb/s --cell 256B --json
    """
    if ctx.invoked_subcommand is not None:
        return
    if list_:
        click.echo(_list_text(registry.MODELS.values()), nl=False)
        return
    click.echo(ctx.get_help())


# --------------------------------------------------------------------------- results

@click.command("results", context_settings=CONTEXT)
@click.option("--store", type=click.Path(dir_okay=False), default=None, help=_STORE_HELP)
@click.option("--model", default=None, help="Only this model.")
@click.option("--mode", type=click.Choice(("analytic", "simulated")), default=None, help="Only this mode.")
@click.option("--where", multiple=True, metavar="EXPR",
              help="Filter (repeatable): NAME=V1,V2, NAME!=V, NAME<V, NAME<=V, NAME>V, NAME>=V on a parameter, "
                   "a result, model, mode or seed.")
@click.option("--limit", type=int, default=None, help="Only the last N matching points.")
@click.option("--lock-timeout", type=float, default=10.0, show_default=True,
              help="Seconds to wait for a store another process is writing.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of the stored points.")
@click.option("--csv", type=click.Path(dir_okay=False, allow_dash=True), default=None,
              help="Write CSV here (- for standard output).")
@click.option("--parquet", type=click.Path(dir_okay=False), default=None, help="Write Parquet here.")
def results_command(store, model, mode, where, limit, lock_timeout, as_json, csv, parquet):
    """List, filter and export the points stored by `switchq sweep`.

    Each point: id, model, mode, its parameters, its results, seed (simulated), settings (slots,
    warm-up, replications, root seed), switchq_version, wall_seconds and created_at.

    \b
    Example:
      switchq results --store sweep.sqlite
      switchq results --store sweep.sqlite --model oq --where "load>=0.5" --json
      switchq results --store sweep.sqlite --mode simulated --csv points.csv
    """
    from . import sweeps as engine
    from .store import default_path

    if model is not None and model not in registry.MODELS:
        raise InputError("--model", model, "one of " + ", ".join(registry.MODELS))
    for option, path in (("--csv", csv), ("--parquet", parquet)):
        _check_out(option, path)
    if csv == "-" and as_json:
        raise InputError("--csv", "-", "a file when --json prints to standard output")
    path = default_path() if store is None else store
    rows = engine.results_rows(path, model, mode, where, limit, lock_timeout)

    def notice(text):
        if as_json or csv == "-":
            sys.stderr.write(text + "\n")
        else:
            click.echo(text)

    if not as_json and csv != "-":
        _show_results(rows, path)
    _write_outputs(rows, csv, parquet, as_json, notice)


def _show_results(rows, path) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .render import _console, table_or_blocks

    title = f"switchq results: {path}"
    table = Table(title=escape(title), header_style="bold")
    heads = ["id", "model", "mode", "parameters", "main result", "seed", "s", "created (UTC)"]
    for col in heads:
        table.add_column(col, justify="right" if col in ("id", "seed", "s") else "left", no_wrap=True)
    head, tail = (rows, []) if len(rows) <= 60 else (rows[:40], rows[-10:])
    texts = [_result_cells(r) for r in head + tail]
    for cells in texts:
        table.add_row(*(escape(c) for c in cells))
    table_or_blocks(table, title, heads, texts)
    console = _console()
    if tail:
        console.print(f"{len(rows) - 50} of {len(rows)} rows not shown: --json, --csv or --parquet give them all.")
    else:
        console.print(f"{len(rows)} points")


def _result_cells(r) -> list:
    m = registry.MODELS.get(r["model"])
    # Parameters at their default are left out here (--json and --csv have them all).
    params = [p.name for p in m.params if p.name in r and (p.required or r[p.name] != p.default)] if m else []
    main = m.main.get(r["mode"]) if m is not None else None
    main_text = f"{main} = {_cell(r, main)}" if main in r else "-"
    text = ", ".join(f"{k}={_fmt(r[k])}" for k in params)
    return [str(r["id"]), r["model"], r["mode"], text, main_text, "-" if r["seed"] is None else str(r["seed"]),
            f"{r['wall_seconds']:.3g}", r["created_at"][:19].replace("T", " ")]
