"""Reports hol, sfc and cioq: every section is written, they read their points through the store, and resume."""

import re
import sqlite3

import pytest

from switchq.validate.reports import build_report, report_names


def _without_build_times(text):
    return re.sub(r"_(Section built|Built) in .*?_", "", text)


def test_every_declared_report_is_buildable_by_name():
    assert {"hol", "sfc", "multicast", "cioq"} <= set(report_names())


def test_quick_hol_report_has_karols_table_and_resumes_from_its_store(tmp_path):
    store = tmp_path / "s.sqlite"
    written = build_report("hol", tmp_path, quick=True, workers=2, seed=1, store=store)
    text = (tmp_path / "hol.md").read_text()
    for heading in ("Table I", "Fig. 1", "Mean wait vs load"):
        assert heading in text
    # Karol et al.'s Table I: the exact N = 2 value 3/4 and the published 0.7500 are in the same row.
    assert re.search(r"\| 2 \| 3/4 \| 0\.7500 .*\| 0\.7500 \|", text)
    assert all(p.exists() and p.stat().st_size > 0 for p in written)
    with sqlite3.connect(store) as db:
        stored = db.execute("select count(*) from points").fetchone()[0]
    assert stored > 100
    # The same build again reads every point back: nothing new is stored, the numbers are the same.
    build_report("hol", tmp_path, quick=True, workers=2, seed=1, store=store)
    with sqlite3.connect(store) as db:
        assert db.execute("select count(*) from points").fetchone()[0] == stored
    assert _without_build_times((tmp_path / "hol.md").read_text()) == _without_build_times(text)


def test_quick_cioq_report_gives_a_verdict_per_row(tmp_path):
    build_report("cioq", tmp_path, quick=True, workers=2, seed=1, store=None)
    rows = [line for line in (tmp_path / "cioq.md").read_text().splitlines() if line.startswith("| pim") or
            line.startswith("| islip") or line.startswith("| 0.")]
    assert len(rows) == 12 and all(line.rstrip(" |").split("| ")[-1] in ("agree", "marginal", "DISAGREE")
                                   for line in rows)


@pytest.mark.slow
def test_quick_sfc_report_has_every_figure(tmp_path):
    written = build_report("sfc", tmp_path, quick=True, workers=2, seed=1, store=None)
    text = (tmp_path / "sfc.md").read_text()
    for heading in ("Buffer sizing (§4.2)", "Fig. 3", "Fig. 4 a, b, g, h", "Fig. 4 e, f", "Fig. 5", "What limits SFC"):
        assert heading in text
    assert len([p for p in written if p.suffix == ".png"]) == 4
    # Both resend readings are counted against Fig. 3's 28 points, and every summary is a computed count.
    assert re.search(r"`eager` at \d+ of 28 points, `nak` at \d+ of 28 points", text)
    assert len(re.findall(r"\d+ of \d+", text)) >= 12
    assert "agrees" not in text.replace("agrees when", "")   # no hand-written agreement
