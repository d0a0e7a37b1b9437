"""Every report's readings table (issue 36, item 1) cites its paper's own words.

A quote is checked against the plain-text copy of the paper with runs of white space made one space (the copy breaks
lines and pages where the paper's columns did); the copy loses the ligatures fi, ff and fl, so a quote is the part of
a sentence before or after such a word.
"""

import re
from pathlib import Path

import pytest

from switchq.validate.reports import circuit_choices, hipiqs_claims, mediaworm_quotes
from switchq.validate.reports.multicast import choices as multicast_choices
from switchq.validate.reports.sfc import choices as sfc_choices
from switchq.validate.reports.readings import Reading, quotes, table

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
TABLES = {"000_f5a050559f34a50d.txt": hipiqs_claims.CHOICES, "001_362ac764c4eb9b43.txt": circuit_choices.CHOICES,
          "002_b00fe8a125516764.txt": sfc_choices.CHOICES,
          "003_2dc2d14d6665e496.txt": multicast_choices.CHOICES, "004_86c535b36dd14d93.txt": mediaworm_quotes.CHOICES}


def _text(name: str) -> str:
    path = PAPERS / name
    if not path.exists():
        path = Path("/work/shared/papers") / name
    if not path.exists():
        pytest.skip("the paper's text is not on this machine")
    return re.sub(r"\s+", " ", path.read_text(errors="replace"))


@pytest.mark.parametrize("paper", sorted(TABLES))
def test_every_readings_quote_is_the_papers_words(paper):
    text = _text(paper)
    missing = [q.text for q in quotes(TABLES[paper]) if re.sub(r"\s+", " ", q.text) not in text]
    assert not missing


@pytest.mark.parametrize("paper", sorted(TABLES))
def test_every_choice_names_its_default_among_what_it_ran(paper):
    for r in TABLES[paper]:
        assert isinstance(r, Reading) and r.why and r.default in r.run, r.choice


def test_a_choice_with_no_sentence_says_the_paper_says_nothing():
    row = table([Reading("flow control", "at once; 2 cycles", "at once", (), "the paper gives none")])[6]
    assert row == "| flow control | at once; 2 cycles | at once | nothing | the paper gives none |"
