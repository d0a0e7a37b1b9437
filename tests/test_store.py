"""The sweep result store: keys, WAL, one commit per point, locked and damaged files, kill -9 and resume."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from switchq.store import Store, StoreError, canonical_json, point_key
from switchq.sweeps import run_sweep


def _snapshot(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute("SELECT id, key, params, results, seed, settings, wall_seconds, created_at FROM points "
                           "ORDER BY id").fetchall()
    finally:
        con.close()


def test_point_key_is_canonical():
    a = point_key("oq", "analytic", {"ports": 8, "load": 0.5}, None, {})
    b = point_key("oq", "analytic", {"load": 0.5, "ports": 8}, None, {})
    assert a == b and len(a) == 64
    assert a != point_key("oq", "simulated", {"ports": 8, "load": 0.5}, None, {})
    assert a != point_key("oq", "analytic", {"ports": 8, "load": 0.5}, 7, {})
    assert a == point_key("oq", "analytic", canonical_json({"ports": 8, "load": 0.5}), None, "{}")


def test_store_columns_wal_and_duplicates(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        key = point_key("fifo", "simulated", {"ports": 4}, 11, {"slots": 100})
        s.add(key, "fifo", "simulated", {"ports": 4}, {"throughput": 0.5, "throughput_ci95": [0.4, 0.6]}, 11,
              {"slots": 100}, 0.25)
        s.add(key, "fifo", "simulated", {"ports": 4}, {"throughput": 0.9}, 11, {"slots": 100}, 9.0)  # ignored
        assert s.count() == 1
        rows = s.rows()
    assert rows[0]["results"] == {"throughput": 0.5, "throughput_ci95": [0.4, 0.6]}
    assert rows[0]["seed"] == 11 and rows[0]["settings"] == {"slots": 100} and rows[0]["wall_seconds"] == 0.25
    assert rows[0]["switchq_version"] and rows[0]["created_at"].endswith("+00:00")
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    cols = [r[1] for r in con.execute("PRAGMA table_info(points)")]
    con.close()
    for c in ("model", "params", "results", "seed", "settings", "switchq_version", "wall_seconds", "created_at"):
        assert c in cols


def test_nan_is_stored_as_null(tmp_path):
    with Store(tmp_path / "s.sqlite") as s:
        s.add("k", "fifo", "simulated", {}, {"loss_probability": float("nan")}, 1, {}, 0.0)
        assert s.rows()[0]["results"] == {"loss_probability": None}


def test_readonly_store_must_exist(tmp_path):
    with pytest.raises(StoreError, match="no store at this path"):
        Store(tmp_path / "missing.sqlite", readonly=True)
    assert not (tmp_path / "missing.sqlite").exists()


def _one_line(e: Exception) -> str:
    text = str(e)
    assert "\n" not in text
    return text


@pytest.mark.parametrize("kind", ["garbage", "foreign", "truncated", "damaged page"])
def test_corrupt_store_is_refused_and_left_untouched(tmp_path, kind):
    path = tmp_path / "s.sqlite"
    if kind == "garbage":
        path.write_bytes(b"this is not a database\n" * 200)
    elif kind == "foreign":
        con = sqlite3.connect(path)
        con.execute("CREATE TABLE accounts (x)")
        con.commit()
        con.close()
    else:
        run_sweep("size-cicq", {"ports": "1:20", "rtt_slots": "1:20"}, store=path)
        data = path.read_bytes()
        if kind == "truncated":
            path.write_bytes(data[: len(data) // 2])
        else:
            damaged = bytearray(data)
            damaged[8192:8192 + 4096] = bytes(range(256)) * 16
            path.write_bytes(bytes(damaged))
    before = path.read_bytes()
    with pytest.raises(StoreError) as err:
        run_sweep("oq", {"load": [0.5]}, {"ports": 4}, store=path)
    text = _one_line(err.value)
    assert text.startswith("--store: got ") and "left untouched" in text
    assert path.read_bytes() == before
    if kind == "garbage":
        assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]     # no -wal, no -journal


def test_locked_store_fails_fast_with_a_clear_message_and_keeps_rows(tmp_path, monkeypatch):
    import switchq.sweeps.engine as engine

    path = tmp_path / "s.sqlite"
    run_sweep("oq", {"load": [0.1, 0.2]}, {"ports": 4}, store=path)
    before = _snapshot(path)
    calls = []
    real = engine._run_point
    monkeypatch.setattr(engine, "_run_point", lambda *a: calls.append(a) or real(*a))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")          # another writer holds the store
    try:
        t0 = time.perf_counter()
        with pytest.raises(StoreError) as err:
            run_sweep("oq", {"load": [0.3, 0.4]}, {"ports": 4}, store=path, lock_timeout=0.2)
        assert time.perf_counter() - t0 < 5
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    text = _one_line(err.value)
    assert text.startswith("--store: got ") and "locked" in text and "--lock-timeout" in text
    assert calls == []                         # nothing computed
    assert _snapshot(path) == before


def test_locked_store_cli_exits_2_with_one_line(tmp_path):
    path = tmp_path / "s.sqlite"
    run_sweep("oq", {"load": [0.1]}, {"ports": 4}, store=path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        p = subprocess.run([sys.executable, "-m", "switchq", "sweep", "oq", "--vary", "load=0.2,0.3", "--ports", "4",
                            "--store", str(path), "--lock-timeout", "0.2", "--json"], capture_output=True, text=True)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--store" in lines[0] and "locked" in lines[0], p.stderr
    assert p.stdout == ""


def test_corrupt_store_cli_and_results_exit_2(tmp_path):
    path = tmp_path / "s.sqlite"
    path.write_bytes(b"\x00garbage" * 500)
    before = path.read_bytes()
    for args in (["sweep", "oq", "--vary", "load=0.2", "--ports", "4"], ["results"]):
        p = subprocess.run([sys.executable, "-m", "switchq", *args, "--store", str(path)], capture_output=True,
                           text=True)
        assert p.returncode == 2, p.stderr
        lines = p.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("switchq: error: --store:") and "Traceback" not in p.stderr
    assert path.read_bytes() == before


# ----------------------------------------------------------------------------- kill -9 and resume

# Six simulated points of about 0.3 s each.
SWEEP = ["sweep", "fifo", "--vary", "load=0.1:0.6:0.1", "--ports", "8", "--slots", "300000", "--replications", "2"]


def _count(path) -> int:
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_sigkill_mid_sweep_then_resume_every_point_exactly_once(tmp_path):
    path = tmp_path / "kill.sqlite"
    # Two worker processes: the parent is killed while both compute; they notice and exit.
    cmd = [sys.executable, "-m", "switchq", *SWEEP, "--store", str(path), "--workers", "2", "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if path.exists() and _count(path) >= 2:
                break
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the sweep ended before it could be killed"
    before = _snapshot(path)
    assert 2 <= len(before) < 6, len(before)

    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    points = json.loads(p.stdout)
    assert [pt["load"] for pt in points] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
    after = _snapshot(path)
    assert len(after) == 6 and len({r[1] for r in after}) == 6          # every point exactly once
    assert after[:len(before)] == before                                 # pre-kill rows untouched
    reused = [pt for pt in points if pt["cached"]]
    assert len(reused) == len(before)                                    # nothing computed twice
    by_key = {json.loads(r[2])["load"]: json.loads(r[3]) for r in after}
    for pt in points:
        assert pt["throughput"] == by_key[pt["load"]]["throughput"]


def test_ctrl_c_keeps_finished_points_and_says_how_to_resume(tmp_path):
    path = tmp_path / "int.sqlite"
    # Ten times the slots of SWEEP: points of a second or more, so the sweep cannot end between the first point
    # stored and the signal on a loaded machine.
    sweep = [("3000000" if a == "300000" else a) for a in SWEEP]
    cmd = [sys.executable, "-m", "switchq", *sweep, "--store", str(path), "--workers", "1"]
    # Ctrl-C as a terminal sends it: a test run in the background (nohup, `cmd &`) starts with SIGINT ignored,
    # which the sweep would inherit, and finish.
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None and not (path.exists() and _count(path) >= 1):
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    kept = _count(path)
    assert kept >= 1
    assert f"interrupted: {kept} of 6 points stored in {path}; run the same command again to resume" in err
