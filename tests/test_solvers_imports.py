"""The light solvers load alone with no SciPy, SymPy, Numba or Pint: they answer in milliseconds, and an
import that pulls in a heavy dependency costs more than the answer."""

import subprocess
import sys

import pytest

import switchq.solvers

LIGHT = ["hol", "iq", "oq", "window", "multicast", "flow_control"]


@pytest.mark.parametrize("name", LIGHT)
def test_a_light_solver_imports_nothing_heavy(name):
    # Load the module alone (not its package's other modules, which __init__ would import).
    code = ("import sys, types, importlib; pkg = types.ModuleType('switchq.solvers'); "
            "pkg.__path__ = [sys.argv[1]]; sys.modules['switchq.solvers'] = pkg; "
            "importlib.import_module('switchq.solvers.' + sys.argv[2]); "
            "heavy = {'scipy', 'sympy', 'numba', 'pint'} & {m.split('.')[0] for m in sys.modules}; "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code, switchq.solvers.__path__[0], name], check=True)
