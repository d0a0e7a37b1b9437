"""The console blocks of the README and the docs pages against the commands they show (issue 34 item 6: the README
cannot go stale; issue 39: nor can the docs pages its tour moved to).

Every ```console block of README.md and of each hand-written markdown page under docs/ (``docs/**/*.md``, but for
the generated ``docs/models/`` and ``docs/reports/`` and the build in ``docs/_build/``) is a list of
``$ switchq ...`` lines, each followed by what that command printed. Each block's commands run here, in order, as
the user would run them: a subprocess of the `switchq` entry point, in a fresh folder per block (so a ``--store``
starts empty), at the width the block implies (a ``# at N columns`` comment on the command line, else 80: what a
file or a pipe gets). A block shown byte for byte on two pages (the README's short tour repeats blocks of the
guide) runs once, under the id of its first page (README.md first, then docs/ in path order); a test's id names
that page and the block's line (``README.md:75-solve-hol``). Then:

- text: identical but for whitespace (Rich pads and wraps by the widths of the figures) and numbers, each number
  within half a unit in the last digit the page prints (0.0705 stands for 0.07045 .. 0.07055); a line ``...``
  stands for lines left out;
- JSON (output starting with ``{`` or ``[``): every key the page shows, each value as above; ``...`` stands
  for keys left out, ``{...}`` for an object left out; an object without ``...`` must have exactly its keys.

Simulated figures run with the page's seed (or the default seed 1), and a seed fixes them whatever
``--workers`` is, so they are compared the same way. A command in SLOW is marked slow; when it is run, its
figures that carry an interval are compared by containment: the page's figure must lie inside the interval
the run prints. A successful command's stderr (progress lines with their times) is not shown on a page and
not compared; a failing command's message is.

A number on a page that changes fails here until the page is updated; the failure names the page and line and
prints the command's output.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
NOT_HAND_WRITTEN = {"_build", "models", "reports"}      # docs/ folders that are built or generated


def pages() -> list[Path]:
    """README.md, then every hand-written markdown page under docs/, in path order."""
    docs = [p for p in sorted(DOCS.rglob("*.md"))
            if p.relative_to(DOCS).parts[0] not in NOT_HAND_WRITTEN]
    return [README, *docs]


def page_name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()

NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?"
_NUMBER = re.compile(rf"(?<![\w.]){NUM}(?!\w)")
VARIES = "\u2039varies\u203a"

# What legitimately differs between runs or machines, never compared (the text around it still is):
VARYING_KEYS = {"wall_seconds"}                      # JSON: the run's own wall time
VARYING_TEXT = [
    (re.compile(r"(wall_seconds\s*│\s*)\S+"), r"\1" + VARIES),                # the same in a table
    (re.compile(rf"\b(seconds|s)(\s*=\s*){NUM}"), r"\1\2" + VARIES),          # a sweep / stored point's wall time
    (re.compile(rf"compute\s+{NUM}\s+s,\s+wall\s+{NUM}\s+s"),                 # a sweep's compute and wall time
     f"compute {VARIES} s, wall {VARIES} s"),
    (re.compile(r"created \(UTC\)(\s*=\s*)\S+\s+\S+"), r"created (UTC)\1" + VARIES),   # when a point was stored
]
VARYING_COLUMNS = {"seconds"}                        # a sweep table's wall time per point

# Commands too long for CI: over about 20 s on this repository's two busy cores with a warm Numba cache. None is
# now. Measured (warm, two cores rebuilding reports): validate voq 8.9 s, simulate fattree 6.2 s, simulate
# wormhole 5.3 s, sweep fifo 4.0 s, simulate voq 3.2 s, simulate circuit 2.3 s, every other under 2 s. A command
# listed here (by its text after "$ ", up to any comment) is marked slow and compared by interval containment.
SLOW: dict[str, float] = {}


# --------------------------------------------------------------------------- the pages' blocks

@dataclass
class Command:
    line: int                  # the page's line of the "$ " line
    text: str                  # the command as written, without its comment
    columns: int
    shown: list[str] = field(default_factory=list)   # the page's output lines
    page: str = "README.md"    # the page, relative to the repository

    @property
    def slow(self) -> bool:
        return self.text in SLOW

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass
class Block:
    line: int
    commands: list[Command]
    page: str = "README.md"
    also: list[str] = field(default_factory=list)     # the same block on other pages ("page:line"), not run again

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}-" + "-".join(self.commands[0].text.split()[1:3])

    @property
    def key(self) -> tuple:
        return tuple((c.text, c.columns, tuple(c.shown)) for c in self.commands)


def read_blocks(text: str, page: str = "README.md") -> list[Block]:
    blocks, block, command = [], None, None
    for n, line in enumerate(text.splitlines(), 1):
        if block is None:
            if line.strip() == "```console":
                block, command = Block(n, [], page), None
            continue
        if line.strip() == "```":
            blocks.append(block)
            block = None
            continue
        if line.startswith("$ "):
            words, _, comment = line[2:].partition(" #")
            width = re.search(r"\bat (\d+) columns\b", comment)
            command = Command(n, words.strip(), int(width.group(1)) if width else 80, page=page)
            block.commands.append(command)
        elif command is not None:
            command.shown.append(line)
    return blocks


def read_pages() -> list[Block]:
    """Every page's blocks, a block shown on two pages once (its other places in ``also``)."""
    first: dict[tuple, Block] = {}
    for path in pages():
        for block in read_blocks(path.read_text(encoding="utf-8"), page_name(path)):
            if block.key in first:
                first[block.key].also.append(f"{block.page}:{block.line}")
            else:
                first[block.key] = block
    return list(first.values())


BLOCKS = read_pages()


@dataclass
class Ran:
    rc: int
    stdout: str
    stderr: str

    @property
    def shown(self) -> str:
        """What a page shows of a run: its output, and its error message when it failed."""
        return self.stdout if self.rc == 0 else self.stdout + self.stderr


def run(command: Command, cwd: Path, previous: Ran | None = None) -> Ran:
    argv = shlex.split(command.text)
    if argv == ["echo", "$?"]:
        return Ran(0, f"{previous.rc}\n", "")
    assert argv[0] == "switchq", f"{command.where}: not a switchq command: {command.text}"
    env = {k: v for k, v in os.environ.items()
           if k not in {"FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "CLICOLOR_FORCE", "SWITCHQ_STORE"}}
    env["COLUMNS"] = str(command.columns)
    p = subprocess.run([sys.executable, "-m", "switchq", *argv[1:]], cwd=cwd, env=env,
                       capture_output=True, text=True, timeout=900)
    return Ran(p.returncode, p.stdout, p.stderr)


# --------------------------------------------------------------------------- comparing

def tolerance(shown: str) -> float:
    """Half a unit in the last digit of ``shown``; a float printed whole (15 or more significant digits, Python's
    repr) also gets 1e-12 of itself: its last digits are rounding, which summation order may change."""
    m = re.fullmatch(r"[-+]?(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?", shown)
    half = 0.5 * 10.0 ** (int(m.group(3) or 0) - len(m.group(2) or ""))
    if len((m.group(1) + (m.group(2) or "")).lstrip("0")) >= 15:
        half = max(half, 1e-12 * abs(float(shown)))
    return half


def close(shown: str, value) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(float(value) - float(shown)) <= tolerance(shown)


def inside(shown: str, low, high) -> bool:
    t = tolerance(shown)
    return float(low) - t <= float(shown) <= float(high) + t


def _mask(text: str) -> str:
    lines, columns = text.splitlines(), set()
    for i, line in enumerate(lines):
        if "┃" in line:
            named = {j for j, c in enumerate(line.split("┃")) if c.strip() in VARYING_COLUMNS}
            columns = named or columns
        elif columns and "│" in line:
            cells = line.split("│")
            for j in columns & set(range(len(cells))):
                cells[j] = _NUMBER.sub(VARIES, cells[j])
            lines[i] = "│".join(cells)
    text = "\n".join(lines)
    for pattern, replacement in VARYING_TEXT:
        text = pattern.sub(replacement, text)
    return text


_INTERVAL = re.compile(rf"({NUM}) \(95% CI ({NUM}) \.\. ({NUM})\)|({NUM}) ± ({NUM})")


def tokens(text: str, intervals: bool = False) -> list[tuple]:
    """``text`` as ("t", words) and ("n", number) tokens, whitespace collapsed and box rules shortened; with
    ``intervals``, each "x  (95% CI a .. b)" or "x ± h" is one ("ci", (x, low, high)) token."""
    text = re.sub(r"([━─═])\1+", r"\1", " ".join(_mask(text).split()))
    pieces = [text]
    if intervals:
        pieces, at = [], 0
        for m in _INTERVAL.finditer(text):
            x, h = m.group(4), m.group(5)
            pieces += [text[at:m.start()], (m.group(1), m.group(2), m.group(3)) if x is None
                       else (x, float(x) - float(h), float(x) + float(h))]
            at = m.end()
        pieces.append(text[at:])
    out = []
    for piece in pieces:
        if isinstance(piece, tuple):
            out.append(("ci", piece))
            continue
        at = 0
        for m in _NUMBER.finditer(piece):
            if piece[at:m.start()].strip():
                out.append(("t", piece[at:m.start()].strip()))
            out.append(("n", m.group()))
            at = m.end()
        if piece[at:].strip():
            out.append(("t", piece[at:].strip()))
    return out


def _same(mine, theirs) -> bool:
    if mine[0] != theirs[0]:
        return False
    if mine[0] == "n":
        return close(mine[1], float(theirs[1]))
    if mine[0] == "ci":               # interval containment: the page's figure inside the run's interval
        return inside(mine[1][0], theirs[1][1], theirs[1][2])
    return mine[1] == theirs[1]


def _show(toks) -> str:
    return " ".join(t if kind != "ci" else f"{t[0]} (95% CI {t[1]} .. {t[2]})" for kind, t in toks)


def compare_text(shown: str, actual: str, slow: bool = False) -> list[str]:
    """Differences between the page's text ``shown`` and a run's ``actual`` output. A line ``...`` in
    ``shown`` stands for any run of lines; otherwise the whole output must match, start to end."""
    segments = [tokens(s, slow) for s in re.split(r"(?m)^[ \t]*\.\.\.[ \t]*$", shown)]
    have = tokens(actual, slow)
    at = 0
    for k, want in enumerate(segments):
        if not want:
            continue
        best, best_start = -1, at
        for s in [at] if k == 0 else range(at, len(have)):     # the first segment starts the output
            n = 0
            while n < len(want) and s + n < len(have) and _same(want[n], have[s + n]):
                n += 1
            if n > best:
                best, best_start = n, s
            if n == len(want):
                break
        if best < len(want):
            s = best_start + best
            theirs = _show([have[s]]) if s < len(have) else "the end of the output"
            return [f"first difference: page {_show([want[best]])[:200]!r}, run {theirs[:200]!r}, after "
                    f"...{_show(want[max(0, best - 6):best])[-160:]!r}"]
        at = best_start + len(want)
    if segments[-1] and at < len(have):        # no "..." at the end: nothing more may follow
        return [f"the run prints more than the page: ...{_show(have[at:at + 8])}..."]
    return []


class Shown(str):
    """A number as the page prints it (its text gives its precision)."""


ELIDED = "\u2026"


def parse_shown_json(text: str):
    """A page's JSON, where ``...`` stands for left-out keys (kept as an ELIDED key) and ``{...}`` for an
    object left out; numbers are kept as Shown text."""
    text = re.sub(r'"(?:\\.|[^"\\])*"|\.\.\.',
                  lambda m: m.group() if m.group().startswith('"') else f'"{ELIDED}": 0', text)
    return json.loads(text, parse_float=Shown, parse_int=Shown)


def compare_json(shown, actual, slow: bool = False, path: str = "") -> list[str]:
    where = path or "the output"
    if isinstance(shown, dict):
        if not isinstance(actual, dict):
            return [f"{where}: the page shows an object, the run prints {actual!r}"[:300]]
        problems = []
        if ELIDED not in shown and set(shown) != set(actual):
            problems.append(f"{where}: keys differ: page only {sorted(set(shown) - set(actual))}, "
                            f"run only {sorted(set(actual) - set(shown))}")
        for k, v in shown.items():
            if k == ELIDED or k in VARYING_KEYS:
                continue
            if k not in actual:
                problems.append(f"{path}.{k}: not in the run's output" if path else f"{k}: not in the run's output")
                continue
            ci = actual.get(k + "_ci95")
            if slow and isinstance(v, Shown) and isinstance(ci, list) and len(ci) == 2:
                if not inside(v, *ci):
                    problems.append(f"{path + '.' if path else ''}{k}: page {v} lies outside the run's "
                                    f"interval {ci}")
                continue
            if slow and k.endswith("_ci95") and k[:-5] in shown:
                continue          # the interval of another run; its figure was checked against this run's
            problems += compare_json(v, actual[k], slow, f"{path}.{k}" if path else k)
        return problems
    if isinstance(shown, list):
        if not isinstance(actual, list) or len(actual) != len(shown):
            return [f"{where}: the page shows {len(shown)} items, the run prints "
                    f"{len(actual) if isinstance(actual, list) else repr(actual)[:100]}"]
        return [p for k, (s, a) in enumerate(zip(shown, actual))
                for p in compare_json(s, a, slow, f"{path}[{k}]")]
    if isinstance(shown, Shown):
        return [] if close(shown, actual) else [f"{where}: page {shown}, the run prints {actual!r}"]
    return [] if shown == actual else [f"{where}: page {shown!r}, the run prints {actual!r}"[:400]]


def compare(command: Command, ran: Ran) -> list[str]:
    shown = "\n".join(command.shown).strip()
    if shown and shown[0] in "{[":
        try:
            actual = json.loads(ran.shown)
        except ValueError:
            return [f"the page shows JSON, the run prints: {ran.shown[:500]!r}"]
        return compare_json(parse_shown_json(shown), actual, command.slow)
    return compare_text(shown, ran.shown, command.slow)


# --------------------------------------------------------------------------- the tests

def test_pages_have_their_blocks():
    """The parser finds the console blocks of the README and of the docs pages, and every command's output (a block
    of commands only would prove nothing), and the `--model all` table the test below reads."""
    commands = [c for b in BLOCKS for c in b.commands]
    assert len(BLOCKS) >= 19 and len(commands) >= 33
    assert all(c.shown for c in commands), [c.where for c in commands if not c.shown]
    places = {b.page for b in BLOCKS} | {where.partition(":")[0] for b in BLOCKS for where in b.also}
    assert {"README.md", "docs/guide/analytic.md", "docs/guide/sweeps.md"} <= places, places
    assert not any(p.startswith(("docs/_build/", "docs/models/", "docs/reports/")) for p in places), places
    rows = _pfc_model_table()
    assert set(rows) == {"ieee", "mlx5", "sonic", "cisco"} and all(rows.values()), rows


def _params():
    for b in BLOCKS:
        yield pytest.param(b, id=b.name, marks=[pytest.mark.slow] if any(c.slow for c in b.commands) else [])


@pytest.mark.parametrize("block", list(_params()))
def test_console_block(block, tmp_path):
    problems, previous = [], None
    for command in block.commands:
        ran = run(command, tmp_path, previous)
        found = compare(command, ran)
        if found:
            problems.append(f"{command.where}: $ {command.text}\n  " + "\n  ".join(found)
                            + f"\n  it now prints (rc {ran.rc}):\n" + ran.shown[:4000])
        previous = ran
    same = f" (the same block is at {', '.join(block.also)}: update it there too)" if block.also else ""
    assert not problems, (f"{block.page} is stale{same}; update it from these outputs:\n\n"
                          + "\n\n".join(problems))


def _block(prefix: str) -> tuple[Block, Command]:
    for b in BLOCKS:
        for c in b.commands:
            if c.text.startswith(prefix):
                return b, c
    raise LookupError(prefix)


def _alter_each_number(command: Command):
    """Yield (a page's output with one digit of one number changed, that number): each number in turn, its last
    digit moved by one (a difference of twice the tolerance)."""
    text = "\n".join(command.shown)
    for m in _NUMBER.finditer(text):
        number = m.group()
        if len(number.replace(".", "").lstrip("-0")) >= 15:
            continue                  # a float printed whole: its last digit is within the rounding slack
        digits = [i for i, ch in enumerate(number) if ch.isdigit()]
        last = digits[-1] if "e" not in number.lower() else [i for i in digits if i < number.lower().index("e")][-1]
        new = str((int(number[last]) + 1) % 10) if number[last] != "9" else "8"
        yield text[:m.start()] + number[:last] + new + number[last + 1:] + text[m.end():], number


@pytest.mark.parametrize("prefix", ["switchq solve oq ", "switchq size pfc --link-rate 400Gb/s --cable 100m "
                                    "--mtu 9216B --interface-delay"], ids=["table", "json"])
def test_a_changed_number_fails(prefix, tmp_path):
    """The comparer is not one that passes everything: the block as written agrees with the run, and the same
    block with one digit of one number changed (each number in turn) is reported, at that number."""
    _, command = _block(prefix)
    ran = run(command, tmp_path)
    assert compare(command, ran) == []
    altered = 0
    for text, number in _alter_each_number(command):
        problems = compare(Command(command.line, command.text, command.columns, text.splitlines(), command.page), ran)
        assert problems, f"changing {number} in {command.where}'s output was not noticed"
        altered += 1
    assert altered >= 10
    words = Command(command.line, command.text, command.columns,
                    [line.replace("headroom", "headroon").replace("throughput", "throughputs")
                     for line in command.shown])
    assert compare(words, ran), "a changed word was not noticed"


def test_interval_containment_is_a_real_check():
    """What a slow command gets: the page's figure must lie inside the interval the run prints."""
    run_text = "│ result │ mean_latency │ 45.5971  (95% CI 45.2403 .. 45.9539) │ slots │"
    inside_it = "│ result │ mean_latency │ 45.31  (95% CI 45.0 .. 45.6) │ slots │"
    assert compare_text(inside_it, run_text, slow=True) == []
    outside = "│ result │ mean_latency │ 46.02  (95% CI 45.7 .. 46.3) │ slots │"
    assert compare_text(outside, run_text, slow=True)
    assert compare_text(inside_it, run_text) != []       # not slow: the figures themselves are compared
    run_json = {"throughput": 0.6038, "throughput_ci95": [0.5856, 0.6219], "unstable": False}
    assert compare_json(parse_shown_json('{..., "throughput": 0.612, "throughput_ci95": [0.60, 0.63], ...}'),
                        run_json, slow=True) == []
    assert compare_json(parse_shown_json('{..., "throughput": 0.63, ...}'), run_json, slow=True)
    assert compare_json(parse_shown_json('{..., "unstable": true, ...}'), run_json, slow=True)


def _pfc_model_table() -> dict[str, list[str]]:
    """The `--model all` table (docs/guide/lossless.md's): model -> the headroom figures of its row."""
    header = "| `--model` | headroom (B) |"
    text = next(t for t in (p.read_text(encoding="utf-8") for p in pages()) if header in t)
    head = text.index(header)
    rows = {}
    for line in text[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0].strip("`")] = _NUMBER.findall(cells[1])
    return rows


def test_pfc_model_table_comes_from_one_command(tmp_path):
    """Issue 34 item 4: the four-row 400 Gb/s table is what one command prints (the console block above it
    shows that command's own output), each model's figures in its own row."""
    rows = _pfc_model_table()
    text = ("switchq size pfc --link-rate 400Gb/s --cable 100m --mtu 9216B --interface-delay 1228.8ns "
            "--model all")
    assert _block(text)[1].text == text
    ran = run(Command(0, text, 80), tmp_path)
    assert ran.rc == 0, ran.stderr
    printed = [float(n) for n in _NUMBER.findall(ran.stdout)]
    answers = {r["model"]: r for r in json.loads(run(Command(0, text + " --json", 80), tmp_path).stdout)}
    for model, figures in rows.items():
        assert model in ran.stdout
        mine = [v for k, v in answers[model].items() if k.endswith("_bytes")]
        for figure in figures:
            assert any(close(figure, x) for x in printed), f"{model}: {figure} B is not in the output"
            assert any(close(figure, x) for x in mine), f"{model}: {figure} B is not in its row: {mine}"


def _python_sessions():
    """Each page's ```python blocks that hold a session (``>>>``), with their lines: one session a page, its blocks
    run in order in one namespace, as a reader types them into one interpreter."""
    fence = re.compile(r"^```python\n(.*?)^```", re.M | re.S)
    for page in pages():
        text = page.read_text(encoding="utf-8")
        blocks = [(text[:m.start()].count("\n") + 2, m.group(1)) for m in fence.finditer(text) if ">>>" in m.group(1)]
        if blocks:
            yield pytest.param(page, blocks, id=page_name(page))


@pytest.mark.parametrize("page, blocks", list(_python_sessions()))
def test_python_session(page, blocks, tmp_path, monkeypatch):
    # The Python sessions run as doctests (as the docstrings' examples do), in a fresh folder: a sweep's store
    # or a report's files land there.
    import doctest

    monkeypatch.chdir(tmp_path)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict = {}
    for line, source in blocks:
        test = doctest.DocTestParser().get_doctest(source, namespace, f"{page.name}:{line}", str(page), line - 1)
        runner.run(test, clear_globs=False)
        namespace = test.globs              # a DocTest runs in a copy: the next block goes on from this one's
    assert runner.failures == 0 and runner.tries > 0, f"{page}: {runner.failures} of {runner.tries} examples failed"
