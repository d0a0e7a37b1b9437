"""``switchq sweep`` and ``switchq.sweep``: grids, checks before work, values, reuse, seeds, Dask, outputs."""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import subprocess
import sys

import pytest
from click.testing import CliRunner

import switchq
from switchq import registry
from switchq.cli_sweep import results_command, sweep_group
from switchq.errors import InputError
from switchq.sweeps import plan_sweep, point_seed, run_sweep, values
from switchq.store import simulator_version

engine = importlib.import_module("switchq.sweeps.engine")
sweeps = importlib.import_module("switchq.sweeps")


def v(model, name, spec):
    return values(registry.get(model).param(name), spec, f"--vary {name}")


def cli(group, *args):
    result = CliRunner().invoke(group, list(args), catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def sweep_json(*args):
    return json.loads(cli(sweep_group, *args, "--json").stdout)


def strip(rows):
    return [{k: x for k, x in r.items() if k not in ("wall_seconds", "cached")} for r in rows]


# ----------------------------------------------------------------------------- grid syntax

def test_grid_lists_ranges_and_logs():
    assert v("oq", "load", "0.1:1.0:0.05") == [round(0.1 + 0.05 * i, 2) for i in range(19)]
    assert v("oq", "load", "0.1:0.9:0.1,0.95,0.1") == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
    assert v("oq", "ports", "4,8,16,32") == [4, 8, 16, 32]
    assert v("oq", "ports", "2:5") == [2, 3, 4, 5]
    assert v("oq", "ports", "4:64:*2") == [4, 8, 16, 32, 64]
    assert v("oq", "ports", "64:4:*0.5") == [64, 32, 16, 8, 4]
    assert v("oq", "ports", "10:1:-3") == [10, 7, 4, 1]
    assert v("oq", "load", "1e-3..1:4") == [0.001, 0.01, 0.1, 1.0]
    assert v("oq", "ports", "1..1000:4") == [1, 10, 100, 1000]
    assert v("oq", "ports", "1..4:10") == [1, 2, 3, 4]                       # integers: rounded, de-duplicated
    assert v("oq", "ports", "16.0") == [16] and v("oq", "load", "1") == [1.0]  # canonical types
    assert v("oq", "buffer", "none,2,4") == [None, 2, 4]
    assert v("voq", "matching", "pim,islip") == ["pim", "islip"]
    assert v("cicq", "replacement", "true,false") == [True, False]
    assert v("size-credit", "cable", "10m:30m:10m") == [10.0, 20.0, 30.0]
    assert v("size-credit", "cable", "100ft,20m") == [30.48, 20.0]
    assert v("size-credit", "cell", "64B,2048b") == [512, 2048]
    assert v("size-credit", "rtt", "100ns..10us:3") == [1e-7, 1e-6, 1e-5]
    assert v("oq", "load", [0.5, 0.8]) == [0.5, 0.8]                       # Python values


@pytest.mark.parametrize("model, name, spec, needle", [
    ("oq", "load", "0.5:0.1:0.1", "non-empty range"),
    ("oq", "load", "0.1:0.9", "a step is needed"),
    ("oq", "load", "0.1:0.9:0", "STEP != 0"),
    ("oq", "load", "", "one or more values"),
    ("oq", "load", "0.1,,0.2", "one or more values"),
    ("oq", "load", "abc", "a number in [0, 1]"),
    ("oq", "load", "0.5,1.5", "a number in [0, 1]"),
    ("oq", "ports", "0:4", "an integer >= 1"),
    ("oq", "ports", "4.5", "an integer"),
    ("oq", "ports", "0..10:3", "A, B > 0"),
    ("oq", "ports", "4:64:*1", "FACTOR > 0, != 1"),
    ("voq", "matching", "pim:islip", "one of pim, islip"),
    ("size-credit", "cable", "10:20:5", "a length"),
    ("size-credit", "cell", "12.5bit", "whole number of bits"),
])
def test_bad_grids_are_named_in_one_line(model, name, spec, needle):
    with pytest.raises(InputError) as err:
        v(model, name, spec)
    assert str(err.value).startswith(f"--vary {name}: got ") and needle in str(err.value)
    assert "\n" not in str(err.value)


# ----------------------------------------------------------------------------- checked before any work

@pytest.mark.parametrize("model, vary, fixed, needle", [
    ("oq", {"nope": "1"}, {"ports": 4}, "--vary: got 'nope'; allowed: a parameter of oq"),
    ("oq", {"load": "0.5:0.1:0.1"}, {"ports": 4}, "--vary load"),
    ("oq", {"load": "0.5,0.99,1.0"}, {"ports": 4}, "--vary load: got 1.0"),          # unbounded queue at load 1
    ("oq", {"load": "0.5"}, {}, "--ports: got None"),                                 # required
    ("oq", {"load": "0.5", "ports": "4"}, {"ports": 4}, "either --ports or --vary ports"),
    ("voq", {"ports": "4"}, {"load": 0.5}, "--load: got 0.5; allowed: only with --simulate"),
    ("window", {"ports": "2:6"}, {"window": 3}, "--window: got 3"),                   # last points intractable
    ("fifo", {"ports": "4,6"}, {"load": 0.5, "pattern": "bitrev"}, "--vary ports: got 6"),
    ("size-sfc", {"ports": "4,8"}, {}, "--rtt-slots"),
    ("size-credit", {"cable": "10m,20m"}, {"link_rate": "10Gb/s", "rtt": "100ns", "cell": "64B"},
     "--vary cable: got '10m'; allowed: either --rtt or --cable"),
])
def test_bad_grid_is_rejected_before_any_work(tmp_path, monkeypatch, model, vary, fixed, needle):
    calls = []
    monkeypatch.setattr(engine, "_run_point", lambda *a: calls.append(a))
    store = tmp_path / "s.sqlite"
    with pytest.raises(InputError) as err:
        run_sweep(model, vary, fixed, store=store, workers=1)
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert calls == [] and not store.exists()


def test_bad_grid_leaves_an_existing_store_unchanged(tmp_path):
    store = tmp_path / "s.sqlite"
    run_sweep("oq", {"load": [0.5]}, {"ports": 4}, store=store)
    with pytest.raises(InputError):
        run_sweep("oq", {"load": "0.1,0.2,2"}, {"ports": 4}, store=store)
    assert len(sweeps.results_rows(store)) == 1


def test_bad_grid_cli_exits_2_with_one_line(tmp_path):
    store = tmp_path / "s.sqlite"
    p = subprocess.run([sys.executable, "-m", "switchq", "sweep", "fifo", "--vary", "ports=4,6", "--load", "0.5",
                        "--pattern", "bitrev", "--store", str(store), "--json"], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert lines == ["switchq: error: --vary ports: got 6; allowed: a power of two >= 2 for pattern bitrev "
                     "(at ports=6)"]
    assert not store.exists()


# ----------------------------------------------------------------------------- analytic values

def test_analytic_points_equal_direct_solver_calls():
    from switchq.models.link import Link
    from switchq.solvers.sizing import cicq_crossbar, link_buffer, sfc_crossbar
    from switchq.units import parse_quantity
    from switchq.solvers import cicq, hol, iq, oq, voq, window

    rows = run_sweep("oq", {"load": "0.1:0.9:0.2", "buffer": "none,4"}, {"ports": 16}, store=None).rows()
    for r in rows:
        if r["buffer"] is None:
            assert r["mean_wait"] == oq.mean_wait(16, r["load"]).mean_wait
        else:
            f = oq.finite_buffer(16, r["load"], 4)
            assert (r["loss_probability"], r["throughput"], r["mean_wait"]) == (
                f.loss_probability, f.throughput, f.mean_wait)
    for r in run_sweep("hol", {"ports": "1:12"}, store=None).rows():
        assert r["saturation_throughput"] == hol.saturation_throughput(r["ports"]).saturation_throughput
    for r in run_sweep("window", {"ports": "2,3", "window_policy": "rounds,random"}, {"window": 2},
                       store=None).rows():
        assert r["saturation_throughput"] == window.saturation_throughput(r["ports"], 2, r["window_policy"]) \
            .saturation_throughput
    for r in run_sweep("iq", {"load": "0:0.55:0.05"}, store=None).rows():
        assert r["mean_wait"] == iq.mean_wait(r["load"]).mean_wait
    for r in run_sweep("voq", {"ports": "4:64:*2", "iterations": "1:3"}, {"matching": "pim"}, store=None).rows():
        assert r["saturation_throughput"] == voq.saturation_throughput(r["ports"], "pim", r["iterations"]) \
            .saturation_throughput
    for r in run_sweep("cicq", {"burst": "1,10", "protocol": "credit,sfc"}, {"rtt_slots": 32, "crosspoint_cells": 4},
                       store=None).rows():
        e = cicq.low_load_burst_latency(r["protocol"], r["burst"], 4, 32, 16)
        assert r["low_load_burst_latency"] == e.mean_latency
        assert r["permutation_throughput"] == cicq.permutation_throughput(r["protocol"], 4, 32)
    for r in run_sweep("size-credit", {"cable": "10m:100m:30m", "vcs": "1,2"},
                       {"link_rate": "100Gb/s", "cell": "256B", "ports": 8, "per": "switch"}, store=None).rows():
        link = Link.resolve(parse_quantity("100Gb/s", "rate", "rate"), None, r["cable"], None, None, 2048)
        p, _ = link_buffer("credit", link, r["vcs"], 8, "switch")
        assert r["buffer_cells"] == p["buffer_cells"] and r["round_trip_slots"] == p["round_trip_slots"]
    for r in run_sweep("size-sfc", {"ports": "4:64:*2", "rtt_slots": "16,64"}, store=None).rows():
        p, _ = sfc_crossbar(r["ports"], r["rtt_slots"])
        assert r["total_cells_sfc"] == p["total_cells_sfc"] and r["reduction_factor"] == p["reduction_factor"]
    for r in run_sweep("size-cicq", {"rtts": "1:4"}, {"ports": 8, "link_rate": "10Gb/s", "rtt": "200ns",
                                                    "cell": "64B"}, store=None).rows():
        link = Link.resolve(10e9, parse_quantity("200ns", "time", "rtt"), None, None, None, 512)
        p, _ = cicq_crossbar(8, rtts=r["rtts"], link=link, cell_bits=512)
        assert r["total_bytes_credit_exact"] == p["total_bytes_credit_exact"]


def test_the_cli_sizing_sweep_matches_switchq_size():
    p = subprocess.run([sys.executable, "-m", "switchq", "size", "credit", "--link-rate", "10Gb/s", "--cable", "20m",
                        "--cell", "64B", "--ports", "8", "--per", "switch", "--json"], capture_output=True, text=True)
    one = json.loads(p.stdout)
    (row,) = sweep_json("size-credit", "--vary", "cable=20m", "--link-rate", "10Gb/s", "--cell", "64B", "--ports",
                        "8", "--per", "switch", "--no-store")
    for k in ("round_trip_slots", "buffer_cells", "buffer_bytes", "bandwidth_delay_bytes", "formula"):
        assert row[k] == one[k]


# ----------------------------------------------------------------------------- store reuse

def _count_analytic(monkeypatch, name):
    calls = []
    model = registry.MODELS[name]

    def counting(params):
        calls.append(params)
        return model.analytic(params)
    monkeypatch.setitem(registry.MODELS, name, dataclasses.replace(model, analytic=counting))
    return calls


@pytest.mark.parametrize("name, vary, fixed, bigger", [
    ("oq", {"load": "0.1:0.9:0.1", "ports": "4,16"}, {"buffer": 8},          # has a cheap check
     {"load": "0.1:0.9:0.1,0.95", "ports": "4,16"}),
    ("size-sfc", {"ports": "4:64:*2", "rtt_slots": "8,32,128"}, {},         # checking is computing
     {"ports": "4:128:*2", "rtt_slots": "8,32,128"}),
])
def test_rerun_reuses_every_point(tmp_path, monkeypatch, name, vary, fixed, bigger):
    calls = _count_analytic(monkeypatch, name)
    store = tmp_path / "s.sqlite"
    first = run_sweep(name, vary, fixed, store=store)
    n = len(first.records)
    assert len(calls) == n and first.computed == n and first.reused == 0
    calls.clear()
    second = run_sweep(name, vary, fixed, store=store)
    assert calls == [] and second.computed == 0 and second.reused == n
    assert strip(first.rows()) == strip(second.rows())
    third = run_sweep(name, bigger, fixed, store=store)
    assert third.reused == n and len(calls) == third.computed == len(third.records) - n > 0


def test_simulated_rerun_reuses_every_point_and_seeds_do_not_depend_on_the_grid(tmp_path, monkeypatch):
    calls = []
    real = engine._run_point
    monkeypatch.setattr(engine, "_run_point", lambda *a: calls.append(a) or real(*a))
    store = tmp_path / "s.sqlite"
    kw = dict(slots=2000, replications=2, seed=5, workers=1)
    first = run_sweep("oq", {"load": "0.3,0.6", "ports": "4,8"}, simulate=True, store=store, **kw)
    assert len(calls) == 4
    calls.clear()
    again = run_sweep("oq", {"ports": "4,8", "load": "0.3,0.6"}, simulate=True, store=store, **kw)
    assert calls == [] and again.reused == 4                      # order of --vary does not matter
    alone = run_sweep("oq", {"load": [0.6]}, {"ports": 8}, simulate=True, store=None, **kw)
    (a,) = strip(alone.rows())
    (b,) = [r for r in strip(first.rows()) if r["load"] == 0.6 and r["ports"] == 8]
    assert a == b and a["seed"] == point_seed(5, "oq", plan_sweep("oq", {"load": [0.6]}, {"ports": 8}, True,
                                                                 2000, None, 2, 5).points[0].params)
    other = run_sweep("oq", {"load": [0.6]}, {"ports": 8}, simulate=True, store=None, **dict(kw, seed=6))
    assert other.rows()[0]["seed"] != a["seed"]


def test_local_process_pool_equals_serial(tmp_path):
    kw = dict(simulate=True, slots=2000, replications=2, store=None)
    serial = run_sweep("fifo", {"load": "0.3,0.5,0.7,0.9"}, {"ports": 4}, workers=1, **kw)
    pooled = run_sweep("fifo", {"load": "0.3,0.5,0.7,0.9"}, {"ports": 4}, workers=2, **kw)
    assert strip(serial.rows()) == strip(pooled.rows())
    one = run_sweep("fifo", {"load": "0.7"}, {"ports": 4}, workers=2, **kw)   # replications spread instead
    assert strip(one.rows()) == [r for r in strip(serial.rows()) if r["load"] == 0.7]


def test_dask_local_cluster_equals_serial(tmp_path):
    distributed = pytest.importorskip("distributed")
    kw = dict(simulate=True, slots=2000, replications=2)
    vary = {"load": "0.4,0.8", "ports": "4,8"}
    serial = run_sweep("oq", vary, workers=1, store=None, **kw)
    store = tmp_path / "dask.sqlite"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  host="127.0.0.1") as cluster:
        on_dask = run_sweep("oq", vary, store=store, dask_scheduler=cluster.scheduler_address, **kw)
        p = subprocess.run([sys.executable, "-m", "switchq", "sweep", "oq", "--vary", "load=0.4,0.8", "--vary",
                            "ports=4,8", "--simulate", "--slots", "2000", "--replications", "2", "--dask-scheduler",
                            cluster.scheduler_address, "--no-store", "--json"], capture_output=True, text=True)
    assert strip(on_dask.rows()) == strip(serial.rows())
    assert on_dask.computed == 4 and len(sweeps.results_rows(store)) == 4
    assert p.returncode == 0, p.stderr
    assert strip(json.loads(p.stdout)) == strip(serial.rows())


def test_unreachable_scheduler_is_one_line(tmp_path):
    store = tmp_path / "s.sqlite"
    with pytest.raises(InputError, match="--dask-scheduler: got 'tcp://127.0.0.1:9'; allowed: the address of a running"):
        run_sweep("oq", {"load": [0.5]}, {"ports": 4}, simulate=True, slots=1000, replications=2, store=store,
                  dask_scheduler="tcp://127.0.0.1:9", connect_timeout=1.0)
    assert len(sweeps.results_rows(store)) == 0


# ----------------------------------------------------------------------------- outputs

def test_cli_json_csv_parquet_plot_and_results_round_trip(tmp_path):
    import pandas as pd

    store, csv, parquet, png = (tmp_path / n for n in ("s.sqlite", "p.csv", "p.parquet", "p.png"))
    points = sweep_json("fifo", "--vary", "load=0.3,0.6", "--vary", "ports=4,8", "--slots", "1000",
                        "--replications", "2", "--workers", "1", "--store", str(store), "--csv", str(csv),
                        "--parquet", str(parquet), "--plot", str(png))
    assert len(points) == 4 and [(p["load"], p["ports"]) for p in points] == [(0.3, 4), (0.3, 8), (0.6, 4), (0.6, 8)]
    p0 = points[0]
    assert p0["model"] == "fifo" and p0["mode"] == "simulated" and isinstance(p0["seed"], int)
    assert len(p0["throughput_ci95"]) == 2 and p0["throughput_ci95"][0] <= p0["throughput"]
    header = csv.read_text().splitlines()[0].split(",")
    assert {"load", "ports", "throughput", "throughput_low", "throughput_high", "seed"} <= set(header)
    assert "throughput_ci95" not in header
    df = pd.read_parquet(parquet)
    assert list(df["throughput_low"]) == [p["throughput_ci95"][0] for p in points]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    stored = json.loads(cli(results_command, "--store", str(store), "--json").stdout)
    assert len(stored) == 4
    for s, p in zip(sorted(stored, key=lambda r: (r["load"], r["ports"])), points):
        for k, x in p.items():
            if k not in ("cached",):
                assert s[k] == x, k
        # The simulator's fingerprint keys the point too: a changed kernel never serves an old figure.
        assert s["settings"] == {"slots": 1000, "warmup_slots": 1000, "replications": 2, "root_seed": 1,
                                 "simulator": simulator_version()}
        assert s["switchq_version"] == switchq.__version__ and s["created_at"]
    some = json.loads(cli(results_command, "--store", str(store), "--where", "load>=0.5", "--where", "ports=8",
                          "--json").stdout)
    assert [(r["load"], r["ports"]) for r in some] == [(0.6, 8)]
    table = cli(results_command, "--store", str(store)).output
    assert "fifo" in table and "4 points" in table


def test_table_analytic_output_and_plot_of_an_analytic_sweep(tmp_path):
    png = tmp_path / "oq.png"
    out = cli(sweep_group, "oq", "--vary", "load=0.1:0.9:0.2", "--vary", "buffer=2,4", "--ports", "16", "--no-store",
              "--plot", str(png), "--y", "loss_probability").output
    assert "Output queuing (analytic)" in out and "10 points: 10 computed" in out and "wrote" in out
    assert png.stat().st_size > 1000


def test_python_api_returns_a_dataframe():
    import pandas as pd

    df = switchq.sweep("oq", {"load": [0.5, 0.8]}, ports=16, store=None)
    assert isinstance(df, pd.DataFrame) and list(df["load"]) == [0.5, 0.8]
    assert df["mean_wait"].tolist() == pytest.approx([15 / 16 * 0.5 / 1.0, 15 / 16 * 0.8 / 0.4])
    assert df.attrs["sweep"]["computed"] == 2
    sim = switchq.sweep("fifo", {"load": [0.5]}, ports=4, slots=1000, replications=2, workers=1, store=None)
    assert {"throughput", "throughput_low", "throughput_high", "seed"} <= set(sim.columns)


def test_help_lists_models_and_parameters():
    out = cli(sweep_group, "--help").output
    for name in registry.MODELS:
        assert name in out
    assert "A:B:STEP" in out and "A..B:N" in out
    listing = cli(sweep_group, "oq", "--list").output
    assert "ports" in listing and "buffer" in listing and "cells" in listing
    assert "rtt_slots" in cli(sweep_group, "--list").output
    assert "--crosspoint-cells" in cli(sweep_group, "cicq", "--help").output


def test_registry_covers_the_required_models():
    for name in ("hol", "window", "oq", "iq", "voq", "fifo", "cicq", "size-credit", "size-sfc", "size-cicq"):
        m = registry.get(name)
        assert m.modes and m.main
    assert registry.get("cicq").modes == ("analytic", "simulated")
    assert registry.get("fifo").modes == ("simulated",)


def test_analytic_commands_do_not_import_dask_pandas_or_numba():
    code = ("import sys\nfrom switchq.cli import main\n"
            "def run(args):\n    try:\n        main(args)\n    except SystemExit:\n        pass\n"
            "run(['solve', 'hol', '--ports', '8', '--json'])\n"
            "run(['size', 'credit', '--link-rate', '10Gb/s', '--rtt', '200ns', '--cell', '64B', '--json'])\n"
            "heavy = ('dask', 'distributed', 'pandas', 'pyarrow')\n"
            "print('A', [m for m in heavy if m in sys.modules])\n"
            "run(['sweep', 'oq', '--vary', 'load=0.1,0.5', '--ports', '8', '--no-store', '--json'])\n"
            "print('B', [m for m in heavy + ('numba',) if m in sys.modules])\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    lines = [ln for ln in p.stdout.splitlines() if ln[:2] in ("A ", "B ")]
    assert lines == ["A []", "B []"], p.stdout + p.stderr


def test_flatten_nested_lists():
    row = {"mean_latency_by_priority": [1.0, 2.0], "mean_latency_by_priority_ci95": [[0.9, 1.1], [1.8, 2.2]],
           "loss_probability_ci95": [None, None]}
    flat = sweeps.flatten(row)
    assert flat == {"mean_latency_by_priority_0": 1.0, "mean_latency_by_priority_1": 2.0,
                    "mean_latency_by_priority_0_low": 0.9, "mean_latency_by_priority_0_high": 1.1,
                    "mean_latency_by_priority_1_low": 1.8, "mean_latency_by_priority_1_high": 2.2,
                    "loss_probability_low": None, "loss_probability_high": None}
    assert not any(isinstance(x, float) and math.isnan(x) for x in flat.values() if x is not None)


def test_fattree_points_are_the_network_simulation_with_the_point_seed():
    # A network point runs the network simulation with the point's seed: the same numbers as a direct call.
    from switchq.models import Traffic
    from switchq.models.network import FatTreeNetwork
    from switchq.validate.harness import RunSettings
    from switchq.api import simulate

    kw = dict(slots=500, replications=2, seed=3, workers=1)
    rows = run_sweep("fattree", {"traffic": "uniform,complement"}, {"ports": 8, "nodes": 16, "load": 0.5},
                     simulate=True, store=None, **kw).rows()
    assert [r["traffic"] for r in rows] == ["uniform", "complement"]
    for r in rows:
        direct = simulate(FatTreeNetwork.for_nodes(16, 8), Traffic(0.5, pattern=r["traffic"]),
                          RunSettings(slots=500, replications=2, seed=r["seed"]))
        assert r["throughput"] == direct.throughput.value and r["mean_latency"] == direct.mean_latency.value
    with pytest.raises(InputError, match="nodes"):
        run_sweep("fattree", {"nodes": "16,100"}, {"ports": 8, "load": 0.5}, simulate=True, store=None, **kw)


def test_reduction_points_equal_the_solver():
    from switchq.models.collective import Reduction
    from switchq.models.network import FatTree
    from switchq.solvers import reduction

    rows = run_sweep("reduction", {"message": "8B,4KiB", "ports": "8,32"}, store=None).rows()
    assert len(rows) == 4
    for r in rows:
        direct = reduction.completion_time(Reduction(FatTree.for_nodes(256, r["ports"]), int(r["message"] // 8)))
        assert r["completion_time"] == direct.completion_time_ns
    with pytest.raises(InputError, match="combine_units"):
        run_sweep("reduction", {"combine_units": "1,2"}, {"message": "8B"}, store=None)


# --------------------------------------------------------------------------- issue 34, item 4: --model all in sweeps

def test_sweep_with_model_all_gives_a_row_each_taking_its_own_inputs(tmp_path):
    # As switchq size pfc --model all: the four formulas along the cable, --interface-delay read by ieee alone and
    # named in the others' rows, and (without it) ieee's rows carrying its reason while the others answer.
    base = ("size-pfc", "--vary", "cable=10m,100m", "--model", "all", "--link-rate", "400Gb/s", "--no-store")
    rows = sweep_json(*base, "--interface-delay", "1228.8ns")
    assert [(r["cable"], r["model"]) for r in rows] == [(c, m) for c in (10.0, 100.0)
                                                       for m in ("ieee", "mlx5", "sonic", "cisco")]
    at_100 = {r["model"]: r for r in rows if r["cable"] == 100.0}
    assert {m: r["headroom_bytes"] for m, r in at_100.items()} == {"ieee": 250674, "mlx5": 231867, "sonic": 265216,
                                                                   "cisco": 127670}
    assert at_100["mlx5"]["note"] == "interface_delay: not used by mlx5" and at_100["mlx5"]["interface_delay"] is None
    assert "note" not in at_100["ieee"] and at_100["ieee"]["interface_delay"] == 1.2288e-06
    rows = sweep_json(*base)
    ieee = [r for r in rows if r["model"] == "ieee"]
    assert all(r["error"].startswith("--interface-delay: got None") and "headroom_bytes" not in r for r in ieee)
    assert all("error" not in r and r["headroom_bytes"] > 0 for r in rows if r["model"] != "ieee")
    # The table says it too: the error column, in the ieee rows.
    text = cli(sweep_group, *base).stdout
    assert "model = ieee; headroom_bytes [B] = -;" in text and "error = --interface-delay: got None" in text


def test_sweep_with_model_all_is_stored_without_its_refused_rows(tmp_path):
    store = tmp_path / "s.sqlite"
    args = ("size-pfc", "--vary", "cable=10m,100m", "--model", "all", "--link-rate", "400Gb/s", "--store", str(store))
    first = sweep_json(*args)
    again = sweep_json(*args)
    assert [r.get("headroom_bytes") for r in first] == [r.get("headroom_bytes") for r in again]
    assert [r["cached"] for r in again] == [False, True, True, True] * 2     # the refused rows are not stored
    run = run_sweep("size-pfc", {"cable": "10m,100m"}, {"model": "all", "link_rate": "400Gb/s"}, store=store)
    assert (run.computed, run.reused) == (0, 6)


def test_sweep_with_model_all_fails_only_when_no_point_answers():
    with pytest.raises(InputError, match=r"^--response: got None; allowed: pause quanta .*\(at cable=10, model=ieee\)$"):
        run_sweep("size-pfc", {"cable": "10m,100m"}, {"model": "ieee,cisco", "link_rate": "123Gb/s"}, store=None)
    # One model alone keeps refusing what it does not read, as switchq size does.
    with pytest.raises(InputError, match="^--interface-delay: .* only with --model ieee"):
        run_sweep("size-pfc", {"cable": "10m"}, {"model": "mlx5", "link_rate": "400Gb/s", "interface_delay": "1us"},
                  store=None)


def test_the_pages_curve_with_model_all_answers():
    from switchq.web import answers

    rows = answers.sweep("size-pfc", {"cable": "10m:100m:10m"}, {"model": "all", "link_rate": "400Gb/s",
                                                                 "mtu": "9216B"})
    assert len(rows) == 40 and {r["model"] for r in rows} == {"ieee", "mlx5", "sonic", "cisco"}
    assert sum("error" in r for r in rows) == 10 and sum("headroom_bytes" in r for r in rows) == 30
