"""Analytic answers and curves for the web pages, read and solved exactly as the CLI reads and solves them.

Values are read by the declared parameters through the CLI's own reader
(:func:`switchq.cli_verbs.read_params`), answers come from the declaration's
``solve``, curves from the sweep engine (:func:`switchq.sweeps.run_sweep`),
and the results leave in the CLI's ``--json`` shape (:func:`switchq.render.to_json`);
nothing here parses or solves on its own. A bad value is an
:class:`~switchq.errors.InputError` with the CLI's one-line message, plus the
field it belongs to (:func:`field_of`), so a page can show it beside that field.

Examples
--------
>>> solve("hol", {"ports": "8"})["saturation_throughput"]
0.6183898924632462
>>> solve("hol", {"ports": "0"})
Traceback (most recent call last):
...
switchq.errors.InputError: --ports: got '0'; allowed: an integer >= 1
>>> [round(r["mean_wait"], 4) for r in sweep("oq", {"load": "0.5,0.8"}, {"ports": "16"})]
[0.4688, 1.875]
"""

from __future__ import annotations

import json

from switchq.errors import InputError

from .pages import answer_of, model

__all__ = ["solve", "sweep", "field_errors", "field_of", "to_csv", "clean_given", "page_message", "page_messages"]


def clean_given(given: dict | None) -> dict:
    """Texts by parameter name, blanks dropped (a blank field is the default), every value as text."""
    out = {}
    for k, v in (given or {}).items():
        if v is None or (isinstance(v, str) and not v.strip()):
            continue
        out[str(k)] = v if isinstance(v, str) else json.dumps(v) if isinstance(v, bool) else str(v)
    return out


def field_of(m, parameter: str) -> str | None:
    """The page field an error names (``--ports``, ``--vary load``, ``n_ports``), or None."""
    key = parameter[len("--vary "):] if parameter.startswith("--vary ") else parameter
    for p in m.params:
        if key in p.options or key == p.name:
            return p.name
    from .pages import run_options

    for p in run_options(m) if m.build is not None else ():
        if key in p.options or key == p.name:
            return p.name
    return m.name_of(key)


def field_errors(name: str, given: dict, mode: str = "analytic") -> dict:
    """Each given value its parameter refuses, by field: ``{"ports": "--ports: got '0'; allowed: ..."}``.

    Every field is read on its own, so a page shows every bad value at once; values that are fine alone
    may still be refused together (:func:`solve` says which).
    """
    from .pages import run_options

    m = model(name)
    run = {p.name: p for p in run_options(m)} if mode == "simulated" else {}
    out = {}
    for k, text in clean_given(given).items():
        if k in run:
            p = run[k]
        else:
            try:
                p = m.param(k)
            except InputError as e:
                out[k] = str(e)
                continue
            if mode not in p.modes:
                continue
        try:
            p.values(text, p.option)
        except InputError as e:
            out[p.name] = str(e)
    return out


def page_message(name: str, message: str) -> str:
    """The CLI's one line in a page's words: each option of the model named by its field's label, and a value
    missing where one is required said so (not ``got None``).

    >>> page_message("size-pfc", "--link-rate: got None; allowed: a rate > 0 bit/s with a unit, e.g. 10Gb/s (required)")
    'link rate: required (a rate > 0 bit/s with a unit, e.g. 10Gb/s)'
    >>> page_message("oq", "--hotspot-fraction: got 0.5; allowed: only with --pattern hotspot")
    'hotspot fraction: got 0.5; allowed: only with pattern hotspot'
    >>> page_message("voq", "--slots: got 1000000; allowed: at most 5000 per point (switchq serve --max-slots)")
    'slots: got 1000000; allowed: at most 5000 per point (switchq serve --max-slots)'
    """
    import re

    from .pages import label, run_options

    m = model(name)
    options = {}
    for p in (*m.params, *(run_options(m) if m.build is not None else ())):
        for option in p.options:
            if option.startswith("--"):
                options[option] = label(p.name)
    head, sep, rest = message.partition(": got ")
    if sep:
        where = head[len("--vary "):] if head.startswith("--vary ") else head
        where = options.get(where, label(where.lstrip("-").replace("-", "_")))
        value, sep2, allowed = rest.partition("; allowed: ")
        if sep2 and value == "None":
            allowed = re.sub(r"\s*\(required[^)]*\)$", "", allowed)
            message = f"{where}: required ({allowed})"
        else:
            message = f"{where}: got {rest}"

    def word(match):
        # An option of this model, not one of switchq serve's (its caps name the server's own options).
        return options.get(match.group(0), match.group(0))

    body, serve, tail = message.partition("(switchq serve")
    return re.sub(r"--[a-z][a-z0-9-]*", word, body) + serve + tail


def page_messages(name: str, errors: dict) -> dict:
    """:func:`page_message` of every field's error."""
    return {k: page_message(name, v) for k, v in errors.items()}


def solve(name: str, given: dict | None = None):
    """The answer of ``switchq solve|size NAME`` with these option texts, as its ``--json`` prints it: one
    object, or (a ``many`` parameter given several values) a list or ``{"rows": [...]}``."""
    from switchq.cli_verbs import answer_params, solve_answer
    from switchq.render import to_json

    entry = answer_of(name)
    if entry is None:
        model(name)       # an unknown name is refused naming the models
        raise InputError("model", name, "a model with an analytic answer (this one is simulated only: "
                                        "POST /api/simulate)")
    answer, declaration = entry
    params = answer_params(answer)
    known = {p.name for p in params}
    given = clean_given(given)
    for k in given:
        if k not in known:
            m = model(name)
            p = next((q for q in m.params if q.name == k), None)
            if p is None:
                raise InputError("parameter", k, f"a parameter of {name}: " + ", ".join(sorted(known)))
            # A parameter of the simulated twin only: ``switchq solve`` does not take it either.
            raise InputError(p.option, given[k], f"only when simulating (the analytic {name} answer does not "
                                                 "depend on it)")
    payloads, units = solve_answer(answer, given)
    out = [json.loads(to_json(p, units)) for p, _ in payloads]
    if len(out) == 1:
        return out[0]
    return out if declaration.json_rows == "list" else {"rows": out}


def sweep(name: str, vary: dict, given: dict | None = None) -> list:
    """The analytic points of ``switchq sweep NAME --vary ... --json`` (no store: analytic points cost
    microseconds), as that command prints them."""
    from switchq.render import _clean
    from switchq.sweeps import run_sweep

    m = model(name)
    if m.analytic is None:
        raise InputError("model", name, "a model with an analytic answer (this one is simulated only: "
                                        "POST /api/simulate)")
    run = run_sweep(name, clean_given(vary), clean_given(given), store=None)
    return json.loads(json.dumps(_clean(run.rows())))


def to_csv(rows: list) -> str:
    """The CSV ``switchq sweep --csv`` writes of these rows (same columns, same flattening)."""
    import os
    import tempfile

    from switchq.sweeps import write_csv

    fd, path = tempfile.mkstemp(suffix=".csv")
    os.close(fd)
    try:
        write_csv(rows, path)
        with open(path) as f:
            return f.read()
    finally:
        os.unlink(path)
