"""Every declared architecture and answer keeps the same contract, discovered from the registry.

Nothing here lists architectures: a new declaration in ``switchq.architectures``
is tested by adding it. Simulations are short (a few hundred slots): these are
contracts, not figures; the validation cases (the last tests) are the figures.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import shlex

import pytest
from click.testing import CliRunner

from switchq import registry
from switchq.cli import app
from switchq.declaration import CYCLES, SLOTS
from switchq.errors import InputError
from switchq.validate import kernel as K
from switchq.validate.harness import RunSettings, run

DECLARATIONS = list(registry.declarations().values())
SIMULATED = [d for d in DECLARATIONS if d.simulated]
ANSWERS = [(a, d) for a, d in registry.answers().values()]
CASES = [(case, d) for cases in registry.suites().values() for case, d in cases]
SMALL = RunSettings(slots=300, warmup_slots=50, replications=3, seed=5)


def _name(x):
    return getattr(x, "name", None) or getattr(x[0], "label", None) or x[0].name


def _sample(d):
    return {**d.defaults(), **{k: d.param(k).parse(v) for k, v in d.sample.items()}}


def _numeric(v):
    if isinstance(v, bool) or v is None:
        return False
    if isinstance(v, (int, float)):
        return True
    return isinstance(v, list) and any(_numeric(x) for x in v)


def test_the_registry_finds_every_family():
    families = {d.family for d in DECLARATIONS}
    assert {"switch", "network", "collective", "link"} <= families
    assert len({d.name for d in DECLARATIONS}) == len(DECLARATIONS)


@pytest.mark.parametrize("d", SIMULATED, ids=_name)
def test_counters_are_conserved(d):
    # Every cell (packet) accepted is delivered or still inside at the end; drops are counted apart.
    system, workload = d.build(_sample(d))
    d.check(system, workload)
    kernel = importlib.import_module(d.kernel)
    for seed in (1, 2):
        counts = kernel.LAYOUT.named(kernel.replicate(system, workload, K.Run(slots=300, warmup=50, drain=0,
                                                                              seed=seed)))
        if "arrived" in counts:
            assert counts["arrived"] == counts["delivered"] + counts["queued"], counts
            assert counts["m_delivered"] <= counts["delivered"] and counts["dropped"] >= 0
        else:  # one collective per replication: a time, not a flow
            assert all(v > 0 for v in counts.values()), counts


@pytest.mark.parametrize("d", SIMULATED, ids=_name)
def test_same_numbers_whatever_the_number_of_workers(d):
    system, workload = d.build(_sample(d))
    one = run(d, system, workload, SMALL).to_dict()
    two = run(d, system, workload, dataclasses.replace(SMALL, workers=2)).to_dict()
    for r in (one, two):
        r.pop("wall_seconds")
        r.pop("workers", None)
    # As JSON text: a figure a run cannot measure is NaN, and NaN != NaN.
    assert json.dumps(one, sort_keys=True, default=str) == json.dumps(two, sort_keys=True, default=str)


@pytest.mark.parametrize("d", [d for d in SIMULATED if d.slotted], ids=_name)
def test_one_long_run_gives_batch_means_that_add_up(d):
    # Batch means (-r 1): the batches' counters are the one run's, cut at the batch edges, so the
    # throughput of the whole window is the mean of the batches' throughputs (equal batches).
    system, workload = d.build(_sample(d))
    one = run(d, system, workload, RunSettings(slots=1000, warmup_slots=50, replications=1, batches=5, seed=5))
    whole = run(d, system, workload, RunSettings(slots=1000, warmup_slots=50, replications=2, seed=5))
    assert one.settings.batches == 5 and len(one.per_replication["throughput"]) == 5
    assert one.seeds == whole.seeds[:1]
    first = whole.per_replication["throughput"][0]   # the same run (seed), measured whole
    assert sum(one.per_replication["throughput"]) / 5 == pytest.approx(first, rel=1e-12)
    assert one.throughput.low <= one.throughput.value <= one.throughput.high


@pytest.mark.parametrize("d", SIMULATED, ids=_name)
def test_every_simulated_field_has_a_unit(d):
    assert all(m.unit for m in d.metrics) and all(c.unit for c in d.counters)
    system, workload = d.build(_sample(d))
    r = run(d, system, workload, SMALL)
    numeric = [k for k, v in r.to_dict().items() if _numeric(v)]
    assert set(numeric) <= set(r.units), sorted(set(numeric) - set(r.units))


@pytest.mark.parametrize("a, d", ANSWERS, ids=lambda x: getattr(x, "name", ""))
def test_every_answer_field_has_a_unit_and_its_examples_run(a, d):
    assert a.examples, f"{a.name} shows no example"
    for example in a.examples:
        args = shlex.split(example)[1:]
        result = CliRunner().invoke(app, args + (["--json"] if "--json" not in args else []))
        assert result.exit_code == 0, (example, result.output, result.exception)
        out = json.loads(result.output)
        for payload in out if isinstance(out, list) else [out]:
            numeric = [k for k, v in payload.items() if k != "units" and _numeric(v)]
            assert set(numeric) <= set(payload["units"]), (example, sorted(set(numeric) - set(payload["units"])))


@pytest.mark.parametrize("d", SIMULATED, ids=_name)
def test_the_simulate_examples_run(d):
    assert d.examples, f"{d.name} shows no example"
    short = ([d.clock.params[0].option, "200", "--warmup", "50"] if d.slotted else []) + ["-r", "2"]
    for example in d.examples:
        result = CliRunner().invoke(app, shlex.split(example)[1:] + short)
        assert result.exit_code == 0, (example, result.output, result.exception)


def _params():
    seen = {}
    for d in DECLARATIONS:
        for p in d.all_params():
            seen[f"{d.name}:{p.name}"] = p
        for a in d.answers:
            for p in a.params:
                seen[f"{a.name}:{p.name}"] = p
    return sorted(seen.items())


def _outside(p, edge, side):
    step = 1 if p.kind in ("int", "cells", "size") else max(abs(edge) * 1e-6, 1e-9)
    return edge - step if side == "low" else edge + step


@pytest.mark.parametrize("key, p", _params(), ids=[k for k, _ in _params()])
def test_every_range_rejects_its_edges_in_one_line(key, p):
    if p.kind == "choice":
        with pytest.raises(InputError) as e:
            p.parse("no-such-choice", p.option)
        assert e.value.parameter == p.option and "\n" not in str(e.value)
        return
    for side, edge, is_open in (("low", p.low, p.low_open), ("high", p.high, p.high_open)):
        if edge is None or p.kind not in ("int", "float", "cells", "size", "time", "length", "rate", "speed",
                                          "frequency", "floats"):
            continue
        bad = edge if is_open else _outside(p, edge, side)
        with pytest.raises(InputError) as e:
            p.parse(bad if p.kind != "floats" else str(bad), p.option)
        line = str(e.value)
        assert e.value.parameter == p.option and "\n" not in line and line.startswith(f"{p.option}: got ")
        if not is_open:
            p.parse(edge if p.kind != "floats" else str(edge), p.option)   # the edge itself is allowed


@pytest.mark.parametrize("verb", ["solve", "simulate", "size", "sweep"])
def test_no_command_spells_two_options_alike(verb):
    # A model parameter, a run option and a sweep option share one namespace per command: a clash (the
    # router's --scheduler against Dask's) would make click read one as the other.
    group = app.commands[verb]
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        spellings = [o for param in command.params for o in (*getattr(param, "opts", []),
                                                             *getattr(param, "secondary_opts", []))]
        assert len(spellings) == len(set(spellings)), (verb, name, sorted(s for s in spellings
                                                                         if spellings.count(s) > 1))
        assert "Example" in (command.help or ""), (verb, name)


def _options(command) -> set:
    return {o for param in command.params for o in getattr(param, "opts", [])}


@pytest.mark.parametrize("d", SIMULATED, ids=_name)
def test_run_options_come_from_the_clock(d):
    # simulate and sweep offer the same run options, derived from the declared clock: a run in simulated
    # seconds has no --slots, a flit-level network counts --cycles.
    simulate = _options(app.commands["simulate"].get_command(None, d.name))
    run_options = {o for p in d.run_params() for o in p.options}
    assert run_options <= simulate
    clocks = {o for c in (SLOTS, CYCLES) for p in c.params for o in p.options}
    assert simulate & clocks == ({o for p in d.clock.params for o in p.options} if d.slotted else set())
    for name, model in registry.MODELS.items():
        if model.declaration is d and model.build is not None:
            sweep = _options(app.commands["sweep"].get_command(None, name))
            assert {o for o in run_options if o not in ("--batches",)} <= sweep, name
            assert sweep & clocks == simulate & clocks - {"--batches"}, name
    assert set(d.settings_shown) <= set(d.units_of()) | {"workers"}


@pytest.mark.parametrize("d", [d for d in SIMULATED if d.bench], ids=_name)
def test_bench_rates_are_per_the_declared_size_and_clock(d):
    assert d.param(d.size).unit in ("ports", "nodes")
    assert d.bench_unit() == ("s" if not d.slotted else f"{d.param(d.size).unit[:-1]}-{d.clock.unit}/s")


def _applies():
    """Every condition of every parameter declared to apply only with another, with the command and the registry
    model (for the sweeps) whose parameter set it sits in (values: tests/test_applies_models.py)."""
    from test_applies_models import applies_cases

    where = {f"simulate:{d.name}": (d.name, d.all_params()) for d in DECLARATIONS}
    where.update({f"{a.verb}:{a.command}": (a.name, a.params) for d in DECLARATIONS for a in d.answers})
    return [(key, (where[":".join(key.split(":")[:2])][0], *case))
            for key, case in applies_cases((k, params) for k, (_, params) in where.items())]


_APPLIES = _applies()


@pytest.mark.parametrize("key, case", _APPLIES, ids=[k for k, _ in _APPLIES])
def test_a_parameter_set_where_it_does_not_apply_is_refused_naming_both_options(key, case):
    from test_applies_models import OMIT, condition_values, inside, other_text, valid_text

    from switchq.params import Above, applies_conditions

    model, params, p, index = case
    verb, command = key.split(":")[:2]
    by_name = {q.name: q for q in params}
    for name, allowed in applies_conditions(p):
        q = by_name.get(name)
        assert q is not None, f"{p.name} applies by {name}, which {command} does not take"
        for v in () if isinstance(allowed, Above) else allowed:     # None: the condition left at its default
            assert q.default is None if v is None else q.parse(v, q.option) == v, (name, allowed)
    given = condition_values(params, p, index)
    if given is None:
        return                                                       # the condition holds whatever it is
    condition = by_name[applies_conditions(p)[index][0]]
    cli = {q.name for q in params if verb == "simulate" or "analytic" in q.modes}
    if set(given) <= cli:
        texts = {**{q.name: valid_text(q) for q in params if q.required and q.name in cli}, **given}
        args = [a for n, t in texts.items() for a in ((by_name[n].option, t) if by_name[n].kind != "flag" else
                                                      (by_name[n].option,) if t == "true" else ())]
        result = CliRunner().invoke(app, [verb, command, *args])
        # The CLI's main() prints an InputError as this one line and exits 2 (test_cli checks that part).
        assert isinstance(result.exception, InputError), (args, result.output, result.exception)
        line = str(result.exception)
        assert line.startswith(f"{p.option}: got ") and "allowed: only " in line and condition.option in line, line
    # The sweeps (and through them the Python API) refuse it the same way.
    from switchq.sweeps import plan_points

    m = registry.MODELS.get(model)
    simulate = m is not None and m.build is not None and "simulated" in p.modes
    if m is not None and set(given) <= {q.name for q in m.params} and (
            simulate or m.analytic is not None and all("analytic" in by_name[n].modes for n in given)):
        point = {**{q.name: valid_text(q) for q in m.params if q.required}, **given}
        with pytest.raises(InputError) as e:
            plan_points(model, [point], simulate=simulate, check=False)
        line = str(e.value)
        assert line.startswith(f"{p.option}: got ") and "allowed: only " in line and condition.option in line, line
    # Where it applies, the same value is taken.
    if verb == "simulate":
        from switchq.cli_verbs import read_params

        held = {**{q.name: valid_text(q) for q in params if q.required},
                **{n: inside(by_name[n], a) for n, a in applies_conditions(p)}, p.name: other_text(p)}
        row = read_params(params, {k: v for k, v in held.items() if v is not OMIT})[0]
        assert row[p.name] == p.parse(other_text(p), p.option), held


@pytest.mark.parametrize("case, d", CASES, ids=lambda x: getattr(x, "label", ""))
def test_validation_case_agrees(case, d):
    # The declared cases at the quick budget of `switchq validate`, seed 1: deterministic, so a row either agrees
    # every time or fails every time. Each is judged at the family level (a correct simulator shows a false defect
    # among all rows with probability 5 %), with replications added up to 4x when its interval does not decide.
    from switchq.validate.cases import run_case

    row = run_case(case, d, len(CASES), seed=1, workers=1)
    assert row.verdict == "agree", row
    assert math.isfinite(row.simulated) and row.interval[0] <= row.simulated <= row.interval[1]


def test_a_wrong_analytic_value_disagrees_and_fails_validate(monkeypatch):
    from switchq import suites
    from switchq.validate.cases import run_case

    case, d = CASES[0]
    wrong = dataclasses.replace(case, analytic=lambda: (case.analytic()[0] + 0.25, "deliberately wrong"))
    row = run_case(wrong, d, len(CASES), seed=1, workers=1, scale=0.1)
    assert row.verdict == "defect"
    monkeypatch.setattr(suites, "run_suite", lambda *a, **k: [row])
    result = CliRunner().invoke(app, ["validate", case.suite, "--json", "-j", "1"])
    assert result.exit_code == 1 and json.loads(result.output)["verdict"] == "defect"


@pytest.mark.parametrize("a, d", [(a, d) for a, d in ANSWERS if "terms" in a.result_names()],
                         ids=lambda x: getattr(x, "name", ""))
def test_a_sizing_answer_is_the_sum_of_its_terms_each_with_a_source(a, d):
    # The page stacks the terms under the answer's main figure (switchq serve): they must add up to it.
    for example in a.examples:
        out = json.loads(CliRunner().invoke(app, shlex.split(example)[1:] + ["--json"]).output)
        for payload in out if isinstance(out, list) else [out]:
            terms, unit = payload["terms"], payload["units"]["terms"]
            assert set(payload["term_sources"]) == set(terms) and all(payload["term_sources"].values())
            total, figure = sum(terms.values()), payload[a.main_result()]
            assert payload["units"][a.main_result()] == unit, (example, unit, payload["units"][a.main_result()])
            # A buffer is whole bytes: the figure may be the sum rounded up (PFC's cable term is fractional).
            assert math.isclose(total, figure, rel_tol=1e-9) or figure == math.ceil(total - 1e-9), \
                (example, total, figure)


def _swept():
    """Each simulated declaration with the sweep model that simulates it (its own name first)."""
    for d in SIMULATED:
        names = sorted((n for n, m in registry.MODELS.items() if m.declaration is d and m.build is not None),
                       key=lambda n: n != d.name)
        if names:
            yield pytest.param(d, names[0], id=d.name)


@pytest.mark.parametrize("d, name", list(_swept()))
def test_a_sweep_runs_its_sample_point_under_its_clock(d, name):
    # A sweep of any clock (slots, cycles, simulated seconds, rounds) runs the point simulate runs: same numbers.
    from switchq.sweeps import run_points

    slots = dict(slots=SMALL.slots, warmup=SMALL.warmup_slots) if d.slotted else {}
    (row,) = run_points(name, [d.sample], replications=5, seed=SMALL.seed, workers=1, **slots)
    system, workload = d.build(_sample(d))
    direct = run(d, system, workload, dataclasses.replace(SMALL, replications=5)).to_dict()
    # The store keeps JSON: a figure the run could not measure (NaN) comes back as null.
    assert json.dumps(row[d.main]) == json.dumps(direct[d.main], default=str).replace("NaN", "null")
