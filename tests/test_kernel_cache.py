"""Caches that cannot go stale (issue 35, item 6): a compiled kernel and a stored figure are keyed on every
source they are built from, found by reading imports, so an edit to a helper in another file recompiles the
kernel and retires the stored figures, and an edit elsewhere does neither.

The whole-package tests run a copy of the package in a scratch folder, in fresh processes with a fresh
Numba cache, so nothing here touches the real sources or the real cache.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import switchq.validate
from switchq.validate.sources import module_files, package_modules

ROOT = Path(switchq.validate.__file__).resolve().parents[1]

# A kernel that inlines a helper from another file, reached through a toolkit module that re-exports it, as
# the real kernels reach arrivals.py through kernel.py.
PROBE = {
    "validate/probe_helper.py": 'from numba import njit\n\n\n@njit(cache=True, inline="always")\n'
                                "def helper(x):\n    return x + 1\n",
    "validate/probe_toolkit.py": "from .probe_helper import helper  # noqa: F401\n",
    "validate/arch/probe.py": "from numba import njit\n\nfrom .. import probe_toolkit as T\n\n\n"
                              "@njit(cache=True)\ndef probe(x):\n    return T.helper(x)\n",
}

_PROBE_RUN = """
import json
import switchq.validate
from switchq.validate.arch.probe import probe
value = probe(1)
print(json.dumps({"source": switchq.validate.__file__, "value": value, "cache_path": probe.stats.cache_path,
                  "hits": sum(probe.stats.cache_hits.values()), "misses": sum(probe.stats.cache_misses.values())}))
"""

_VERSIONS = """
import json
import switchq.store, switchq.validate
print(json.dumps([switchq.validate.__file__, switchq.validate.simulator_version(),
                  switchq.store.simulator_version()]))
"""


def _copy_package(dest: Path) -> Path:
    """A copy of the package laid out as installed (switchq/, switchq/validate/, ...) under ``dest``."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "switchq", dest / "switchq", ignore=ignore)
    for sub in ("models", "solvers", "validate"):
        shutil.copytree(ROOT / sub, dest / "switchq" / sub, ignore=ignore)
    return dest / "switchq"


def _run(code: str, src: Path, cache: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_LOCATOR_CLASSES", "PYTHONPATH")}
    env.update(PYTHONPATH=str(src), NUMBA_CACHE_DIR=str(cache))
    out = subprocess.run([sys.executable, "-c", code], cwd=src, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    answer = json.loads(out.stdout.splitlines()[-1])
    source = answer["source"] if isinstance(answer, dict) else answer[0]
    assert source.startswith(str(src)), source     # the copy ran, not the installed package
    return answer


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, path
    path.write_text(text.replace(old, new))


def test_a_kernel_compiles_again_when_a_helper_it_inlines_from_another_file_changes(tmp_path):
    package = _copy_package(tmp_path / "src")
    for name, text in PROBE.items():
        (package / name).write_text(text)
    cache = tmp_path / "numba"
    first = _run(_PROBE_RUN, tmp_path / "src", cache)
    assert (first["value"], first["misses"]) == (2, 1)
    again = _run(_PROBE_RUN, tmp_path / "src", cache)
    assert (again["value"], again["hits"], again["misses"]) == (2, 1, 0)   # loaded from the cache

    # Numba's own locator would load the old machine code here (it checks arch/probe.py alone) and print 2.
    _edit(package / "validate/probe_helper.py", "x + 1", "x + 2")
    edited = _run(_PROBE_RUN, tmp_path / "src", cache)
    assert (edited["value"], edited["misses"]) == (3, 1)
    assert edited["cache_path"] != first["cache_path"]
    assert not Path(first["cache_path"]).exists()      # the outdated folder is removed: one per module stays

    # An edit to a file the kernel does not import keeps its folder: it loads, nothing compiles.
    (package / "validate/arch/oq.py").write_text((package / "validate/arch/oq.py").read_text() + "\n# edited\n")
    unrelated = _run(_PROBE_RUN, tmp_path / "src", cache)
    assert (unrelated["value"], unrelated["hits"], unrelated["cache_path"]) == (3, 1, edited["cache_path"])


def test_the_simulator_version_changes_with_a_helper_the_kernels_import_and_not_with_other_files(tmp_path):
    package = _copy_package(tmp_path / "src")
    src, cache = tmp_path / "src", tmp_path / "numba"
    _, simulator, stored = _run(_VERSIONS, src, cache)

    # A helper two imports away from every kernel (kernel.py re-exports it): both fingerprints move.
    (package / "validate/events.py").write_text((package / "validate/events.py").read_text() + "\n# edited\n")
    _, simulator_2, stored_2 = _run(_VERSIONS, src, cache)
    assert simulator_2 != simulator and stored_2 != stored

    # The front door's CLI and a report builder: neither is what a figure is simulated with.
    (package / "cli.py").write_text((package / "cli.py").read_text() + "\n# edited\n")
    (package / "validate/verdict.py").write_text((package / "validate/verdict.py").read_text() + "\n# edited\n")
    assert _run(_VERSIONS, src, cache)[1:] == [simulator_2, stored_2]

    # A declaration is the front door's part: the stored figures' key moves, the simulator's own does not.
    (package / "architectures/oq.py").write_text((package / "architectures/oq.py").read_text() + "\n# edited\n")
    _, simulator_4, stored_4 = _run(_VERSIONS, src, cache)
    assert simulator_4 == simulator_2 and stored_4 != stored_2


def test_every_kernel_of_the_package_is_cached_by_its_sources():
    from numba.core.registry import CPUDispatcher

    from switchq.validate.cache import SourceLocator

    checked = 0
    for name in package_modules("switchq.validate.arch") + ["switchq.validate.kernel"]:
        module = importlib.import_module(name)
        for f in vars(module).values():
            if isinstance(f, CPUDispatcher) and f.__module__ == name and f._cache.cache_path is not None:
                locator = f._cache._impl.locator
                assert isinstance(locator, SourceLocator), (name, f)
                assert Path(locator.get_cache_path()).name.rsplit("-", 1)[0] == name
                checked += 1
    assert checked > 20


def _write(root: Path, files: dict) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_imports_are_read_inside_functions_relative_and_through_a_package_that_finds_names_late(tmp_path,
                                                                                                monkeypatch):
    _write(tmp_path, {
        "probe_pkg/__init__.py": "",
        "probe_pkg/kernel.py": "import numpy\nfrom . import toolkit\n\n\ndef run():\n"
                               "    from .sub import deep\n    return deep\n",
        "probe_pkg/toolkit.py": "from .late import Traffic\n",
        "probe_pkg/sub/__init__.py": "",
        "probe_pkg/sub/deep.py": "from ..constants import N\n",
        "probe_pkg/constants.py": "N = 3\n",
        "probe_pkg/late/__init__.py": "import importlib\n\n\ndef __getattr__(name):\n"
                                      "    return getattr(importlib.import_module(f'{__name__}.traffic'), name)\n",
        "probe_pkg/late/traffic.py": "class Traffic:\n    pass\n",
        "probe_pkg/late/other.py": "",
        "probe_pkg/unrelated.py": "from . import kernel\n",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    files = module_files(["probe_pkg.kernel"], layers=("probe_pkg",))
    # The package itself is not read for ``from . import toolkit`` (a module), nor numpy (another layer);
    # ``late`` finds its names at run time, so all of its modules count.
    assert set(files) == {"probe_pkg.kernel", "probe_pkg.toolkit", "probe_pkg.sub.deep", "probe_pkg.constants",
                          "probe_pkg.late", "probe_pkg.late.traffic", "probe_pkg.late.other"}


def test_the_import_graph_kept_on_disk_is_used_only_while_its_files_and_folders_are_unchanged(tmp_path,
                                                                                               monkeypatch):
    from switchq.validate import sources

    _write(tmp_path, {
        "probe_pkg/__init__.py": "",
        "probe_pkg/kernel.py": "from . import toolkit\n",
        "probe_pkg/toolkit.py": "from .late import Traffic\n",
        "probe_pkg/late/__init__.py": "def __getattr__(name):\n    raise AttributeError(name)\n",
        "probe_pkg/late/traffic.py": "",
        "probe_pkg/extra.py": "",
    })
    monkeypatch.syspath_prepend(str(tmp_path))
    memo = tmp_path / "memo" / "kernel.files.json"

    def files():
        """The answer a new process would give: nothing read by an earlier call is kept in memory."""
        sources._read.cache_clear()
        importlib.invalidate_caches()
        return set(module_files(["probe_pkg.kernel"], layers=("probe_pkg",), memo=memo))

    first = files()
    assert first == set(module_files(["probe_pkg.kernel"], layers=("probe_pkg",))) and memo.exists()
    # A later process with nothing changed answers from the memo: no source is parsed.
    monkeypatch.setattr(sources.ast, "parse", lambda *a: (_ for _ in ()).throw(AssertionError("parsed")))
    assert files() == first
    monkeypatch.undo()
    monkeypatch.syspath_prepend(str(tmp_path))

    # Stamps tick in steps of up to a few ms: let time move on as it does between two edits.
    time.sleep(0.05)
    (tmp_path / "probe_pkg/late/more.py").write_text("")      # a module beside the lazy package's: its folder
    assert files() == first | {"probe_pkg.late.more"}
    time.sleep(0.05)
    (tmp_path / "probe_pkg/toolkit.py").write_text("from .late import Traffic\nfrom . import extra\n")
    assert files() == first | {"probe_pkg.late.more", "probe_pkg.extra"}
    memo.write_text("{not json")                                # a torn or foreign memo: read the sources
    assert files() == first | {"probe_pkg.late.more", "probe_pkg.extra"}
    # The same files asked for under another question (a package imported under another name) are not served.
    assert set(module_files(["probe_pkg.toolkit"], layers=("probe_pkg",), memo=memo)) == {
        "probe_pkg.toolkit", "probe_pkg.late", "probe_pkg.late.traffic", "probe_pkg.late.more", "probe_pkg.extra"}


_EDITED_UNDER = """
import json
import switchq.validate
from switchq.validate.sources import digest, module_files
files = module_files(["switchq.validate.arch.oq"])
before = digest(files)
events = files["switchq.validate.events"]
events.write_text(events.read_text() + "\\n# edited\\n")
print(json.dumps([switchq.validate.__file__, before, digest(module_files(["switchq.validate.arch.oq"]))]))
"""

_DIGEST = """
import json
import switchq.validate
from switchq.validate.sources import digest, module_files
print(json.dumps([switchq.validate.__file__, digest(module_files(["switchq.validate.arch.oq"]))]))
"""


def test_a_process_whose_sources_change_under_it_keys_nothing_as_the_new_sources(tmp_path):
    # It may run the code it imported before the edit (a running ``switchq serve``): what it compiles or
    # stores must be found neither by a process of the old sources nor by one of the new.
    _copy_package(tmp_path / "src")
    src, cache = tmp_path / "src", tmp_path / "numba"
    _, before, during = _run(_EDITED_UNDER, src, cache)
    _, after = _run(_DIGEST, src, cache)
    assert len({before, during, after}) == 3
