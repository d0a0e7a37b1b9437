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
        counts = kernel.LAYOUT.named(kernel.replicate(system, workload, K.Run(300, 50, 0, seed)))
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


@pytest.mark.parametrize("d", [d for d in SIMULATED if "slots" in d.settings_shown], ids=_name)
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
    short = (["--slots", "200", "--warmup", "50"] if "slots" in d.settings_shown else []) + ["-r", "2"]
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


@pytest.mark.parametrize("verb", ["solve", "simulate", "size"])
def test_no_command_spells_two_options_alike(verb):
    group = app.commands[verb]
    for name in group.list_commands(None):
        command = group.get_command(None, name)
        spellings = [o for param in command.params for o in getattr(param, "opts", [])]
        assert len(spellings) == len(set(spellings)), (verb, name, spellings)
        assert "Example" in (command.help or ""), (verb, name)


@pytest.mark.parametrize("case, d", CASES, ids=lambda x: getattr(x, "label", ""))
def test_validation_case_agrees(case, d):
    # The declared cases at the quick budget of `switchq validate`, seed 1: deterministic, so a row
    # either agrees (or is marginal, within the 99.9 % interval) every time or fails every time.
    from switchq.validate.suites import run_case

    row = run_case(case, d, seed=1, workers=1)
    assert row.verdict in ("agree", "marginal"), row
    assert math.isfinite(row.simulated) and row.ci95[0] <= row.simulated <= row.ci95[1]


def test_a_wrong_analytic_value_disagrees_and_fails_validate(monkeypatch):
    from switchq.validate import suites

    case, d = CASES[0]
    wrong = dataclasses.replace(case, analytic=lambda: (case.analytic()[0] + 0.25, "deliberately wrong"))
    row = suites.run_case(wrong, d, seed=1, workers=1, scale=0.1)
    assert row.verdict == "DISAGREE"
    monkeypatch.setattr(suites, "run_suite", lambda *a, **k: [row])
    result = CliRunner().invoke(app, ["validate", case.suite, "--json", "-j", "1"])
    assert result.exit_code == 1 and json.loads(result.output)["verdict"] == "DISAGREE"
