"""The multicast report (paper 003): every section is written, with its figures, and every verdict is the
engine's, on the paper's own words."""

from pathlib import Path

import pytest

from switchq.reports import report_names
from switchq.validate.reports import claims
from switchq.validate.reports import multicast as report_multicast
from switchq.validate.reports.multicast import common

# The paper's text, where the project's papers are kept (not in the repository).
PAPER = Path("/work/shared/papers/003_2dc2d14d6665e496.txt")

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


@pytest.mark.skipif(not PAPER.exists(), reason="the paper's text is not on this machine")
def test_every_quote_is_the_papers_words_verbatim():
    text = PAPER.read_text()
    assert all(q.text in text for q in common.QUOTES), [q.text for q in common.QUOTES if q.text not in text]
    # 0.65 and 0.22 are [19]'s routers' figures, in the paper's own sentence.
    assert "[19]" in common.SAID_19.text and "0.22" in common.SAID_19.text and "0.65" in common.SAID_19.text


def test_the_headline_lists_claims_under_the_class_the_engine_gave():
    e = claims.Exact
    vs = [claims.within(e(1.0), 1.0, 0.1, claim="a"), claims.within(e(2.0), 1.0, 0.1, claim="b"),
          claims.within(e(2.0), 1.0, 0.1, claim="c", not_about=common.SAID_19),
          claims.within(e(2.0), 1.0, 0.1, claim="d", reading="other")]
    assert report_multicast.by_kind(vs) == "Defect: b. Not a claim: c."


@pytest.mark.xdist_group("report-multicast")
def test_quick_report_verdicts_rest_on_evidence(quick_report):
    out, _, verdicts = quick_report("multicast")
    text = (out / "multicast.md").read_text()
    assert f"**Verdicts** (default reading): {claims.by_class(verdicts)}." in text
    assert report_multicast.by_kind(verdicts) in text and "DISAGREE" not in text
    assert all(v.section and v.report == "multicast" for v in verdicts)
    kinds = {str(v) for v in verdicts if v.default and v != "agree"}
    assert all(f"{k.capitalize()}: " in text for k in kinds)
    # [19]'s WBA figures: a miss is not a claim about this model, backed by the paper's sentence naming [19].
    wba = [v for v in verdicts if v.claim.startswith("§3.1: WBA")]
    assert len(wba) == 4 and all(v.not_about == common.SAID_19 for v in wba)
    assert all(v in ("agree", "inconclusive", "not a claim") for v in wba)
    # Fig. 11's rows: the routes fixed at the source are readings of the same claim, judged first; a row is an
    # ambiguity only where one of them agrees, never by hand.
    fig11 = [v for v in verdicts if v.claim.startswith("Fig. 11") and v.default]
    assert len(fig11) == 4
    for v in fig11:
        assert {r.reading for r in v.readings} == {"random source route routing", "d-mod-k routing"}
        assert all(r.claim == v.claim for r in v.readings)
        if v == "ambiguity":
            assert any(r == "agree" for r in v.readings) and v.allows == common.SAID_UPWARD
    # Saturation throughputs are judged as overloaded runs, and so is Fig. 12's "latency blows up" (an unstable run is
    # the blow-up it claims); Fig. 15's saturation throughput beyond the bound is one, its "every load under it
    # carried" reading (a run below the bound) is not.
    assert all(not v.saturated for v in verdicts if v.claim.startswith("Figs 17-18")
               or v.reading.endswith("every load under it carried"))
    assert all(v.saturated for v in verdicts if v.claim.startswith("Fig. 15")
               and not v.reading.endswith("every load under it carried"))
    assert all(v.saturated for v in verdicts if v.claim.startswith(("Fig. 11", "Fig. 12", "Fig. 13", "Fig. 14", "§3:")))
    fig15 = [v for v in verdicts if v.claim.startswith("Fig. 15") and not v.reading.startswith("warm-up doubled")]
    assert len(fig15) == 6 and all(v.quote == common.SAID_STABLE for v in fig15)
    # Each judged again with the warm-up doubled (issue 36), as a reading of its own, never a default.
    again = [v for v in verdicts if v.reading.startswith("warm-up doubled")]
    assert sorted(v.reading for v in again if v.claim.startswith("Fig. 15")) == sorted(
        "warm-up doubled" + ("" if v.reading == "default" else ": " + v.reading) for v in fig15)
    assert {v.claim for v in again} >= {v.claim for v in fig11} and not any(v.default for v in again)
    assert "when the warm-up doubles" in text
    default15 = next(v for v in fig15 if v.default)
    assert {r.reading for r in default15.readings} == {"2% of the value", "every load under it carried"}
