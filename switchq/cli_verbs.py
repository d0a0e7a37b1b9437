"""``switchq solve``, ``simulate`` and ``size``: one command per declared answer or architecture.

Every command is built from its declaration (:mod:`switchq.architectures`):
its options are the declaration's parameters (spelling, help, default, and
any other spellings), its help the declaration's description and examples,
its output the answer's fields with their units. Values are read by the
parameters themselves (:class:`switchq.params.Param`), so a bad value is one
line naming the option as typed, raised from inside the command. A
parameter declared ``many`` takes a comma-separated list and gives one
answer per value (a row each). Groups build their commands when asked for,
so ``switchq --help`` and the analytic verbs stay fast.

Examples
--------
>>> import json
>>> from click.testing import CliRunner
>>> out = CliRunner().invoke(solve_group, ["hol", "--ports", "4", "--json"]).output
>>> json.loads(out)["exact"]
'325/496'
"""

from __future__ import annotations

import itertools
import sys
from dataclasses import replace
from contextlib import contextmanager

import click

from .errors import InputError
from .params import applies_text, check_applies, each_takes_its_own

__all__ = ["solve_group", "simulate_group", "size_group", "read_params", "read_rows", "answer_params", "solve_answer",
           "shown_answer", "answer_columns", "simulation_columns", "example_payloads", "simulate_results", "simulation_notes", "shown_payload", "shown_simulation"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# --------------------------------------------------------------------------- options and values

def _help(p, params=()) -> str:
    if p.required:
        default = " [required]"
    else:
        default = "" if p.kind == "flag" and p.default is False else f" [default: {p.describe_default()}]"
    unit = f" [{p.unit}]" if p.unit and p.unit not in ("1",) and p.kind not in ("choice", "flag") else ""
    allowed = f" ({', '.join((*p.choices, *dict(p.expand)))})" if p.kind == "choice" else ""
    many = " A comma-separated list gives one row each." if p.many and "comma" not in p.help else ""
    where = f" Applies {applies_text(p, params)}." if p.applies else ""
    return p.help + unit + allowed + many + where + default


def _add_options(command: click.Command, params) -> None:
    """Options of ``params`` on ``command`` (in order); flags as flags, the rest read as text by the Param."""
    for p in params:
        if p.kind == "flag":
            click.option(*p.options, p.name, is_flag=True, default=None, help=_help(p, params))(command)
        else:
            click.option(*p.options, p.name, default=None, metavar=_metavar(p), help=_help(p, params))(command)
        for option, value in p.switches:
            click.option(option, f"{p.name}__{value}", is_flag=True, help=f"Same as {p.option} {value}.")(command)


def _metavar(p) -> str:
    return {"int": "INTEGER", "float": "NUMBER", "choice": "CHOICE", "floats": "LIST"}.get(p.kind, "VALUE")


def read_rows(params, given: dict) -> list[tuple[dict, tuple]]:
    """Canonical values of ``params`` from the options given (text, or None): ``(values, notes)`` per row.

    A required parameter left out, a switch that contradicts its option, a
    bad value, or a parameter given where it does not apply (:attr:`Param.applies`)
    raises InputError naming the option. Rows side by side (a ``many``
    parameter given several values: ``--model all``) each take the inputs
    that apply to them, and a row's notes name those it left out
    (:func:`switchq.params.each_takes_its_own`); an input that applies to
    no row is refused.
    """
    columns = []
    for p in params:
        text = given.get(p.name)
        for option, value in p.switches:
            if given.get(f"{p.name}__{value}"):
                if text is not None and text != value:
                    raise InputError(option, True, f"not with {p.option} {text}")
                text = value
        if text is None:
            if p.required:
                raise InputError(p.option, None, f"{p.allowed()} (required)")
            columns.append((p.name, p.values(p.default, p.option) if p.default in dict(p.expand) else [p.default]))
        else:
            columns.append((p.name, p.values(text, p.option)))
    names = [n for n, _ in columns]
    rows = [dict(zip(names, combo)) for combo in itertools.product(*(v for _, v in columns))]
    explicit = {p.name for p in params if given.get(p.name) is not None
                or any(given.get(f"{p.name}__{v}") for _, v in p.switches)}
    if len(rows) > 1:            # only a ``many`` parameter gives several rows
        return each_takes_its_own(params, rows, explicit)
    for row in rows:
        check_applies(params, row, explicit)
    return [(row, ()) for row in rows]


def read_params(params, given: dict) -> list[dict]:
    """The values of each row of :func:`read_rows` (one dict per row)."""
    return [values for values, _ in read_rows(params, given)]


def _by_name(params) -> dict:
    by_name = {}
    for p in params:
        for name in p.names():
            by_name.setdefault(name, p)
    return by_name


def _as_option(e: InputError, by_name: dict) -> InputError:
    """``e`` naming the option that sets its parameter, a quantity's value with its unit (``--cable: got '20m'``)."""
    p = by_name.get(e.parameter)
    return e if p is None else InputError(p.option, p.shown(e.value), e.allowed)


@contextmanager
def _named(params):
    """Re-raise an InputError from inside with the option that sets its parameter, and a quantity's value
    with its unit (``--cable: got '20m'``); ``params`` with the run options where they apply."""
    by_name = _by_name(params)
    try:
        yield
    except InputError as e:
        named = _as_option(e, by_name)
        if named is e:
            raise
        raise named from None


def _doc(description: str, examples, verb: str) -> str:
    text = description.strip()
    if examples:
        text += "\n\n\b\nExample:\n" + "\n".join(f"  {e}" for e in examples)
    return text


def _progress(as_json: bool) -> bool:
    return not as_json and sys.stderr.isatty()


# --------------------------------------------------------------------------- solve and size

def answer_params(answer) -> tuple:
    """The options of ``switchq solve|size NAME``: the answer's parameters its analytic side reads."""
    return tuple(p for p in answer.params if "analytic" in p.modes)


def solve_answer(answer, given: dict) -> tuple:
    """``([(payload, input names)], units)``: the answer's rows for option texts ``given`` (None: not given),
    as ``switchq solve|size`` computes them (the CLI and ``switchq serve`` both); InputError names the option.

    Rows side by side (``--model all``) each answer with the inputs that apply to them: a row's ``note`` names
    the inputs it left out, and a row that cannot answer carries its one-line refusal as ``error`` instead of
    failing the others (the whole answer fails only when no row answers).
    """
    params = answer_params(answer)
    by_name = _by_name(params)
    with _named(params):
        rows = read_rows(params, given)
    head = {"model": answer.name} if answer.verb == "solve" else {}
    payloads, refused = [], []
    for values, notes in rows:
        try:
            inputs, results = answer.evaluate(values)
        except InputError as e:
            e = _as_option(e, by_name)
            if len(rows) == 1:
                raise e from None
            refused.append(e)
            side = {p.target: values[p.name] for p in params if p.many}
            payloads.append(({**head, **side, "error": str(e)}, list(head) + list(side)))
            continue
        payload = {**head, **inputs, **results}
        if notes:
            payload["note"] = "; ".join((*notes, *((payload["note"],) if payload.get("note") else ())))
        payloads.append((payload, list(head) + list(inputs)))
    if refused and len(refused) == len(rows):
        raise refused[0]
    return payloads, answer.units_of()


def example_payloads(answer, declaration, example: str) -> list:
    """The rows (:func:`solve_answer`) of one of the answer's declared examples, ``switchq solve hol --ports 8``,
    its options read as the command reads them."""
    import shlex

    command = _answer_command(answer, declaration)
    args = [a for a in shlex.split(example)[3:] if a != "--json"]
    with command.make_context(command.name, args) as ctx:
        given = {k: v for k, v in ctx.params.items() if k != "as_json"}
    return solve_answer(answer, given)[0]


def _row_table(payloads: list, columns: list) -> tuple[list, list]:
    """Rows side by side as a table shows them: the columns some row has, a ``note`` column (a row's left-out
    inputs, or why it has no answer) when any row has one, and blanks where a row has no figure."""
    noted = any("note" in p or "error" in p for p in payloads)
    shown = [c for c in columns if c not in ("note", "error") and any(c in p for p in payloads)]
    shown += ["note"] if noted else []
    rows = []
    for p in payloads:
        row = {c: p.get(c, "") for c in shown}
        if noted:
            row["note"] = "; ".join(x for x in (p.get("error"), p.get("note")) if x)
        for c in (c for c in shown if c + "_ci95" in p):
            row[c + "_ci95"] = p[c + "_ci95"]
        rows.append(row)
    return rows, shown


def answer_columns(answer) -> list:
    """The columns of an answer's rows side by side: the parameters given several values, then its table's results."""
    many = [p.target for p in answer_params(answer) if p.many]
    return many + [c for c in answer.table_results() if c not in many]


def simulation_columns(declaration) -> list:
    """The columns of simulated rows side by side: the parameters given several values, then the table's figures."""
    many = [p.target for p in declaration.all_params() if p.many]
    return many + [c for c in declaration.table if c not in many]


def shown_answer(answer, declaration, payloads: list, units: dict, as_json: bool, console=None) -> None:
    """Print an answer's rows (:func:`solve_answer`) as ``switchq solve|size`` does: one answer's table, or a
    row each (on ``console``, default stdout's)."""
    from .render import show, show_rows

    if len(payloads) == 1:
        payload, inputs = payloads[0]
        show(payload, inputs, answer.title, as_json, units=units, console=console)
        return
    rows, columns = [p for p, _ in payloads], answer_columns(answer)
    if not as_json:
        rows, columns = _row_table(rows, columns)
    show_rows(rows, columns, answer.title, as_json, units, declaration.json_rows, console=console)


def _answer_command(answer, declaration) -> click.Command:
    params = answer_params(answer)

    def callback(as_json, **given):
        payloads, units = solve_answer(answer, given)
        shown_answer(answer, declaration, payloads, units, as_json)

    command = click.Command(answer.command, callback=callback, context_settings=CONTEXT,
                            help=_doc(answer.description or answer.summary, answer.examples, answer.verb),
                            short_help=answer.summary)
    _add_options(command, params)
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object (inputs, results, units).")(command)
    return command


# --------------------------------------------------------------------------- simulate

def simulate_results(declaration, given: dict, progress: bool = False) -> list:
    """The simulated answers of ``switchq simulate NAME`` for option texts ``given`` (None: not given), one
    :class:`~switchq.validate.result.Result` per row, as the CLI and the Python verb both compute them;
    InputError names the option."""
    from .validate.harness import RunSettings, run

    params, run_params = declaration.all_params(), declaration.run_params()
    with _named(params + run_params):
        (run_values,) = read_params(run_params, given)
        settings = RunSettings(**{p.target: run_values[p.name] for p in run_params})
        results = []
        for values, notes in read_rows(params, given):
            system, workload = declaration.build(values)
            r = run(declaration, system, workload, settings, progress=progress)
            results.append(replace(r, notes=r.notes + notes) if notes else r)
    return results


def simulation_notes(r) -> list:
    """What a reader must know under one simulated answer's table (Rich markup): its notes, and whether it was
    unstable, not judged, or too short to measure what it is about."""
    from rich.markup import escape

    notes = [f"[yellow]{escape(n)}[/yellow]" for n in r.notes]
    if r.unstable:
        notes.append("[yellow]unstable: offered load exceeds what this system carries; throughput is "
                     "the saturation throughput and latency grows with the run length ("
                     f"{escape(r.labels.get('unstable_because', ''))}: see the backlog growths beside their "
                     "allowances, 1 % of what was offered plus allowances for noise).[/yellow]")
    elif r.unstable is None and "stability_not_judged" in r.labels:
        notes.append("[yellow]stability not judged: "
                     f"{escape(r.labels['stability_not_judged'])}. No test able to see a critically loaded "
                     "queue passed, so these figures are not shown to be a steady state's.[/yellow]")
    if "run_too_short" in r.labels:   # a run that measured nothing of what it is about: how long one must be
        notes.append(f"[yellow]run too short: {escape(r.labels['run_too_short'])}.[/yellow]")
    return notes


def shown_payload(r) -> dict:
    """One simulated answer's figures as its table lists them: the notes are printed under it instead."""
    shown = r.to_dict()
    shown.pop("notes", None)
    shown.pop("run_too_short", None)
    return shown


def shown_simulation(results: list, declaration, as_json: bool, console=None) -> None:
    """Print simulated answers as ``switchq simulate`` does: one answer's table with its notes beneath, or a
    row each (on ``console``, default stdout's)."""
    from .render import show, show_rows

    units = results[0].units
    title = f"{declaration.title} (simulated)"
    if len(results) == 1:
        r = results[0]
        shown = r.to_dict() if as_json else shown_payload(r)
        show(shown, r.inputs(), title, as_json, simulation_notes(r), units, console=console)
    else:
        show_rows([r.to_dict() for r in results], simulation_columns(declaration), title, as_json, units,
                  declaration.json_rows, console=console)


def _simulate_command(declaration) -> click.Command:
    params = declaration.all_params()
    run_params = declaration.run_params()

    def callback(as_json, **given):
        shown_simulation(simulate_results(declaration, given, _progress(as_json)), declaration, as_json)

    command = click.Command(declaration.name, callback=callback, context_settings=CONTEXT,
                            help=_doc(declaration.description or declaration.summary, declaration.examples,
                                      "simulate"),
                            short_help=declaration.summary)
    _add_options(command, params + run_params)
    click.option("--json", "as_json", is_flag=True, help="Print one JSON object (inputs, results, units).")(command)
    return command


# --------------------------------------------------------------------------- groups

class _DeclaredGroup(click.Group):
    """A group whose commands come from the registry, built when asked for."""

    def __init__(self, *args, verb: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.verb = verb

    def list_commands(self, ctx):
        from . import registry

        return list(registry.entries(self.verb))

    def get_command(self, ctx, name):
        from . import registry

        entry = registry.command(self.verb, name)
        if entry is None:
            return None
        return _simulate_command(entry) if self.verb == "simulate" else _answer_command(*entry)


solve_group = _DeclaredGroup("solve", verb="solve", context_settings=CONTEXT,
                             help="Analytic answers (closed forms, Markov chains); no simulation, no compilation.")
simulate_group = _DeclaredGroup("simulate", verb="simulate", context_settings=CONTEXT,
                                help="Monte Carlo answers with 95% confidence intervals and the seed that "
                                     "reproduces them.")
size_group = _DeclaredGroup(
    "size", verb="size", context_settings=CONTEXT,
    help="Buffer sizes for link-level flow control (credit, grant, ACK/NAK, SFC, PFC headroom, InfiniBand "
         "credits) and buffered crossbars.\n\n"
         "Quantities take units: --link-rate 10Gb/s, --rtt 200ns or --cable 20m, --cell 256B (b = bit, B = byte; "
         "KB = 1000 B, KiB = 1024 B). Bare numbers are refused where a unit is needed.")
