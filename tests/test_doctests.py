"""Every docstring example runs, imported by its public name (``switchq.*``)."""

import doctest
import importlib
import pkgutil

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
            if info.name not in SKIP:
                names.append(info.name)
    return sorted(set(names) - SKIP)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_version_is_set():
    assert switchq.__version__
