"""The docs site (issue 39): it builds with warnings as errors, and its model pages come from the declarations.

A page per model is written from its declaration at build time (:mod:`switchq.docs_pages`), so a new
declaration gets its page with no docs edit; its validation verdicts are read from the committed record
``reports/validate.json``, which must hold a row for every declared case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from switchq.docs_pages import cell, missing_cases, model_page, models_index, text, validation_record
from switchq.params import applies_text
from switchq.registry import declarations

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.xdist_group("docs")
def test_the_docs_build_with_warnings_as_errors(tmp_path):
    # The whole site as CI builds it: every page, the generated ones, the API reference, the notebooks run.
    p = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
                        "-d", str(tmp_path / "doctrees"), "docs", str(tmp_path / "html")],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    html = tmp_path / "html"
    missing = [name for name in declarations() if not (html / "models" / f"{name}.html").exists()]
    assert not missing, missing
    assert (html / "reports" / "index.html").exists() and (html / "api.html").exists()
    # The tutorial ran: its printed comparison is in the page.
    assert "N = 8: exact 0.6184" in (html / "tutorials" / "hol.html").read_text(encoding="utf-8")


COPY = '''
from dataclasses import replace
from switchq.architectures.cioq import DECLARATION as CIOQ

DECLARATION = replace(CIOQ, name="cioq_copy", title="A copy of CIOQ", order=999, architectures=(), report=(),
                      bench=(), answers=tuple(replace(a, name="cioq_copy") for a in CIOQ.answers), cases=())
'''

PROBE = '''
import sys
import switchq.architectures as A
A.__path__.append(sys.argv[1])
from pathlib import Path
from switchq.docs_pages import write_site
write_site(Path(sys.argv[2]), Path(sys.argv[3]))
'''


def test_a_new_declaration_gets_its_page_with_no_docs_edit(tmp_path):
    # A declaration dropped into switchq.architectures (in a fresh interpreter, as tests/test_contributing.py
    # does), and the generator run as a build runs it.
    (tmp_path / "cioq_copy.py").write_text(COPY)
    docs = tmp_path / "docs"
    p = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path), str(docs), str(ROOT)], capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    page = (docs / "models" / "cioq_copy.md").read_text()
    assert page.startswith("# A copy of CIOQ (`cioq_copy`)") and "`switchq solve cioq_copy`" in page
    index = (docs / "models" / "index.md").read_text()
    assert "[A copy of CIOQ](cioq_copy.md)" in index and "\ncioq_copy\n" in index.split("```{toctree}")[1]


def test_every_declared_case_has_a_row_in_the_committed_record():
    # Refresh with `cd /tmp && switchq validate all --json > <checkout>/reports/validate.json`.
    assert missing_cases(declarations().values(), validation_record(ROOT)) == []


@pytest.mark.parametrize("name", list(declarations()))
def test_a_model_page_shows_each_parameter_unit_default_range_and_where_it_applies(name):
    d = declarations()[name]
    page = model_page(d, validation_record(ROOT), ROOT / "reports")
    rows = [line for line in page.splitlines() if line.startswith("| `--")]
    params = [(p, d.all_params()) for p in d.all_params()] if d.simulated else []
    params += [(p, a.params) for a in d.answers for p in a.params]
    for p, neighbours in params:
        default = p.describe_default() if p.required or p.default_text else f"`{p.describe_default()}`"
        option = f"| {cell('`' + ' '.join(p.options) + '`')} |"
        cells = [f"{option} {cell(p.unit)} | {cell(default)} | {cell(p.allowed())} |"]
        where = applies_text(p, neighbours)
        cells += [cell(f"Applies {where}.")] if where else []
        assert any(r.startswith(cells[0]) and all(c in r for c in cells) for r in rows), (p.name, cells)


def test_a_validation_row_shows_the_recorded_verdict_or_says_it_has_none():
    d = next(d for d in declarations().values() if d.cases)
    first, second = d.cases[:2]
    row = {"suite": first.suite, "case": first.label, "analytic": 0.5, "simulated": 0.49, "interval": [0.48, 0.5],
           "verdict": "inconclusive"}
    page = model_page(d, {(first.suite, first.label): row})
    assert f"| {cell(text(first.label))} |" in page
    line = next(x for x in page.splitlines() if x.startswith(f"| {cell(text(first.label))} |"))
    assert line.endswith("| 0.5 | 0.49 (0.48 .. 0.5) | inconclusive |"), line
    line = next(x for x in page.splitlines() if x.startswith(f"| {cell(text(second.label))} |"))
    assert line.endswith("| not in the committed record |"), line


def test_markup_in_declared_text_is_escaped_and_pipes_stay_in_their_cell():
    d = next(d for d in declarations().values() if d.simulated)
    odd = replace(d, title="A <b>bold</b> *switch*", summary="N | M with_under [link](x)")
    page = model_page(odd, {})
    assert page.startswith(r"# A \<b\>bold\</b\> \*switch\*")
    assert r"N | M with\_under \[link\](x)" in page
    assert cell("`a|b`") == r"`a\|b`"
    assert text("keep `x_y*` as code, not x_y*") == r"keep `x_y*` as code, not x\_y\*"
    index = models_index([odd])
    assert r"| [A \<b\>bold\</b\> \*switch\*](" in index and r"N \| M with\_under" in index


def test_the_committed_record_is_what_validate_all_prints():
    # The shape the pages read: one row per case, each with its suite, case, interval and verdict; and each row's
    # analytic side is what its case computes now (solvers only: a stale record fails here until it is rebuilt).
    rows = json.loads((ROOT / "reports" / "validate.json").read_text())["rows"]
    assert rows and all({"suite", "case", "analytic", "simulated", "interval", "verdict"} <= set(r) for r in rows)
    cases = {(c.suite, c.label): c for d in declarations().values() for c in d.cases}
    for r in rows:
        assert r["analytic"] == cases[r["suite"], r["case"]].analytic()[0], (r["suite"], r["case"])
