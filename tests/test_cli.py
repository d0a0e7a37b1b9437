"""The command line as scripts use it: JSON fields, exit codes, one-line errors, no Numba on analytic paths."""

import json
import subprocess
import sys

import pytest


def run(*args):
    return subprocess.run([sys.executable, "-m", "switchq", *args], capture_output=True, text=True)


def test_solve_hol_json_gives_karol_value():
    p = run("solve", "hol", "--ports", "8", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    # Karol et al. 1987 Table I, N = 8: 0.6184 (4 decimals).
    assert out["saturation_throughput"] == pytest.approx(0.6184, abs=5e-5)
    assert out["n_ports"] == 8 and out["units"]["saturation_throughput"] == "cells/slot/output"


def test_solve_oq_json_gives_mean_wait_in_slots():
    out = json.loads(run("solve", "oq", "--ports", "16", "--load", "0.8", "--json").stdout)
    assert out["mean_wait"] == pytest.approx(15 / 16 * 0.8 / (2 * 0.2))
    assert out["units"]["mean_wait"] == "slots"


def test_simulate_fifo_json_fields_and_echo():
    p = run("simulate", "fifo", "--ports", "4", "--load", "0.5", "--slots", "2000", "--replications", "3",
            "--seed", "9", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    for key in ("throughput", "throughput_ci95", "mean_latency", "mean_latency_ci95"):
        assert key in out
    assert out["slots"] == 2000 and out["warmup_slots"] == 1000 and out["replications"] == 3
    assert out["seed"] == 9 and len(out["throughput_ci95"]) == 2
    assert out["throughput_ci95"][0] <= out["throughput"] <= out["throughput_ci95"][1]


def test_simulate_oq_and_voq_json_fields():
    oq = json.loads(run("simulate", "oq", "--ports", "4", "--load", "0.5", "--slots", "2000", "-r", "2",
                        "--json").stdout)
    assert "mean_wait" in oq and "mean_wait_ci95" in oq
    voq = json.loads(run("simulate", "voq", "--ports", "4", "--load", "0.5", "--matching", "pim",
                         "--iterations", "2", "--slots", "2000", "-r", "2", "--json").stdout)
    assert voq["matching"] == "pim" and voq["iterations"] == 2 and 0 <= voq["throughput"] <= 1


@pytest.mark.parametrize("args, needle", [
    (("solve", "hol", "--ports", "0"), "--ports"),
    (("solve", "hol", "--ports", "x"), "--ports"),
    (("solve", "oq", "--ports", "8", "--load", "1.2"), "--load"),
    (("simulate", "fifo", "--ports", "8", "--load", "0.5", "--replications", "0"), "--replications"),
    # Batch means cut one run (-r 1) only, into batches of at least 100 slots.
    (("simulate", "fifo", "--ports", "8", "--load", "0.5", "--batches", "10"), "--batches"),
    (("simulate", "fifo", "--ports", "8", "--load", "0.5", "-r", "1", "--slots", "1000", "--batches", "11"),
     "--batches"),
    (("simulate", "voq", "--ports", "8", "--load", "0.5", "--matching", "rr"), "--matching"),
    (("simulate", "fifo", "--ports", "6", "--load", "0.5", "--pattern", "bitrev"), "--ports"),
    (("solve", "hol"), "--ports"),
])
def test_bad_input_exits_2_with_one_line_naming_the_parameter(args, needle):
    p = run(*args)
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in p.stderr


def test_analytic_commands_do_not_import_numba():
    code = ("import sys\nfrom switchq.cli import main\n"
            "try:\n    main(['solve', 'hol', '--ports', '8', '--json'])\nexcept SystemExit:\n    pass\n"
            "main_ok = 'numba' not in sys.modules\n"
            "try:\n    main(['solve', 'oq', '--ports', '8', '--load', '0.5', '--buffer', '4', '--json'])\n"
            "except SystemExit:\n    pass\n"
            "print(main_ok and 'numba' not in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert p.stdout.strip().endswith("True"), p.stdout + p.stderr


def test_every_verb_has_help_with_an_example():
    for verb in (["solve", "hol"], ["solve", "oq"], ["solve", "window"], ["solve", "iq"], ["solve", "voq"],
                 ["simulate", "fifo"], ["simulate", "oq"], ["simulate", "voq"], ["simulate", "cicq"],
                 ["simulate", "multicast"], ["size", "credit"], ["size", "sfc"], ["sweep"], ["results"],
                 ["validate"], ["report"], ["bench"], ["warm"]):
        p = run(*verb, "--help")
        assert p.returncode == 0 and "Example" in p.stdout, verb


def test_validate_prints_a_line_per_row_on_stderr_when_piped():
    # A first run compiles kernels before its table: piped or redirected, each finished row still shows.
    p = run("validate", "iq", "--workers", "1")
    lines = [line for line in p.stderr.splitlines() if line.startswith("[")]
    assert len(lines) == 2 and lines[0].startswith("[1/2] iq: ") and lines[1].endswith(" s)"), p.stderr


def test_validate_over_processes_gives_the_rows_of_one_process_in_order():
    # Over two processes the cases share the processes (each kernel compiled once first); a case's
    # numbers depend only on its seed, so they are the same, in listing order.
    from switchq.suites import run_suite

    kernels = []
    one = run_suite("pfc", workers=1)
    two = run_suite("pfc", workers=2, on_ready=lambda i, n, name, seconds: kernels.append((i, n, name)))
    assert [(r.case, r.simulated, r.ci95) for r in two] == [(r.case, r.simulated, r.ci95) for r in one]
    assert kernels == [(1, 1, "pfc")]


def test_warm_compiles_a_kernel_and_refuses_bad_workers():
    from switchq.warm import compile_one

    assert compile_one("voq") > 0
    p = run("warm", "-j", "-1")
    assert p.returncode == 2 and p.stderr.strip() == ("switchq: error: --workers: got -1; allowed: an integer >= 0 "
                                                      "(0 = all cores)")


def test_validate_json_rows_have_a_verdict():
    p = run("validate", "voq", "--json", "--workers", "1")
    out = json.loads(p.stdout)
    # Every row carries the engine's verdict and agrees (a defect also makes the command exit 1), with the interval
    # it was judged on, its level and why.
    assert out["rows"] and all(r["verdict"] == "agree" for r in out["rows"])
    assert p.returncode == 0 and out["verdict"] == "agree" and out["headline"].startswith(f"{len(out['rows'])} agree")
    assert all("seed" in r and len(r["interval"]) == 2 and 0.99 < r["level"] < 1 and r["why"] for r in out["rows"])


def test_a_64_bit_seed_is_read_exactly():
    # Read through float(), 8831625547063467241 became 8831625547063467008: another stream than the one asked for.
    from switchq.declaration import RUN_PARAMS

    seed = next(p for p in RUN_PARAMS if p.name == "seed")
    assert seed.parse("8831625547063467241", "--seed") == 8831625547063467241
    assert seed.parse("1e3", "--seed") == 1000
