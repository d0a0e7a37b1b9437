"""What a CLI call imports (issue 26, warm start): an analytic answer loads one declaration and no NumPy,
a simulation loads no scipy.stats or SciPy's BLAS; and the command index the CLI relies on for that is
the one discovery finds."""

import json
import subprocess
import sys
from pathlib import Path

import switchq.architectures
from switchq import registry


def test_the_command_index_is_what_discovery_finds_and_is_found_again_when_a_module_changes(tmp_path):
    assert registry.command_index() == registry.discovered_index()
    assert registry.command_index()["solve"]["hol"] == "fifo"
    cache = Path(switchq.architectures.__path__[0]) / "__pycache__" / "commands.json"
    kept = json.loads(cache.read_text())
    # A kept index is used as it is while the modules are unchanged ...
    cache.write_text(json.dumps({"key": kept["key"], "index": {"solve": {"hol": "oq"}}}))
    try:
        assert registry.command_index() == {"solve": {"hol": "oq"}}
        # ... and found again when one is added, removed, or edited (its size or time differs).
        kept["key"][0][1] += 1
        cache.write_text(json.dumps({"key": kept["key"], "index": {"solve": {"hol": "oq"}}}))
        assert registry.command_index() == registry.discovered_index()
    finally:
        cache.unlink()
    assert registry.command_index() == registry.discovered_index()


def _modules_after(args):
    code = ("import sys, json\nfrom switchq.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n"
            "    pass\nprint(json.dumps(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_an_analytic_answer_imports_its_own_declaration_and_no_numpy():
    loaded = _modules_after(["solve", "hol", "--ports", "8", "--json"])
    assert {m for m in loaded if m.startswith("switchq.architectures.")} == {
        "switchq.architectures.fifo", "switchq.architectures._shared"}
    assert not {"numpy", "scipy", "numba", "sympy"} & {m.split(".")[0] for m in loaded}


def test_a_simulation_imports_neither_scipy_stats_nor_scipys_blas():
    loaded = _modules_after(["simulate", "oq", "--ports", "4", "--load", "0.5", "--slots", "200", "-r", "2",
                             "--workers", "1", "--json"])
    assert "numba" in loaded
    assert not {"scipy.stats", "scipy.linalg"} & loaded


def test_listing_the_sweep_models_imports_no_solver():
    # An answer's figures are read from its solver's result, so reading them for a listing would import every
    # solver (and NumPy): the models read them at first use.
    loaded = _modules_after(["sweep", "--help"])
    assert not {m for m in loaded if m.startswith("switchq.solvers.")} - {"switchq.solvers.figures"}
    assert "numpy" not in loaded
