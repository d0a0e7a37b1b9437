"""``switchq bench``'s BookSim2 side by side: the configuration it gives BookSim2, the reading of BookSim2's
output (a captured run of that configuration, tests/data/booksim2_fattree16.txt: 16 nodes, load 0.3, two
simulations of 1000 + 1000 cycles), switchq's command for the same question, and the rows and table. No
timing is asserted: speed is reported, not tested against the clock."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from switchq import bench_booksim as B

SAMPLE = Path(__file__).parent / "data" / "booksim2_fattree16.txt"
BOOKSIM = os.environ.get("BOOKSIM", "/opt/booksim2/src/booksim")


def _settings(text: str) -> dict:
    """``name = value;`` lines of a BookSim2 configuration, comments dropped."""
    out = {}
    for line in text.splitlines():
        line = line.split("//", 1)[0].strip()
        if line:
            m = re.fullmatch(r"(\w+) = ([^;]+);", line)
            assert m, line
            out[m.group(1)] = m.group(2)
    return out


def test_config_asks_the_issues_question():
    s = _settings(B.booksim_config(16, 0.3))
    assert s == {"topology": "fattree", "k": "4", "n": "2", "routing_function": "nca", "router": "iq",
                 "num_vcs": "4", "buffer_policy": "shared", "buf_size": "640", "private_buf_size": "0",
                 "packet_size": "64", "injection_rate_uses_flits": "1", "injection_rate": "0.3",
                 "injection_process": "bernoulli", "traffic": "uniform", "sim_type": "throughput",
                 "warmup_periods": "1", "sample_period": "400000", "max_samples": "2", "sim_count": "2",
                 "seed": "1"}


def test_config_sets_the_simulated_cycles():
    # Two simulations of a warm-up period and a measured one: total_cycles before the drains.
    s = _settings(B.booksim_config(64, 0.8, total_cycles=160_000))
    assert s["n"] == "3" and s["injection_rate"] == "0.8"
    assert int(s["sim_count"]) * int(s["max_samples"]) * int(s["sample_period"]) == 160_000
    assert s["warmup_periods"] == "1"
    # every setting line says why
    assert all("//" in line for line in B.booksim_config(16, 0.3).splitlines())
    with pytest.raises(ValueError):
        B.booksim_config(32, 0.3)


def test_parse_captured_output():
    text = SAMPLE.read_text()
    r = B.parse_booksim(text)
    assert r["cycles"] == [2123, 2119] and r["total"] == 4242     # 2 x 2000 cycles, each with its drain
    assert r["nodes"] == 16 and r["complete"]
    assert r["run_time"] == pytest.approx(0.162568)
    assert r["accepted"] == pytest.approx(0.276687)


def test_parse_notices_an_unfinished_run():
    text = SAMPLE.read_text()
    cut = text[:text.index("Time taken is 2119 cycles")]        # the second simulation never ended
    assert not B.parse_booksim(cut)["complete"]
    assert not B.parse_booksim(text.replace("Draining remaining", "Simulation unstable, ending ...\nDraining"))[
        "complete"]
    assert B.parse_booksim("")["cycles"] == [] and not B.parse_booksim("")["complete"]


def test_switchq_command_is_the_same_question():
    cmd = " ".join(B.switchq_command(64, 0.8))
    for part in ("simulate bmin", "--nodes 64", "--buffer-org damq", "--message-flits 64", "--buffer-flits 640",
                 "--uniform-over all", "--load 0.8", "--cycles 400000", "--warmup 400000", "-r 2",
                 "--workers 1", "--json"):
        assert part in cmd
    # 1.6 M cycles in all, as BookSim2's two simulations before their drains
    assert 2 * (400_000 + 400_000) == B.TOTAL_CYCLES


def test_rows_and_table(monkeypatch):
    monkeypatch.setattr(B, "_warm_switchq", lambda nodes: None)
    monkeypatch.setattr(B, "run_booksim", lambda binary, n, load, cycles: {
        "rate": 1e5 * n, "wall": 10.0, "total": cycles + 100, "accepted": load})
    monkeypatch.setattr(B, "run_switchq", lambda n, load, cycles: {
        "rate": 4e6 * n * load, "wall": 2.0, "total": cycles, "throughput": load})
    rows = B.side_by_side("booksim", 16_000, progress=open(os.devnull, "w"))
    assert len(rows) == 2 * len(B.CASES)
    keys = {"case", "value", "unit", "target", "booksim2", "met"}
    assert all(keys <= set(r) for r in rows)
    rate, ratio = rows[0], rows[1]
    assert rate["booksim2"] == 1.6e6 and rate["value"] == pytest.approx(16 * 4e6 * 0.3)
    assert ratio["target"] == B.TARGET == 30 and ratio["value"] == pytest.approx(12.0) and ratio["met"] is False
    assert rows[3]["value"] == pytest.approx(32.0) and rows[3]["met"] is True
    table = B.markdown_table(rows)
    assert "| 16 | 0.3 | 1.6e+06 | 16100 | 10.0 | — | 1.92e+07 | 16000 | 2.0 | — | 12 | 30 |" in table
    assert B.markdown_table([r for r in rows if "ratio" not in r]) == []


@pytest.mark.skipif(not os.access(BOOKSIM, os.X_OK), reason="no BookSim2 binary (set BOOKSIM)")
def test_booksim_runs_the_config():
    r = B.run_booksim(BOOKSIM, 16, 0.3, total_cycles=4000)
    assert r["complete"] and r["nodes"] == 16 and len(r["cycles"]) == 2 and r["total"] >= 4000
