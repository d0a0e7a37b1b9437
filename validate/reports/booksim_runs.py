"""BookSim2 itself, run on a configuration file with overrides, its final statistics read back (issue 38).

The comparison report and ``switchq bench --booksim`` run the reference simulator as a user would
(``booksim FILE key=value ...``) and read the block it prints last (``====== Overall Traffic Statistics ======``).
Each run is kept as a line of a JSON-lines file, keyed by what determines it (the file's text, the overrides, the
seed; the binary is BookSim2 at commit 28f43299), so a report built again reads its BookSim2 runs instead of
repeating them, and builds where no BookSim2 binary is (the committed ``reports/booksim-runs.jsonl``); a run that
ends ``Simulation unstable`` (BookSim2's latency threshold: past saturation) is kept as unstable, with no figures.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from pathlib import Path

__all__ = ["run", "parse", "FIGURES"]

# Its labels in the overall block, and our names for them.
FIGURES = {"Packet latency average": "packet_latency", "Network latency average": "network_latency",
           "Flit latency average": "flit_latency", "Accepted flit rate average": "throughput",
           "Accepted packet rate average": "accepted_packet_rate",
           "Injected packet rate average": "injected_packet_rate", "Hops average": "hops"}


def parse(text: str) -> dict:
    """BookSim2's stdout as figures: the overall block's averages, and ``stable`` (False: it ended unstable).
    Output that neither ends unstable nor gives the block (a crash, a refused file) is an error, not a run."""
    unstable = "Simulation unstable" in text
    if not unstable and "Overall Traffic Statistics" not in text:
        raise RuntimeError("BookSim2 gave neither its statistics nor 'Simulation unstable': " + text[-300:])
    out = {"stable": not unstable}
    block = text.split("====== Overall Traffic Statistics ======")[-1] if out["stable"] else ""
    for label, name in FIGURES.items():
        m = re.search(rf"^{re.escape(label)}\s*=\s*(\S+)", block, re.M)
        if m:
            out[name] = float(m.group(1))
    return out


COMMIT = "28f43299"
_loaded: dict = {}


def _key(config: Path, overrides: dict, seed: int) -> str:
    spec = json.dumps([COMMIT, config.read_text(), sorted((k, str(v)) for k, v in overrides.items()), seed])
    return hashlib.sha256(spec.encode()).hexdigest()[:24]


def _runs(cache: Path) -> dict:
    if cache not in _loaded:
        kept = {}
        if cache.exists():
            for line in cache.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    kept[r["key"]] = r
        _loaded[cache] = kept
    return _loaded[cache]


def run(binary, config, overrides: dict, seed: int, cache) -> dict:
    """BookSim2 ``binary`` on ``config`` with ``overrides`` (values written as BookSim2 types them: a real with a
    point) and ``seed``, or the run kept in the JSON-lines file ``cache``; with no binary, only a kept run."""
    from switchq.errors import InputError

    config = Path(config)
    key = _key(config, overrides, seed)
    kept = _runs(Path(cache)) if cache is not None else {}
    if key in kept:
        return kept[key]
    if binary is None or not Path(binary).is_file():
        raise InputError("BOOKSIM", binary, f"the path of a BookSim2 binary (commit {COMMIT}): the run of "
                                            f"{config.name} {overrides} seed {seed} is not kept")
    args = [str(binary), config.name, *(f"{k}={v}" for k, v in overrides.items()), f"seed={seed}"]
    t0 = time.perf_counter()
    done = subprocess.run(args, cwd=config.parent, capture_output=True, text=True, check=False)
    out = parse(done.stdout + done.stderr)
    out.update(key=key, seconds=round(time.perf_counter() - t0, 3), seed=seed,
               overrides={k: str(v) for k, v in overrides.items()}, config=config.name)
    if cache is not None:
        kept[key] = out
        with Path(cache).open("a") as f:
            f.write(json.dumps(out, sort_keys=True) + "\n")
    return out
