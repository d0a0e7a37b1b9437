"""The statistics every verdict stands on (issue "Verdicts that prove"): bounded intervals, precision targets,
paired comparisons, and the claims engine's refusals. Each regression test names what it failed on before.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from switchq import registry
from switchq.models import Traffic
from switchq.api import Switch, simulate
from switchq.validate.harness import RunSettings, run
from switchq.validate.reports import claims
from switchq.validate.result import Estimate

SIMULATED = [d for d in registry.declarations().values() if d.simulated]


def _sample(d):
    return {**d.defaults(), **{k: d.param(k).parse(v) for k, v in d.sample.items()}}


def _inside(e: Estimate, bounds) -> bool:
    low, high = bounds
    ends = [x for x in (e.value, e.low, e.high) if math.isfinite(x)]
    return all((low is None or x >= low) and (high is None or x <= high) for x in ends)


# ------------------------------------------------------------------ bounded intervals

@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.sampled_from(SIMULATED), seed=st.integers(0, 2**31), replications=st.sampled_from([2, 3, 5]))
def test_every_interval_lies_inside_what_its_figure_can_be(d, seed, replications):
    # Short runs with few replications are where a Student-t interval reaches past a bound (a share above 1,
    # a latency below 0): whatever the architecture, the interval must be cut there.
    system, workload = d.build(_sample(d))
    kw = dict(slots=400, warmup_slots=50) if d.slotted else {}
    r = run(d, system, workload, RunSettings(replications=replications, seed=seed, **kw))
    for m in d.metrics:
        e = r.metrics.get(m.name)
        for one in (e if isinstance(e, tuple) else (e,)):
            if one is not None:
                assert _inside(one, m.bounds), (m.name, one, m.bounds)


def test_the_readme_voq_example_has_no_interval_above_one():
    # Before: carried_share 0.999992, 95 % CI 0.999911 .. 1.00007 (README's VOQ example).
    r = simulate(Switch(n_ports=8, architecture="voq", matching="islip"), Traffic(load=0.7),
                 RunSettings(slots=20_000, replications=4, seed=3))
    for name in ("throughput", "carried_share", "output_utilization", "loss_probability"):
        assert r.metrics[name].high <= 1.0 and r.metrics[name].low >= 0.0, name
    assert r.carried_share.method == "clipped"      # its Student-t interval did reach past 1 for this seed


# ------------------------------------------------------------------ precision targets

def test_a_precision_target_adds_replications_until_met():
    # Done-when of the issue: voq 16 at 0.8 to 0.2 %. The target here is 0.05 % (a quarter of it), so the
    # run must add replications to the 8 it starts with: 8 replications of 5000 slots give about 0.1 %.
    r = simulate(Switch(n_ports=16, architecture="voq", matching="islip"), Traffic(load=0.8),
                 RunSettings(slots=5000, replications=8, seed=2, precision=0.0005))
    e = r.throughput
    assert r.labels["precision_met"] is True
    assert r.settings.replications > 8
    assert e.half_width <= 0.0005 * e.value
    assert r.to_dict()["replications"] == r.settings.replications == len(r.per_replication["throughput"])


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.sampled_from(SIMULATED), seed=st.integers(0, 2**31), precision=st.sampled_from([0.5, 0.05, 1e-4]))
def test_a_precision_target_is_met_or_the_result_says_it_was_not(d, seed, precision):
    system, workload = d.build(_sample(d))
    kw = dict(slots=400, warmup_slots=50) if d.slotted else {}
    r = run(d, system, workload, RunSettings(replications=5, seed=seed, precision=precision, max_replications=9,
                                             **kw))
    e = r.metrics[d.main]
    if r.labels["precision_met"]:
        for one in (e if isinstance(e, tuple) else (e,)):
            assert not math.isfinite(one.value) or one.half_width <= precision * abs(one.value) + 1e-12
    else:
        assert any(n.startswith("precision target not met") for n in r.notes)
        assert r.settings.replications == 9 or r.unstable


def test_a_precision_target_out_of_reach_says_so():
    r = simulate(Switch(n_ports=8, architecture="oq"), Traffic(load=0.5),
                 RunSettings(slots=500, replications=5, seed=2, precision=1e-6, max_replications=12))
    assert r.labels["precision_met"] is False and r.settings.replications == 12
    assert any("precision target not met after 12 replications" in n for n in r.notes)


def test_a_precision_target_gives_the_same_numbers_whatever_the_workers():
    s = RunSettings(slots=2000, replications=5, seed=9, precision=0.001)
    one = simulate(Switch(n_ports=8, architecture="oq"), Traffic(load=0.6), s)
    two = simulate(Switch(n_ports=8, architecture="oq"), Traffic(load=0.6), dataclasses.replace(s, workers=2))
    assert one.settings.replications == two.settings.replications > 5
    assert one.per_replication == two.per_replication


def test_precision_options_are_checked_in_one_line():
    from switchq.errors import InputError

    with pytest.raises(InputError, match="precision"):
        RunSettings(precision=0.0)
    with pytest.raises(InputError, match="replications"):
        RunSettings(replications=1, precision=0.01)
    with pytest.raises(InputError, match="precision_metrics"):
        simulate(Switch(n_ports=4, architecture="oq"), Traffic(load=0.5),
                 RunSettings(slots=500, replications=5, precision=0.1, precision_metrics="latency"))


# ------------------------------------------------------------------ paired comparisons

def test_paired_difference_is_the_difference_of_means_and_narrower_on_a_known_ordering():
    # iSLIP with 1 and with 4 iterations at load 0.8: both deterministic schedulers, so with the same seeds
    # they see the same arrivals; their throughputs then move together (correlation 0.98 measured) and the
    # paired interval of the difference is about ten times narrower than the unpaired (Welch) one.
    s = RunSettings(slots=20_000, replications=8, seed=3)
    rows = [simulate(Switch(n_ports=16, architecture="voq", matching="islip", iterations=k), Traffic(load=0.8),
                     s).to_dict() for k in (1, 4)]
    d = claims.paired(rows[0], rows[1], "throughput")
    a, b = (np.array(r["throughput_samples"]) for r in rows)
    assert d.value == pytest.approx(a.mean() - b.mean(), abs=1e-12)
    welch = 2.365 * math.sqrt(a.var(ddof=1) / 8 + b.var(ddof=1) / 8)    # t(0.975, 7) ~ Welch's df here
    assert d.half_width < welch / 3
    # And the ordering in latency (one iteration waits longer) is seen by the paired interval.
    lat = claims.paired(rows[0], rows[1], "mean_latency")
    assert lat.low > 0
    assert claims.at_least(lat, 0.0, compares=True) == claims.AGREE


def test_paired_refuses_rows_without_common_random_numbers():
    a = {"x_samples": [1.0] * 5, "seed": 1, "replications": 5}
    with pytest.raises(claims.ClaimError, match="seed"):
        claims.paired(a, {**a, "seed": 2}, "x")


# ------------------------------------------------------------------ the claims engine's rule

def test_the_claims_engine_refuses_two_replications():
    # Before: hipiqs §5.5's central buffer 0.909 ± 0.667 from two replications was judged.
    with pytest.raises(claims.ClaimError, match="at least 5"):
        claims.within(Estimate(0.909, 0.242, 1.576, n=2), 0.9, 0.05)


def test_the_claims_engine_refuses_point_values():
    # Before: hipiqs Fig. 11 judged 0.9553 against 0.9538 with a bare ">".
    with pytest.raises(claims.ClaimError, match="bare number"):
        claims.at_least(0.9553, 0.9538)


def test_the_claims_engine_refuses_an_unpaired_comparison():
    # Before: Table V's latency rising with the real-time share compared independent draws.
    with pytest.raises(claims.ClaimError, match="paired"):
        claims.at_least(Estimate(0.1, 0.05, 0.15, n=8), 0.0, compares=True)


def test_the_headline_counts_the_default_reading_by_class():
    Exact = claims.Exact
    v = [claims.within(Exact(1.0), 1.0, 0.0),
         claims.within(Exact(2.0), 1.0, 0.0, not_about=claims.Quote("§3.1", "WBA [19] saturates at 0.22")),
         claims.within(Exact(2.0), 1.0, 0.0, reading="eager")]
    assert claims.tally(v) == "1 of 2"
    assert claims.by_class(v) == ("1 agree, 0 inconclusive, 0 defects, 0 ambiguities, 0 not reproducible, 1 not a "
                                  "claim about this model")


# ------------------------------------------------------------------ critical load

@pytest.mark.parametrize("architecture, extra", [("oq", {}), ("cioq", {"speedup": 2})])
@pytest.mark.parametrize("slots", [20_000, 160_000])
def test_critical_load_is_unstable(architecture, extra, slots):
    # Before: `simulate oq --ports 16 --load 1.0 --slots 160000 -r 4` said unstable: false with a mean wait of
    # 229 (81 at 20k slots), growing like the square root of the run; the cioq equivalent the same. The
    # backlog rules cannot see it; the trend of the mean latency does (growth exponent 0.50 > 0.375).
    from click.testing import CliRunner

    from switchq.cli import app

    args = ["simulate", architecture, "--ports", "16", "--load", "1.0", "--slots", str(slots), "-r", "4", "--json"]
    for k, v in extra.items():
        args += [f"--{k}", str(v)]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 0, out.output
    import json

    d = json.loads(out.output)
    assert d["unstable"] is True and "growth exponent" in d["unstable_because"]
    assert 0.44 <= d["latency_trend_exponent"] <= 0.6       # sqrt growth; 40 seeds gave 0.44-0.58


def test_one_replication_answers_like_four_at_critical_load():
    # -r 1 (20 batches of one run) against -r 4 (10 segments each): both flag oq at load 1.0; over 40 seeds the
    # one-run test misses 1 (tests/test_stability_trend.py).
    for r in (1, 4):
        res = simulate(Switch(n_ports=16, architecture="oq"), Traffic(load=1.0),
                       RunSettings(slots=80_000, replications=r, seed=4))
        assert res.unstable, r


# ------------------------------------------------------------------ a review's findings

def test_runs_taken_to_different_counts_pair_on_the_replications_they_share():
    # Under a precision target two configurations stop at different counts; replication r has the same seed in
    # both, so the first min(n_a, n_b) pair.
    a = {"x_samples": [1.0, 1.2, 0.9, 1.1, 1.0, 1.3, 0.8], "seed": 3, "replications": 7}
    b = {"x_samples": [0.9, 1.1, 0.8, 1.0, 0.95], "seed": 3, "replications": 5}
    d = claims.paired(a, b, "x")
    assert d.n == 5 and d.value == pytest.approx(0.09)
    with pytest.raises(claims.ClaimError, match="seed"):
        claims.paired({"x_samples": [1.0] * 5}, {"x_samples": [2.0] * 5}, "x")


def test_an_estimate_cannot_pass_as_exact():
    with pytest.raises(claims.ClaimError, match="not exact"):
        claims.Exact(Estimate(0.54, 0.3, 0.8, n=2))


def test_a_long_warm_up_is_said_to_leave_the_trend_unjudged():
    # Warm-up as long as the run: the time since the start grows under 3x across the segments, too little to
    # read an exponent from; the result says so instead of passing in silence.
    r = simulate(Switch(n_ports=16, architecture="oq"), Traffic(load=1.0),
                 RunSettings(slots=20_000, warmup_slots=20_000, replications=5, seed=1))
    assert r.labels["latency_trend_judged"] is False and "not judged" in r.labels["latency_trend_not_judged"]


def test_a_clipped_interval_holding_the_exact_value_agrees_in_a_validate_row():
    # carried_share 0.99999, t interval 0.99991 .. 1.00007 cut at 1: it holds the exact 1 and is narrow.
    from switchq.validate.compare import compare

    row = compare("s", "c", "carried_share", "1", 1.0, "exact",
                  Estimate(0.99999, 0.99991, 1.0, n=8, method="clipped", stable=True), RunSettings(),
                  precision=0.001)
    assert row.verdict == "agree"
