"""The multicast report (paper 003): every section is written, with its figures."""

import pytest

from switchq.validate.reports import report_names
from switchq.validate.reports import multicast as report_multicast

SECTIONS = ("## Summary against the paper", "## 1. One switch", "## 2. Permutations on a 256-node fat tree", "## 3. Multicast on the 256-node fat tree",
            "## 4. Spanning trees", "## 5. NAMD-like benchmark", "## 6. Reductions")


def test_spanning_tree_section_shows_least_loaded_parent_balancing_the_top_level(tmp_path):
    sec = report_multicast.spanning_trees(report_multicast.plan(quick=True), tmp_path)
    text = "\n".join(sec.lines)
    assert text.startswith("## 4. Spanning trees")
    # 64 groups of 8 nodes: the naive rule piles every tree on one top switch, leastLoadedParent spreads them.
    naive = next(line for line in sec.lines if line.startswith("| 64 | 8 | naive |"))
    best = next(line for line in sec.lines if line.startswith("| 64 | 8 | least-loaded |"))
    assert naive.split("|")[-2].strip().startswith("64 /")
    assert int(best.split("|")[-2].split("/")[0]) <= 2
    assert [p.name for p in sec.files] == ["multicast_trees.png"] and sec.files[0].stat().st_size > 0


def test_multicast_is_a_registered_report():
    assert "multicast" in report_names()


@pytest.mark.xdist_group("report-multicast")
def test_quick_report_has_every_section_and_figure(quick_report):
    out, written, _ = quick_report("multicast")
    md = out / "multicast.md"
    assert md in written
    text = md.read_text()
    for heading in SECTIONS:
        assert heading in text
    assert "seed 1" in text.lower() and "±" in text
    pngs = [p for p in written if p.suffix == ".png"]
    assert len(pngs) >= 6
    for p in pngs:
        assert p.exists() and p.stat().st_size > 0
        assert f"]({p.name})" in text
