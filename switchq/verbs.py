"""The Python verbs: one per CLI verb, read from the declarations as the commands are.

``switchq.solve(name, **params)`` is ``switchq solve NAME --param value ...``: the same declaration, the same
parameters (:class:`~switchq.params.Param`), the same code computing the answer (:mod:`switchq.cli_verbs`),
so a keyword is an option's name with underscores (``link_rate`` for ``--link-rate``; another name of the
same parameter works too, ``n_ports`` for ``ports``; a flag that sets another option's value, ``--sfc``, is that
option's value instead, ``protocol="sfc"``) and its value is what the option takes, text with its unit (``"400Gb/s"``) or a
number in the canonical unit (bit/s, s, m, bits). Bad input raises :class:`~switchq.errors.InputError` with
the CLI's one-line message. Each verb returns an object of :mod:`switchq.outcome` whose ``to_dict()`` is the
CLI's ``--json``. ``switchq.sweep`` (:func:`switchq.sweeps.sweep`) returns a pandas DataFrame.

Examples
--------
>>> import switchq
>>> round(switchq.solve("hol", ports=8).saturation_throughput, 5)
0.61839
>>> switchq.size("pfc", link_rate="400Gb/s", cable="100m", mtu="9216B", interface_delay="1228.8ns").headroom_bytes
250674
>>> switchq.solve("hol", ports=0)
Traceback (most recent call last):
...
switchq.errors.InputError: --ports: got 0; allowed: an integer >= 1
>>> switchq.solve("hol", port=8)
Traceback (most recent call last):
...
switchq.errors.InputError: port: got 8; allowed: a parameter of switchq solve hol: ports
"""

from __future__ import annotations

from pathlib import Path

from . import registry
from .cli_verbs import answer_params, simulate_results, solve_answer
from .errors import InputError
from .outcome import Simulation, Solution, Validation, Written

__all__ = ["solve", "size", "simulate", "validate", "report"]

_DEFAULT = object()      # report(store=...): the CLI's default store
_NAMES = "    The names it takes, from the declarations.\n"


def _given(params, keywords: dict, command: str) -> dict:
    """Keyword arguments as the options ``given`` to the CLI's code: by parameter name, any other spelling
    of its option accepted (``n_ports``, ``link-rate``); an unknown keyword is refused naming the parameters."""
    by_name: dict = {}
    for p in params:
        for spelling in p.names():
            by_name.setdefault(spelling.lstrip("-").replace("-", "_"), set()).add(p.name)
    for p in params:
        by_name[p.name] = {p.name}          # a parameter's own name is never another's alias
    given = {}
    for key, value in keywords.items():
        names = by_name.get(key.replace("-", "_"), set())
        if len(names) != 1:
            allowed = ("one of " + ", ".join(sorted(names)) + " (spelled alike): use its own name" if names
                       else f"a parameter of switchq {command}: " + ", ".join(p.name for p in params))
            raise InputError(key, value, allowed)
        (name,) = names
        if name in given:
            raise InputError(key, value, f"once: {name} is given twice")
        given[name] = value
    return given


def _run_option(name: str, value):
    """``value`` checked as the run option ``name`` every simulation takes (its Param: the same range and
    message as ``--seed``, ``--workers``, ``--precision``, ``--max-replications``)."""
    from .declaration import RUN_PARAMS

    return next(p for p in RUN_PARAMS if p.name == name).parse(value, name)


def _flag(name: str, value) -> bool:
    """``value`` read as a flag option is (True or False; text such as "true" or "no" as on a command line)."""
    from .params import Param

    return Param(name, name, "flag", False).parse(value, name)


def _entry(verb: str, name):
    entry = registry.command(verb, name) if isinstance(name, str) else None
    if entry is None:
        raise InputError("name", name, f"a model of switchq {verb}: " + ", ".join(registry.entries(verb)))
    return entry


def _answer(verb: str, name: str, keywords: dict) -> Solution:
    answer, declaration = _entry(verb, name)
    given = _given(answer_params(answer), keywords, f"{verb} {answer.command}")
    payloads, units = solve_answer(answer, given)
    return Solution(answer, declaration, payloads, units)


def solve(name: str, /, **params) -> Solution:
    """The analytic answer ``name`` at ``params``: ``switchq solve NAME`` (closed forms, Markov chains; no
    simulation, no compilation).

    Returns a :class:`~switchq.outcome.Solution`; its figures read as attributes, its ``to_dict()`` is the
    CLI's ``--json``.

    The names it takes, from the declarations.

    Examples
    --------
    >>> r = solve("oq", ports=16, load=0.8)
    >>> round(r.mean_wait, 4), r.units["mean_wait"]
    (1.875, 'slots')
    """
    return _answer("solve", name, params)


def size(name: str, /, **params) -> Solution:
    """The buffer sizing ``name`` at ``params``: ``switchq size NAME``. Quantities are text with a unit
    (``link_rate="400Gb/s"``, ``cable="100m"``, ``mtu="9216B"``) or numbers in bit/s, m, s and bits.

    The names it takes, from the declarations.

    Examples
    --------
    >>> r = size("credit", link_rate="10Gb/s", rtt="1us", cell="64B")
    >>> r.units["buffer_cells"], r.buffer_cells >= 1
    ('cells', True)
    """
    return _answer("size", name, params)


def simulate(system, workload=None, settings=None, progress: bool = False, **params):
    """Simulate a declared model by name (``switchq simulate NAME``), or a system object.

    ``simulate("bmin", nodes=16, load=0.5, cycles=20000, replications=5, seed=1)`` takes the model's
    parameters and its run options (``slots``/``cycles``/``seconds``, ``replications``, ``seed``,
    ``workers``, ``precision``...) as keywords, and returns a :class:`~switchq.outcome.Simulation` whose
    ``to_dict()`` is the CLI's ``--json`` (the same seed gives the same figures, whatever ``workers``).

    ``simulate(system, workload, settings)`` (a :func:`switchq.Switch` or any declared configuration, its
    traffic, a :class:`~switchq.validate.harness.RunSettings`) returns the simulator's
    :class:`~switchq.validate.result.Result`, as it always has.

    The names it takes, from the declarations.

    Examples
    --------
    >>> r = simulate("oq", ports=4, load=0.5, slots=2000, replications=5, seed=7)
    >>> 0.4 < r.throughput.value < 0.6, len(r.seeds), r.to_dict()["replications"]
    (True, 5, 5)
    """
    progress = _flag("progress", progress)
    if not isinstance(system, str):
        if params:
            raise InputError(next(iter(params)), params[next(iter(params))],
                             "no keyword with a system object: simulate(system, workload, settings)")
        from .api import simulate as simulate_system

        return simulate_system(system, workload, settings, progress)
    if workload is not None or settings is not None:
        raise InputError("workload" if workload is not None else "settings", workload or settings,
                         f"none with a model name: simulate({system!r}, param=value, ...)")
    declaration = _entry("simulate", system)
    given = _given(declaration.all_params() + declaration.run_params(), params, f"simulate {declaration.name}")
    return Simulation(declaration, simulate_results(declaration, given, progress))


def validate(name: str = "all", /, *, full: bool = False, workers: int = 0, seed: int = 1,
             progress: bool = False) -> Validation:
    """Run the validation suite ``name`` (or ``all``): each declared case analytic and simulated, judged by the
    verdict engine, as ``switchq validate NAME``.

    ``full``: ten times the simulated slots; ``workers``: processes (0 = all cores); the figures depend only
    on ``seed``. Returns a :class:`~switchq.outcome.Validation` (``verdict``, ``headline``, ``rows``).

    The names it takes, from the declarations.
    """
    from .suites import run_suite

    if name != "all" and name not in registry.suites():
        raise InputError("name", name, "all, or a suite of switchq validate: " + ", ".join(registry.suites()))
    full, progress = _flag("full", full), _flag("progress", progress)
    seed, workers = _run_option("seed", seed), _run_option("workers", workers)
    return Validation(name, run_suite(name, seed=seed, workers=workers, scale=10.0 if full else 1.0,
                                      progress=progress))


def report(name: str = "all", /, *, out="reports", quick: bool = False, workers: int = 0, seed: int = 1,
           store=_DEFAULT, precision: float | None = None, max_replications: int | None = None) -> Written:
    """Rebuild the report ``name`` (or ``all``) into ``out``: markdown, plots and its verdict record, as
    ``switchq report NAME``.

    ``quick``: shorter simulations (a smoke test, not for committing); ``store``: the result store its
    simulated points are kept in and reused from (default ``$SWITCHQ_STORE`` or ``./switchq-results.sqlite``,
    None for none); ``precision``: run every point until its main figure's 95 % half-width is within this
    share of its value (at most ``max_replications``, default 200). Returns a :class:`~switchq.outcome.Written`.

    The names it takes, from the declarations.
    """
    from .reports import build_report
    from .store import default_path

    if name != "all" and name not in registry.reports():
        raise InputError("name", name, "all, or a report of switchq report: " + ", ".join(registry.reports()))
    quick = _flag("quick", quick)
    seed, workers = _run_option("seed", seed), _run_option("workers", workers)
    precision, max_replications = _run_option("precision", precision), _run_option("max_replications", max_replications)
    if max_replications is not None and precision is None:
        raise InputError("max_replications", max_replications, "only with precision")
    target = {"precision": precision, "max_replications": max_replications} if precision is not None else None
    written = build_report(name, Path(out), quick=quick, workers=workers, seed=seed,
                           store=default_path() if store is _DEFAULT else store, target=target)
    return Written(name, written)


# ---------------------------------------------------------------------------- help lists the models

def _listing(verb: str) -> str:
    """The models of ``verb`` with their parameters, as a literal block: ``help(switchq.solve)`` lists them."""
    lines = []
    if verb in ("solve", "size"):
        for command, (answer, _) in registry.entries(verb).items():
            names = ", ".join(p.name for p in answer_params(answer))
            lines.append(f"{command}: {answer.summary}\n        ({names})")
    elif verb == "simulate":
        for name, d in registry.entries(verb).items():
            names = ", ".join(p.name for p in d.all_params())
            runs = ", ".join(p.name for p in d.run_params())
            lines.append(f"{name}: {d.summary}\n        ({names}; run: {runs})")
    elif verb == "validate":
        lines = [f"{suite}: {len(cases)} case(s)" for suite, cases in registry.suites().items()]
    else:
        lines = list(registry.reports())
    return "\n".join("    " + line for line in lines)


for _verb, _function in (("solve", solve), ("size", size), ("simulate", simulate), ("validate", validate),
                         ("report", report)):
    # Where the docstring says "The names it takes", the list itself, from the declarations, as a literal block.
    _function.__doc__ = _function.__doc__.replace(
        _NAMES, _NAMES[:-2] + "::\n\n" + "\n".join("    " + line for line in _listing(_verb).splitlines()) + "\n")
