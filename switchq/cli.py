"""The ``switchq`` command line: solve, simulate, size, sweep, results, validate, report, bench.

Every verb prints a Rich table for people or, with ``--json``, one JSON
object for scripts (inputs first, then results, then ``units``). Bad input
exits 2 with one line naming the parameter, its value and what is allowed.
Analytic verbs never import Numba. The commands of ``solve``, ``simulate``,
``size`` and ``sweep`` and the names ``validate`` and ``report`` take come
from the declarations in :mod:`switchq.architectures` (see :mod:`.cli_verbs`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .cli_verbs import simulate_group, size_group, solve_group
from .errors import InputError

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="switchq")
def app():
    """Switch and router architecture answers: analytic in milliseconds, proven by a Numba
    Monte Carlo simulator.

    \b
    Verbs: solve (analytic), simulate (Monte Carlo), size (buffer sizing), sweep (design
    spaces), validate (both, with a verdict), report (rebuild reports/), bench (speed figures).
    Every verb takes --json.
    """


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON object (inputs, results, units).")(f)


def _fail(message: str) -> None:
    sys.stderr.write(f"switchq: error: {message}\n")
    raise SystemExit(2)


# --------------------------------------------------------------------------- validate, report, bench

class _Names(click.Choice):
    """A choice among names the registry gives, read when first needed: building the list imports every
    declaration, which ``switchq solve`` must not pay for."""

    def __init__(self, names):
        self._names = names
        self.case_sensitive = True

    @property
    def choices(self):
        return ("all", *self._names())


def _suite_names():
    from .registry import suites

    return suites()


def _report_names():
    from .registry import reports

    return reports()


@app.command("validate", context_settings=CONTEXT)
@click.argument("suite", type=_Names(_suite_names), default="all")
@click.option("--full", is_flag=True, help="Ten times the simulated slots (tighter intervals).")
@click.option("--workers", "-j", type=int, default=0, show_default=True, help="Worker processes (0 = all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@json_option
def validate(suite, full, workers, seed, as_json):
    """Run models analytically and in simulation, side by side, with a verdict per row.

    Each row is judged by the verdict engine (agree, inconclusive, defect), adding replications up to four
    times the row's own while its interval does not decide. Exits 1 if any row is a defect.

    \b
    Example:
      switchq validate all
      switchq validate hol --json
    """
    from .render import show_comparisons
    from .suites import run_suite

    def finished(i, n, row, seconds):
        # A line per row on stderr, piped or not: a first run compiles kernels for minutes before the table.
        sys.stderr.write(f"[{i}/{n}] {row.suite}: {row.case}: {row.verdict} ({seconds:.1f} s)\n")
        sys.stderr.flush()

    def ready(i, n, architecture, seconds):
        sys.stderr.write(f"[kernel {i}/{n}] {architecture}: ready in {seconds:.1f} s\n")
        sys.stderr.flush()

    rows = run_suite(suite, seed=seed, workers=workers, scale=10.0 if full else 1.0,
                     progress=not as_json and sys.stderr.isatty(), on_row=None if as_json else finished,
                     on_ready=None if as_json else ready)
    show_comparisons(rows, as_json, f"switchq validate {suite}")
    # A defect (or any disagreement) fails the command; an inconclusive row does not, and says what it needs.
    if any(r.verdict not in ("agree", "inconclusive") for r in rows):
        raise SystemExit(1)


@app.command("report", context_settings=CONTEXT)
@click.argument("name", type=_Names(_report_names), default="all")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("reports"),
              show_default=True, help="Directory for the markdown and PNGs.")
@click.option("--quick", is_flag=True, help="Shorter simulations (a smoke test, not for committing).")
@click.option("--workers", "-j", type=int, default=0, show_default=True, help="Worker processes (0 = all cores).")
@click.option("--seed", type=int, default=1, show_default=True, help="Root seed.")
@click.option("--store", type=click.Path(dir_okay=False), default=None,
              help="Result store the report's simulated points are kept in and reused from, as a sweep's "
                   "[default: $SWITCHQ_STORE or ./switchq-results.sqlite]: a report stopped half-way resumes.")
@click.option("--no-store", is_flag=True, help="Keep nothing: simulate every point.")
@click.option("--precision", type=float, default=None,
              help="Run every simulated point of the report until the 95% CI half-width of its main figure is "
                   "within this share of its value (from the report's replications, at least 5).")
@click.option("--max-replications", "max_replications", type=int, default=None,
              help="Most replications a point may take with --precision [default: 200].")
@json_option
def report(name, out, quick, workers, seed, store, no_store, precision, max_replications, as_json):
    """Regenerate the reports that reproduce the papers' results (markdown + PNG).

    \b
    Example:
      switchq report hol
      switchq report multicast --quick --out /tmp/reports --no-store
    """
    import json

    from .store import default_path
    from .reports import build_report

    if store is not None and no_store:
        raise InputError("--no-store", True, "either --store FILE or --no-store, not both")
    target = {"precision": precision, "max_replications": max_replications} if precision is not None else None
    if max_replications is not None and precision is None:
        raise InputError("--max-replications", max_replications, "only with --precision")
    written = build_report(name, out, quick=quick, workers=workers, seed=seed,
                           store=None if no_store else (store or default_path()), target=target)
    if as_json:
        sys.stdout.write(json.dumps({"report": name, "written": [str(p) for p in written]}) + "\n")
    else:
        for p in written:
            click.echo(f"wrote {p}")


@app.command("warm", context_settings=CONTEXT)
@click.option("--workers", "-j", type=int, default=0, show_default=True, help="Processes (0 = all cores).")
def warm(workers):
    """Compile every simulator kernel into Numba's on-disk cache, in parallel, so that the first
    simulate, validate or report runs at full speed. A line per kernel as it is ready.

    \b
    Example:
      switchq warm && switchq validate all
    """
    from .warm import warm as compile_all

    if workers < 0:
        raise InputError("--workers", workers, "an integer >= 0 (0 = all cores)")
    compile_all(workers)


@app.command("bench", context_settings=CONTEXT)
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write the figures as markdown to this file.")
@click.option("--quick", is_flag=True, help="Shorter runs (BookSim2 side by side: a tenth of the cycles).")
@click.option("--booksim", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="A BookSim2 binary: also run one BookSim2 file through it and through switchq's iq-router, "
                   "one whole process at a time (16, 64 and 256 nodes, 1.6 M cycles, 400,000 at 256; about 25 "
                   "minutes of BookSim2).")
@click.option("--scale", is_flag=True, help="Also time bmin and iq-router at 64 to 4096 nodes, load 0.5, with each "
                                            "process's peak memory (several minutes).")
@click.option("--cold", is_flag=True, help="Also compile every kernel into an empty Numba cache, one fresh "
                                           "process each (several minutes; the real cache is untouched).")
@json_option
def bench(out, quick, booksim, cold, scale, as_json):
    """Measure simulator and solver speed on this machine (one core, after compilation), and whole
    processes as a user runs them.

    \b
    Example:
      switchq bench --out reports/performance.md
      switchq bench --booksim /opt/booksim2/src/booksim --cold --scale --out reports/performance.md
    """
    from .bench import run_bench

    run_bench(out=out, quick=quick, as_json=as_json, booksim=booksim, cold=cold, scale=scale)


def _register():
    from .cli_sweep import results_command, sweep_group

    for group in (solve_group, simulate_group, size_group, sweep_group):
        app.add_command(group)
    app.add_command(results_command)
    app.add_command(_serve)


class _LazyServe(click.Command):
    """``switchq serve``, loaded when run or asked for help (the web extra is imported only then)."""

    def _real(self):
        from .web.serve import serve_command

        return serve_command

    def get_params(self, ctx):
        return self._real().get_params(ctx)

    def invoke(self, ctx):
        return self._real().invoke(ctx)

    def get_help(self, ctx):
        return self._real().get_help(ctx)


_serve = _LazyServe("serve", context_settings=CONTEXT, short_help="Serve every model as a what-if web page, "
                    "with a JSON API (needs the web extra).")


_register()


def main(argv=None) -> None:
    """Entry point: run the app, turning bad input into one line and exit code 2."""
    try:
        rv = app.main(args=argv, standalone_mode=False, prog_name="switchq")
    except InputError as e:
        _fail(str(e))
    except click.exceptions.NoArgsIsHelpError as e:
        click.echo(e.ctx.get_help())
        raise SystemExit(0)
    except click.exceptions.UsageError as e:
        _fail(" ".join(e.format_message().split()))
    except click.exceptions.Exit as e:
        raise SystemExit(e.exit_code)
    except click.exceptions.Abort:
        sys.stderr.write("switchq: aborted\n")
        raise SystemExit(130)
    raise SystemExit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
