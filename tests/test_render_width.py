"""Tables stay readable at 80 columns and in files: no line past the width, no label one word per line."""

import pytest

from switchq.render import show, show_comparisons, show_rows
from switchq.validate.compare import Comparison

LONG_CASE = "S=N=8, iSLIP 8 iterations, load 0.8 (output queuing)"


def _rows():
    return [Comparison("cioq", LONG_CASE, "mean_wait", "slots", 1.75, "output queuing", 1.7512, (1.7431, 1.7593),
                       0.9993, 0.0, 0.00875, "agree", "1.7431 .. 1.7593 holds 1.75", 8, True, False, 1, 300_000,
                       30_000, 8, 8),
            Comparison("voq", "PIM k=1, N=16, saturated", "throughput", "cells/slot/output", 0.64393, "exact",
                       0.64384, (0.6437, 0.64398), 0.9993, 0.0, 0.0032, "defect", "outside", 32, False, True, 1,
                       180_000, 18_000, 32, 8)]


def _lines(capsys):
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize("width", [80, 100])
def test_validation_rows_fit_the_width_and_keep_each_label_on_one_line(width, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", str(width))
    show_comparisons(_rows(), False, "switchq validate all")
    lines = _lines(capsys)
    assert max(len(line) for line in lines) <= width
    # Too narrow for the ten columns: one block per row, its label whole on a line of its own.
    assert any(line == f"cioq: {LONG_CASE}" for line in lines)
    text = " ".join(lines)
    for figure in ("1.7512", "1.7431 .. 1.7593", "0.64384", "defect"):
        assert figure in text


def test_a_wide_terminal_gets_the_table(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "200")
    show_comparisons(_rows(), False, "switchq validate all")
    lines = _lines(capsys)
    assert max(len(line) for line in lines) <= 200
    assert sum(LONG_CASE in line for line in lines) == 1          # the table's case column, unfolded
    assert any("┃ suite" in line for line in lines)


def test_a_result_table_folds_values_not_names(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    payload = {"n_ports": 16, "load": 0.8, "mean_latency": 45.5499, "mean_latency_ci95": [45.1843, 45.9155],
               "exact": "907829143692237066503143239/1468053011144896100563129664"}
    show(payload, ["n_ports", "load"], "VOQ (simulated)", False, units={"mean_latency": "slots"})
    lines = _lines(capsys)
    assert max(len(line) for line in lines) <= 80
    text = "".join(line.replace("│", "").replace(" ", "") for line in lines)
    assert "907829143692237066503143239/1468053011144896100563129664" in text   # folded, never cut off
    assert any("mean_latency" in line for line in lines)


def test_many_columns_become_blocks_at_80(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "80")
    columns = ["ports", "load", "throughput", "mean_latency", "mean_wait", "loss_probability", "unstable"]
    payloads = [{"ports": n, "load": 0.9, "throughput": 0.899785, "throughput_ci95": [0.897347, 0.902223],
                 "mean_latency": 45.536, "mean_latency_ci95": [45.3568, 45.7152], "mean_wait": 44.536,
                 "loss_probability": 0.0, "unstable": False} for n in (16, 32)]
    show_rows(payloads, columns, "CICQ (simulated)", False, {"throughput": "cells/slot/input"})
    lines = _lines(capsys)
    assert max(len(line) for line in lines) <= 80
    assert lines[1] == "1." and "0.897347 .. 0.902223" in " ".join(lines)
