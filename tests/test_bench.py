"""``switchq bench``'s BookSim2 side by side: the configuration file it gives BookSim2 and switchq, the reading of
BookSim2's output (a captured run of that configuration, tests/data/booksim2_fattree16.txt: 16 nodes, load 0.3,
two simulations of 1000 + 1000 cycles), switchq's command on the same file, and the rows and table. No
timing is asserted: speed is reported, not tested against the clock."""

from __future__ import annotations

import os
import re
import tempfile
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
    assert _settings(B.booksim_config(256, 0.3))["n"] == "4"      # 4^n nodes
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


def test_switchq_runs_the_same_file():
    cmd = " ".join(B.switchq_command(Path("q.cfg")))
    for part in ("simulate iq-router", "--booksim-config q.cfg", "--cycles 400000", "--warmup 400000", "-r 2",
                 "--workers 1", "--json"):
        assert part in cmd
    # 1.6 M cycles in all, as BookSim2's two simulations before their drains
    assert 2 * (400_000 + 400_000) == B.TOTAL_CYCLES


def test_switchq_reads_the_file_as_booksim_does():
    """The file's every setting is BookSim2's question: switchq's iq-router builds it as 4 VCs sharing 640 flits
    (none reserved), 64-flit packets at 0.3 flits a cycle (0.3 / 64 packets), on the 4-ary 3-tree."""
    from switchq.architectures.iq_router import build

    with tempfile.TemporaryDirectory() as tmp:
        cfg = Path(tmp) / "q.cfg"
        cfg.write_text(B.booksim_config(64, 0.3))
        net, traffic = build({"booksim_config": str(cfg)})
    assert (net.topology, net.k, net.n, net.num_vcs, net.buffer_policy, net.port_buffer, net.private_slots) == (
        "fattree", 4, 3, 4, "shared", 640, 0)
    assert traffic.packet_size == 64 and traffic.packet_rate == pytest.approx(0.3 / 64)


def test_carried_means_both_carry_the_load():
    assert B.carried(0.5, 0.501, 0.497)
    assert not B.carried(0.8, 0.70, 0.79)            # BookSim2 saturated
    assert not B.carried(0.5, 0.500, 0.489)          # within 0.98 of the load, but 2.2 % apart


def test_rows_and_table(monkeypatch):
    monkeypatch.setattr(B, "_warm_switchq", lambda nodes: None)
    monkeypatch.setattr(B, "run_booksim", lambda binary, n, load, cycles: {
        "rate": 1e5 * n, "kernel_rate": 1.2e5 * n, "wall": 10.0, "total": cycles + 100,
        "accepted": min(load, 0.7)})
    monkeypatch.setattr(B, "run_switchq", lambda n, load, cycles: {
        "rate": 4e6 * n * load, "kernel_rate": 8e6 * n * load, "startup": 0.9, "wall": 2.0, "total": cycles,
        "throughput": min(load, 0.75)})
    rows = B.side_by_side("booksim", 16_000, progress=open(os.devnull, "w"))
    assert len(rows) == 2 * len(B.CASES)
    keys = {"case", "value", "unit", "target", "booksim2", "met"}
    assert all(keys <= set(r) for r in rows)
    rate, ratio = rows[0], rows[1]
    assert rate["booksim2"] == 1.6e6 and rate["value"] == pytest.approx(16 * 4e6 * 0.3)
    # 16 nodes: the kernel's ratio is the headline, 8e6 x 0.3 / 1.2e5 = 20
    assert ratio["target"] == B.TARGET == 30 and ratio["value"] == pytest.approx(20.0) and ratio["met"] is False
    sat = next(r for r in rows if r["unit"] == "x" and r["load"] == 0.8)
    assert not sat["carried"] and sat["target"] is None and sat["met"] is None and "saturated" in sat["case"]
    big = next(r for r in rows if r["unit"] == "x" and r["nodes"] == 256)
    assert big["value"] == pytest.approx(12.0) and big["switchq_cycles"] == 16_000     # whole process, 1.2e6 / 1e5
    table = B.markdown_table(rows)
    assert any(line.startswith("| 16 | 0.8 | 16000 | 0.7000 / 0.7500 | saturated |") for line in table)
    assert B.markdown_table([r for r in rows if "ratio" not in r]) == []


@pytest.mark.skipif(not os.access(BOOKSIM, os.X_OK), reason="no BookSim2 binary (set BOOKSIM)")
def test_booksim_runs_the_config():
    r = B.run_booksim(BOOKSIM, 16, 0.3, total_cycles=4000)
    assert r["complete"] and r["nodes"] == 16 and len(r["cycles"]) == 2 and r["total"] >= 4000


def test_scale_rows_ask_both_networks_the_same_load(monkeypatch):
    from switchq import bench_scale as S

    assert " ".join(S.command("bmin", 1024, 20_000)).endswith(
        "simulate bmin --nodes 1024 --buffer-org damq --message-flits 64 --buffer-flits 640 --load 0.5 --cycles 20000 "
        "--warmup 2000 -r 1 --workers 1 --json")
    assert "--booksim-config q.cfg --cycles 20000" in " ".join(S.command("iq-router", 1024, 20_000, Path("q.cfg")))
    seen = []

    def fake(cmd):
        nodes = int(_settings(Path(cmd[cmd.index("--booksim-config") + 1]).read_text())["n"]) \
            if "--booksim-config" in cmd else int(cmd[cmd.index("--nodes") + 1])
        nodes = 4 ** nodes if "--booksim-config" in cmd else nodes
        seen.append(nodes)
        return {"returncode": 0, "wall": 3.0, "peak": 1e5 * nodes, "stderr": "",
                "stdout": '{"slots": 2000, "warmup_slots": 2000, "replications": 1, "wall_seconds": %s}'
                          % (nodes / 1e6)}
    monkeypatch.setattr(S, "measured", fake)
    rows = S.scale_rows(quick=True, progress=open(os.devnull, "w"))
    assert seen == list(S.SIZES) * 2                     # the file's 4^n nodes are the size asked
    mem = [r for r in rows if r["unit"] == "MB"]
    assert [r["met"] for r in mem if r["nodes"] == 1024] == [True, True]          # 102 MB under 1 GB
    table = S.markdown_table(rows)
    assert "| iq-router | 4096 | 4000 | 410 | 4e+09 | 3.0 |" in table
    assert S.cycles_for(64) == 80_000 and S.cycles_for(1024) == 20_000


def test_a_childs_peak_memory_is_its_own():
    """The bench's peaks are each child's: a child holding 40 MB, forked from this process while it holds
    300 MB, is measured between its 40 MB and the 300 MB that wait4's ru_maxrss would carry over from the
    fork (a Python with NumPy adds about 30 MB)."""
    import sys

    import numpy as np

    held = np.ones(300_000_000 // 8)
    r = B.measured([sys.executable, "-c", "import numpy as np, time; a = np.ones(40_000_000 // 8); time.sleep(0.3)"])
    assert r["returncode"] == 0 and 40e6 < r["peak"] < 150e6, r["peak"]
    del held
