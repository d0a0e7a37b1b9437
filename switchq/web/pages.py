"""What a model's page shows, derived from its declaration, and the command line and Python call of a view.

A page is one sweep model of :data:`switchq.registry.MODELS` (every analytic
answer, with its simulated twin if it has one, and every simulated
architecture no answer is named after). Its fields are the model's
:class:`~switchq.params.Param`\\ s, described by the Params themselves
(:meth:`~switchq.params.Param.allowed`, :meth:`~switchq.params.Param.describe_default`),
grouped as the CLI groups its options: the answer's parameters, those only
its simulated twin takes, and the run options of ``--simulate``.

Examples
--------
>>> page = describe("hol")
>>> page["verb"], page["command"], [f["name"] for f in page["groups"][0]["fields"]]
('solve', 'hol', ['ports'])
>>> command_line("oq", {"ports": "16"}, vary={"load": "0.1:0.9:0.1"})
'switchq sweep oq --vary load=0.1:0.9:0.1 --ports 16 --json'
"""

from __future__ import annotations

import shlex

from switchq.errors import InputError
from switchq.params import QUANTITY_KINDS, REQUIRED, applies_text

__all__ = ["catalogue", "describe", "model", "answer_of", "run_options", "command_line", "python_call", "label",
           "twin_figure", "saturated_twin"]

# Run options a page does not offer: the server decides where points run (its --workers), and a precision target
# has no fixed cost, so it cannot be held to the per-request work cap.
_SERVER_RUN = ("workers", "precision", "half_width", "max_replications", "precision_on")


def model(name: str):
    """The sweep model called ``name`` (InputError naming the models if there is none)."""
    from switchq.registry import get

    return get(name)


def answer_of(name: str):
    """``(Answer, Architecture)`` of the answer called ``name``, or None for a simulated-only model."""
    from switchq.registry import answers

    return answers().get(name)


def run_options(m) -> tuple:
    """The run options of ``switchq sweep NAME --simulate`` a page offers (slots or cycles, warm-up,
    replications, seed)."""
    if m.build is None:
        return ()
    from switchq.cli_sweep import run_options

    return tuple(p for p in run_options(m) if p.name not in _SERVER_RUN)


def label(name: str) -> str:
    """A parameter's or result's name in the page's words: ``link_rate`` -> ``link rate``.

    >>> label("link_rate"), label("saturation_throughput")
    ('link rate', 'saturation throughput')
    """
    return name.replace("_", " ")


def _shown_in_bytes(p) -> bool:
    # Sizes are read with a unit (9216B, 4KiB) and kept in bits inside; people who size buffers and frames
    # speak bytes, and the answers give bytes, so a page shows a size in bytes (on its field and on an axis).
    return p.kind == "size"


def _allowed(p) -> str:
    if not _shown_in_bytes(p):
        return p.allowed()
    low = "" if p.low is None else f"{p.low / 8:g}"
    high = "" if p.high is None else f"{p.high / 8:g}"
    lo, hi = ("(" if p.low_open else "["), (")" if p.high_open else "]")
    interval = (f" in {lo}{low}, {high}{hi}" if low and high else f" {'>' if p.low_open else '>='} {low}" if low
                else f" {'<' if p.high_open else '<='} {high}" if high else "")
    return f"a size{interval} B with a unit, e.g. 9216B or 4KiB" + (", or none" if p.default is None else "")


def _field(p, params) -> dict:
    choices = [*p.choices, *dict(p.expand)] if p.kind == "choice" else []
    unit = "B" if _shown_in_bytes(p) else p.unit if p.unit != "1" else ""
    return {"name": p.name, "label": label(p.name), "option": p.option, "kind": p.kind, "unit": unit,
            # What a curve's x value is multiplied by to be shown in ``unit`` (sweep rows keep sizes in bits).
            "scale": 0.125 if _shown_in_bytes(p) else 1,
            "quantity": QUANTITY_KINDS[p.kind][1] if p.kind in QUANTITY_KINDS else "",
            "default": p.describe_default(), "required": p.default is REQUIRED, "allowed": _allowed(p),
            "help": p.help, "choices": choices, "numeric": p.numeric, "many": p.many, "modes": list(p.modes),
            "applies": applies_text(p, params), "run": False}


def _groups(m) -> list:
    groups = []
    if m.analytic is not None:
        groups.append(("parameters", [p for p in m.params if "analytic" in p.modes]))
        groups.append(("simulated twin only", [p for p in m.params if "analytic" not in p.modes]))
    else:
        d = m.declaration
        system = {p.name for p in d.params}
        workload = {p.name for p in d.workload}
        groups.append(("system", [p for p in m.params if p.name in system]))
        groups.append(("workload", [p for p in m.params if p.name in workload]))
        groups.append(("run length", [p for p in m.params if p.name not in system | workload]))
    run = list(run_options(m))
    out = [{"title": title, "run": False, "fields": [_field(p, m.params) for p in ps]} for title, ps in groups if ps]
    if run:
        out.append({"title": "run options (simulate)", "run": True,
                    "fields": [{**_field(p, run), "run": True} for p in run]})
    return out


def catalogue() -> list:
    """Every page: name, title, one line, the CLI verb and command it mirrors, modes and family."""
    from switchq.registry import MODELS

    out = []
    for name, m in MODELS.items():
        verb, command, family = _verb(name, m)
        out.append({"name": name, "title": m.title, "note": m.note, "verb": verb, "command": command,
                    "modes": list(m.modes), "family": family})
    return out


def _verb(name, m):
    entry = answer_of(name)
    if entry is not None:
        a, d = entry
        return a.verb, a.command, d.family
    return "simulate", name, m.declaration.family


def describe(name: str) -> dict:
    """A page: the model's fields by group, its results (the numeric ones a curve can plot), their units,
    the main result per mode, its description and examples, and the simulated architecture to check it with."""
    m = model(name)
    verb, command, family = _verb(name, m)
    entry = answer_of(name)
    description = (entry[0].description if entry else m.declaration.description) or m.note
    examples = list(entry[0].examples if entry else m.declaration.examples)
    twin = None
    if entry is not None and m.build is None and entry[1].simulated:
        # The answer's simulated check is another page (size-pfc -> pfc): offered one click away.
        from switchq.registry import MODELS

        twin = entry[1].name if entry[1].name in MODELS else None
    units = {p.name: p.unit for p in m.params if p.unit and p.unit != "1"}
    units.update({k: v for k, v in m.result_units.items() if v and v != "1"})
    units.update({p.name: "B" for p in m.params if _shown_in_bytes(p)})
    from .references import references

    return {"name": name, "title": m.title, "note": m.note, "verb": verb, "command": command, "family": family,
            "modes": list(m.modes), "description": description, "examples": examples,
            "groups": _groups(m), "results": {mode: list(r) for mode, r in m.results.items()},
            "main": dict(m.main), "table": {mode: list(t) for mode, t in m.table.items()}, "units": units,
            "twin": twin, "twin_figure": twin_figure(name), "references": references(name)}


def twin_figure(name: str) -> dict:
    """The simulated result that measures an analytic one, where their names differ: ``{analytic: simulated}``.

    A saturation question (its main figure ``saturation_*``) is simulated overloaded, and what the twin then
    carries is the saturation figure: hol's ``saturation_throughput`` is its twin's ``throughput`` (the
    declaration's ``Answer.sim_main``). Other answers' main figures (a zero-load latency, a delay bound) are
    not what their twin's main figure measures, so nothing is mapped for them.

    >>> twin_figure("hol"), twin_figure("bmin"), twin_figure("oq")
    ({'saturation_throughput': 'throughput'}, {}, {})
    """
    entry = answer_of(name)
    m = model(name)
    if entry is None or m.build is None:
        return {}
    a = entry[0]
    main = a.main_result()
    if not main.startswith("saturation_") or main == a.sim_main:
        return {}
    return {main: a.sim_main}


def saturated_twin(name: str, params: dict) -> bool:
    """Whether the simulated twin of ``name`` at these (read) parameter values runs overloaded by design: the
    answer is a saturation figure and the twin's load is 1 (or its sources are always backlogged, no load)."""
    if not twin_figure(name):
        return False
    a = answer_of(name)[0]
    twin = a.twin(dict(params))
    load = twin.get("load", 1.0)
    return load is None or load >= 1.0


# --------------------------------------------------------------------------- reproducing a view

def _given(params: dict | None) -> dict:
    return {k: v for k, v in (params or {}).items() if v is not None and str(v).strip() != ""}


def _options(m, given: dict) -> list:
    words = []
    for name, text in given.items():
        p = m.param(name)
        if p.kind == "flag":
            if str(text).strip().lower() in ("true", "yes", "on", "1"):
                words.append(p.option)
            continue
        words += [p.option, str(text)]
    return words


def command_line(name: str, params: dict | None = None, vary: dict | None = None, simulate: bool = False,
                 run: dict | None = None) -> str:
    """The ``switchq`` command that gives the same answer: ``solve``/``size`` for one analytic point,
    ``sweep`` for a curve or a simulation (its ``--json`` is what the API returns)."""
    m = model(name)
    given = _given(params)
    if not vary and not simulate and m.analytic is not None:
        verb, command, _ = _verb(name, m)
        words = ["switchq", verb, command, *_options(m, given), "--json"]
        return shlex.join(words)
    words = ["switchq", "sweep", name]
    for k, v in (vary or {}).items():
        words += ["--vary", f"{m.param(k).name}={v}"]
    words += _options(m, given)
    if simulate:
        if m.analytic is not None:
            words.append("--simulate")
        opts = {p.name: p for p in run_options(m)}
        for k, v in _given(run).items():
            if k in opts:
                words += [opts[k].option, str(v)]
    words.append("--json")
    return shlex.join(words)


def python_call(name: str, params: dict | None = None, vary: dict | None = None, simulate: bool = False,
                run: dict | None = None, store: str | None = None) -> str:
    """The Python call that gives the same numbers: :func:`switchq.sweep` (a DataFrame, one row per point)."""
    m = model(name)
    args = [repr(name)]
    if vary:
        args.append(repr({m.param(k).name: v for k, v in vary.items()}))
    given = _given(params)
    if given:
        args.append(f"fixed={given!r}")
    if simulate:
        if m.analytic is not None:
            args.append("simulate=True")
        from switchq.cli_sweep import SWEEP_KEYWORDS

        opts = {p.name: p for p in run_options(m)}
        for k, v in _given(run).items():
            p = opts.get(k)
            if p is not None and p.target in SWEEP_KEYWORDS:
                args.append(f"{SWEEP_KEYWORDS[p.target]}={p.parse(v, p.option)!r}")
        args.append(f"store={store!r}")
    else:
        args.append("store=None")
    return "import switchq\nswitchq.sweep(" + ", ".join(args) + ")"


def check_name(name: str) -> None:
    """Refuse an unknown model in one line."""
    from switchq.registry import MODELS

    if name not in MODELS:
        raise InputError("model", name, "one of " + ", ".join(MODELS))
