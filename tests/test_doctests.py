"""Every docstring example runs, imported by its public name (``switchq.*``).

Only modules whose source holds an example (``>>>``) are listed, and each must run at least one: a module
with none would pass without testing anything.
"""

import doctest
import importlib
import importlib.util
import pkgutil
from pathlib import Path

import pytest

import switchq

PACKAGES = ["switchq", "switchq.models", "switchq.solvers", "switchq.validate"]
SKIP = {"switchq.__main__"}


def _modules():
    names = []
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        names.append(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            names.append(info.name)
    return sorted(set(names) - SKIP)


def _with_examples():
    # Read from the source files, not imported: collecting the list should not import every module.
    return [name for name in _modules()
            if ">>>" in Path(importlib.util.find_spec(name).origin).read_text(encoding="utf-8")]


@pytest.mark.parametrize("name", _with_examples())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{name} has '>>>' in its source but no example doctest runs"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_version_is_set():
    assert switchq.__version__
