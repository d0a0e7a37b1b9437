"""The docs site's generated pages: one per declared model, and the reports, written from the declarations.

Nothing here lists models: each page is read from a :class:`~switchq.declaration.Architecture` (its
parameters, its analytic answers and their solvers, its simulated twin, its validation cases and reports), so a
new declaration gets its page with no docs edit. The Sphinx extension ``docs/_ext/switchq_docs.py`` calls
:func:`write_site` when a build starts; the functions that make the text are pure (a declaration and the
committed records in, Markdown out) and tested without Sphinx (``tests/test_docs.py``).

Verdicts are read from committed records, never computed by a build (a build runs no simulation): a report's
from ``reports/NAME.verdicts.json`` (written by ``switchq report NAME``), a validation case's from
``reports/validate.json``, the output of ``switchq validate all --json``. Refresh that record whenever a
declaration's cases change (``tests/test_docs.py`` fails while a declared case has no row in it), from a folder
outside the checkout so that no store or file of the working tree is read (two to four minutes on two cores)::

    cd /tmp && switchq validate all --json > /path/to/switchq/reports/validate.json

Examples
--------
>>> from switchq.registry import declarations
>>> page = model_page(declarations()["oq"], {})
>>> page.splitlines()[0]
'# Output queuing (`oq`)'
>>> "`switchq solve oq`" in page and "not in the committed record" in page
True
>>> cell("a | b\\nc")
'a \\\\| b c'
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import shutil
from dataclasses import replace
from collections.abc import Iterable
from pathlib import Path

from .declaration import Architecture, Case
from .params import applies_text

__all__ = ["model_page", "models_index", "reports_index", "validation_record", "missing_cases", "write_site", "cell",
           "text"]

RECORD = Path("reports") / "validate.json"      # relative to the checkout's root
_MISSING = "not in the committed record"
# Characters Markdown reads as markup in running text (a backquoted span is kept as code).
_MARKUP = re.compile(r"([\\*_\[\]<>#$])")
# Sphinx roles in solver docstrings (:func:`~switchq.x.f`, :mod:`m`): Markdown shows them as code.
_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`~?([^`<]*?)(?:\s*<[^>]*>)?`")


# --------------------------------------------------------------------------- text

def text(s: str) -> str:
    """``s`` as Markdown running text: markup escaped outside backquoted spans, which stay code."""
    s = _ROLE.sub(lambda m: f"`{m.group(1).rpartition('.')[2] if m.group(0).count('~') else m.group(1)}`", s)
    s = s.replace("``", "`")
    parts = s.split("`")
    if len(parts) % 2 == 0:         # an unmatched backquote: nothing is code
        return _MARKUP.sub(r"\\\1", s).replace("`", "\\`")
    return "`".join(p if i % 2 else _MARKUP.sub(r"\\\1", p) for i, p in enumerate(parts))


def cell(s) -> str:
    """``s`` in a table cell: one line, its pipes escaped (inside code spans too, as tables need)."""
    return " ".join(str(s).split()).replace("|", "\\|")


def _code(s) -> str:
    return f"`{s}`" if s not in ("", None) else ""


def _table(heads: list, rows: Iterable) -> list:
    lines = ["| " + " | ".join(heads) + " |", "|" + "---|" * len(heads)]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines + [""]


def _paragraphs(s: str) -> list:
    return [text(" ".join(p.split())) for p in s.split("\n\n") if p.strip()]


def _console(lines: Iterable) -> list:
    lines = list(lines)
    return ["```console", *(f"$ {x}" for x in lines), "```", ""] if lines else []


# --------------------------------------------------------------------------- records

def validation_record(root: Path) -> dict:
    """``{(suite, case): row}`` of the committed ``switchq validate all --json`` (:data:`RECORD` under ``root``);
    empty when there is none."""
    path = Path(root) / RECORD
    if not path.exists():
        return {}
    return {(r["suite"], r["case"]): r for r in json.loads(path.read_text())["rows"]}


def missing_cases(declared: Iterable[Architecture], record: dict) -> list:
    """``"suite: case"`` of every declared validation case without a row in ``record``."""
    return [f"{c.suite}: {c.label}" for d in declared for c in d.cases if (c.suite, c.label) not in record]


def _headline(reports_dir: Path, name: str) -> str:
    """The verdicts by class of report ``name``'s committed record (its default reading), or '' without one."""
    path = reports_dir / f"{name}.verdicts.json"
    return json.loads(path.read_text())["headline"] if path.exists() else ""


# --------------------------------------------------------------------------- a model's page

def _param_rows(entries: list) -> list:
    """Table rows of ``[(Param, used by, its neighbours)]``: one row per distinct parameter; what it is for, where it
    applies and which commands take it in one column, so the table fits a page."""
    rows = []
    for p, used, params in entries:
        where = applies_text(p, params)
        about = " ".join(x for x in (p.help, f"Applies {where}." if where else "", f"Taken by {used}.") if x)
        # A value as code; "required" and a default made elsewhere ("802.3 D-Intf by speed") as words.
        default = p.describe_default() if p.required or p.default_text else _code(p.describe_default())
        rows.append([_code(" ".join(p.options)), p.unit, default, p.allowed(), about])
    return rows


_PARAM_HEADS = ["option", "unit", "default", "allowed", "what it is"]


def _taken(d: Architecture) -> Iterable:
    """``(command, Param, its command's parameters)`` of every parameter of the model's commands."""
    if d.simulated:
        for p in d.all_params():
            yield f"switchq simulate {d.name}", p, d.all_params()
    for a in d.answers:
        for p in a.params:
            # A parameter of the simulated mode only feeds the answer's twin, through the sweep.
            command = f"switchq {a.verb} {a.command}" if "analytic" in p.modes else f"switchq sweep {a.name} --simulate"
            yield command, p, a.params


def _params_section(d: Architecture) -> list:
    """Every parameter of the model's commands; one taken by several commands unchanged (and applying where the
    same options say) is one row."""
    entries: list = []
    for command, p, params in _taken(d):
        # The same parameter whatever mode it feeds (simulate's --pattern and a sweep twin's copy of it).
        found = next((e for e in entries if replace(e[0], modes=p.modes) == p
                      and applies_text(p, e[2]) == applies_text(p, params)), None)
        if found is None:
            entries.append((p, [command], params))
        else:
            found[1].append(command)
    if not entries:
        return []
    rows = [(p, ", ".join(f"`{c}`" for c in used), params) for p, used, params in entries]
    return ["## Parameters", "", "Each option as the commands take it; the Python verbs (`switchq.solve`, "
            "`switchq.size`, `switchq.simulate`) take the same names as keywords, dashes as underscores.", "",
            *_table(_PARAM_HEADS, _param_rows(rows))]


def _module_summary(module: str) -> str:
    """The first paragraph of ``module``'s docstring, read from its source (nothing imported)."""
    spec = importlib.util.find_spec(module)
    doc = ast.get_docstring(ast.parse(Path(spec.origin).read_text(encoding="utf-8"))) or ""
    return doc.split("\n\n")[0]


def _as_answered(a, d: Architecture) -> list:
    """The method and source the answer's first example gives, as its command prints them (analytic: milliseconds,
    a few seconds for the largest chains; no simulation)."""
    if not a.examples:
        return []
    from .cli_verbs import example_payloads

    payload = example_payloads(a, d, a.examples[0])[0][0]
    said = [(k, payload[k]) for k in ("method", "formula", "source") if payload.get(k)]
    if not said:
        return []
    return [f"**As answered** for `{a.examples[0]}`:", "", *(f"- {k}: {text(str(v))}" for k, v in said), ""]


def _answer_section(a, d: Architecture) -> list:
    out = [f"### `switchq {a.verb} {a.command}`: {text(a.title)}", "", text(a.summary), ""]
    out += [p + "\n" for p in _paragraphs(a.description)]
    solvers = (a.solve,) if hasattr(a.solve, "path") else a.returns
    if solvers:
        out += ["**Method and source.** Solved by " + ", ".join(f"`switchq.solvers.{s.path}`" for s in solvers)
                + ":", ""]
        for module in dict.fromkeys(s.module for s in solvers):
            out += [f"> {text(' '.join(_module_summary(module).split()))} (`{module}`)", ""]
    out += _as_answered(a, d)
    units = a.units_of()
    out += ["**Results.**", "", *_table(["result", "unit"], [(_code(r), units.get(r, "")) for r in a.result_names()])]
    if a.compares:
        out += ["**Checked against the simulated twin** at the same inputs:", ""]
        out += [f"- `{c.result}` against `{c.metric}`" + (f": {text(c.why)}" if c.why else "") for c in a.compares]
        out += [""]
    if a.examples:
        out += ["**Examples.**", "", *_console(a.examples)]
    return out


def _twin_section(d: Architecture) -> list:
    if not d.simulated:
        return ["## Simulated twin", "", "None: this model is answered analytically only.", ""]
    out = ["## Simulated twin", "", f"`switchq simulate {d.name}`, kernel `{d.kernel}`, counted in "
           f"{d.clock.unit}.", ""]
    out += [p + "\n" for p in _paragraphs(d.description)]
    if d.bounded:
        out += [f"No stability test: {text(d.bounded)}", ""]
    out += ["**Metrics**, each with its 95 % interval:", "",
            *_table(["metric", "unit", "what"], [(_code(m.name), m.unit, text(m.help)) for m in d.metrics])]
    if d.counters:
        out += ["**Counters**, totals shown with every result:", "",
                *_table(["counter", "unit", "over replications"], [(_code(c.name), c.unit, c.reduce)
                                                                   for c in d.counters])]
    run = d.run_params()
    out += ["**Run options** (see [simulation practice](../simulation-practice.md)):", "",
            *_table(["option", "unit", "default", "allowed", "help"],
                    [(_code(" ".join(p.options)), p.unit, p.describe_default(), p.allowed(), p.help) for p in run])]
    if d.examples:
        out += ["**Examples.**", "", *_console(d.examples)]
    return out


def _band(c: Case) -> str:
    """How the row is judged, from its declaration: a point target (exact model) or a band (an approximation)."""
    if c.tolerance or c.tolerance_share or c.tolerance_slots:
        parts = [f"{c.tolerance:g}"] if c.tolerance else []
        parts += [f"{c.tolerance_share:.3g} of the value"] if c.tolerance_share else []
        parts += [f"{c.tolerance_slots:g} cells over the slots"] if c.tolerance_slots else []
        return "band ± " + " + ".join(parts)
    parts = [f"{c.precision:g}"] if c.precision else []
    parts += [f"{c.precision_share:.3g} of the value"] if c.precision_share else []
    return "exact: interval holds it, half-width ≤ " + " + ".join(parts or ["0"])


def _measured(row: dict | None) -> tuple:
    if row is None:
        return "", "", _MISSING
    low, high = row["interval"]
    return f"{row['analytic']:.6g}", f"{row['simulated']:.6g} ({low:.6g} .. {high:.6g})", row["verdict"]


def _validation_section(d: Architecture, record: dict) -> list:
    if not d.cases:
        return []
    out = ["## Validation", "", "Rows of `switchq validate`, the simulated figure against the analytic one. "
           "Verdicts are those of the committed record `reports/validate.json` (seed 1, the quick budget), "
           "not computed by the docs build.", ""]
    suites: dict = {}
    for c in d.cases:
        suites.setdefault(c.suite, []).append(c)
    for suite, cases in suites.items():
        rows = [(text(c.label), _code(c.quantity), c.unit or d.units_of().get(c.quantity, ""), _band(c),
                 *_measured(record.get((suite, c.label)))) for c in cases]
        out += [f"### `switchq validate {suite}`", "",
                *_table(["case", "quantity", "unit", "judged as", "analytic", "simulated (95 % CI)", "verdict"],
                        rows)]
        whys = dict.fromkeys(c.why for c in cases if c.why)
        out += [f"- {text(w)}" for w in whys] + ([""] if whys else [])
    return out


def _reports_section(d: Architecture, reports_dir: Path | None) -> list:
    if not d.report:
        return []
    out = ["## Reports", ""]
    for name, module in d.report:
        headline = _headline(reports_dir, name) if reports_dir is not None else ""
        verdicts = f": {headline}" if headline else ""
        record = (f"[`reports/{name}.verdicts.json`](../reports/{name}.verdicts.json)"
                  if reports_dir is not None and (reports_dir / f"{name}.verdicts.json").exists()
                  else f"`reports/{name}.verdicts.json`")
        out.append(f"- [`switchq report {name}`](../reports/{name}.md), built by `{module}`; its verdict record "
                   f"{record}{verdicts}.")
    return out + [""]


def model_page(d: Architecture, record: dict, reports_dir: Path | None = None) -> str:
    """The Markdown page of model ``d``: title and description, parameters, analytic answers, simulated twin,
    validation rows (verdicts from ``record``, :func:`validation_record`) and reports (their verdict counts
    from ``reports_dir``, when given)."""
    out = [f"# {text(d.title)} (`{d.name}`)", "", f"*{d.family}*: {text(d.summary)}", ""]
    out += _params_section(d)
    if d.answers:
        out += ["## Analytic answers", ""]
        for a in d.answers:
            out += _answer_section(a, d)
    out += _twin_section(d)
    out += _validation_section(d, record)
    out += _reports_section(d, reports_dir)
    return "\n".join(out).rstrip() + "\n"


def models_index(declared: Iterable[Architecture]) -> str:
    """The models' index page: a table of every model and the toctree of their pages."""
    declared = list(declared)
    rows = []
    for d in declared:
        commands = ([f"`simulate {d.name}`"] if d.simulated else []) + [f"`{a.verb} {a.command}`" for a in d.answers]
        rows.append((f"[{text(d.title)}]({d.name}.md)", d.family, ", ".join(commands), text(d.summary)))
    return "\n".join(["# Models", "", "A page per model, written from its declaration "
                      "(`switchq/architectures/`) when the site is built.", "",
                      *_table(["model", "family", "commands", "what it answers"], rows),
                      "```{toctree}", ":hidden:", "", *(d.name for d in declared), "```", ""])


# --------------------------------------------------------------------------- the reports

def _title(path: Path) -> str:
    return next((x[2:].strip() for x in path.read_text(encoding="utf-8").splitlines() if x.startswith("# ")),
                path.stem)


def reports_index(reports_dir: Path, declared: Iterable[Architecture]) -> str:
    """The reports' index page: each committed report with its verdicts by class and the models it is about."""
    about: dict = {}
    for d in declared:
        for name, _ in d.report:
            about.setdefault(name, []).append(d)
    rows = []
    for path in sorted(reports_dir.glob("*.md")):
        models = ", ".join(f"[{d.name}](../models/{d.name}.md)" for d in about.get(path.stem, []))
        verdicts = path.with_name(f"{path.stem}.verdicts.json")
        headline = _headline(reports_dir, path.stem)
        rows.append((f"[{text(_title(path))}]({path.name})", _code(f"switchq report {path.stem}")
                     if path.stem in about else "",
                     f"{headline} ([record]({verdicts.name}))" if headline else "no verdict record", models))
    return "\n".join(["# Reports", "", "The committed reports (`reports/`), each generated by its command and "
                      "judged claim by claim; the verdicts by class are those of its record "
                      "`reports/NAME.verdicts.json` (the default reading).", "",
                      *_table(["report", "command", "verdicts", "models"], rows),
                      "```{toctree}", ":hidden:", "", *(p.stem for p in sorted(reports_dir.glob("*.md"))), "```",
                      ""])


# --------------------------------------------------------------------------- writing

def _write(path: Path, content, written: set) -> None:
    """Write ``content`` (text or bytes) unless the file already holds it: an unchanged page keeps its time,
    so Sphinx does not read it again. Whole or not at all: another build may be reading the folder."""
    written.add(path)
    data = content.encode("utf-8") if isinstance(content, str) else content
    if not path.exists() or path.read_bytes() != data:
        scratch = path.with_name(f".{path.name}.{os.getpid()}")
        scratch.write_bytes(data)
        os.replace(scratch, path)


def _sweep(folder: Path, written: set) -> None:
    """Remove what an earlier build wrote into a generated folder and this one did not (a model renamed)."""
    for path in folder.iterdir():
        if path.name.startswith("."):
            continue        # another build's page being written
        if path.is_file() and path not in written:
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)


def write_site(docs: Path, root: Path, declared: Iterable[Architecture] | None = None) -> list:
    """Write the generated pages under ``docs``: ``models/`` (a page per declaration and its index) and
    ``reports/`` (the committed reports of ``root/reports`` with their figures, and their index). Both folders
    are generated whole (and kept out of git). Returns the pages written."""
    if declared is None:
        from .registry import declarations

        declared = declarations().values()
    declared = list(declared)
    docs, reports_dir = Path(docs), Path(root) / "reports"
    record = validation_record(root)
    models, reports = docs / "models", docs / "reports"
    written: set = set()
    for folder in (models, reports):
        folder.mkdir(parents=True, exist_ok=True)
    for d in declared:
        _write(models / f"{d.name}.md", model_page(d, record, reports_dir), written)
    _write(models / "index.md", models_index(declared), written)
    # The reports with their figures and their verdict records (linked from the pages: a download each).
    for path in sorted(reports_dir.glob("*.md")) + sorted(reports_dir.glob("*.png")) + sorted(
            reports_dir.glob("*.verdicts.json")):
        _write(reports / path.name, path.read_bytes(), written)
    _write(reports / "index.md", reports_index(reports_dir, declared), written)
    for folder in (models, reports):
        _sweep(folder, written)
    return sorted(p for p in written if p.suffix == ".md")
