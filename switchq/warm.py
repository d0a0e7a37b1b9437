"""``switchq warm``: compile every simulator kernel into Numba's on-disk cache, in parallel processes.

A first simulation on a machine compiles its kernel (seconds to tens of seconds each); ``warm`` does it for
every declared architecture at once, one process per core, by running each declaration's ``sample`` point
for a few slots, so later runs load machine code from the cache. The largest kernels (by source) go first:
they take longest to compile, so the processes finish together. The cache is under ``$NUMBA_CACHE_DIR``, a folder
per kernel module named after its sources and every helper it imports (:mod:`switchq.validate.cache`): after an
edit to any of them, ``warm`` compiles that kernel again.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

def _source_size(module: str) -> int:
    """Bytes of a kernel's source (a module, or a package's modules), found without importing it."""
    from importlib.util import find_spec
    from pathlib import Path

    origin = Path(find_spec(module).origin)
    files = origin.parent.rglob("*.py") if origin.name == "__init__.py" else [origin]
    return sum(f.stat().st_size for f in files)


def by_compile_time(declarations) -> list:
    """Names of the simulated ``declarations``, the largest kernel (the longest to compile) first, so that
    processes compiling them in parallel finish together."""
    return [d.name for d in sorted(declarations, key=lambda d: (-_source_size(d.kernel), d.name))]


def compile_one(name: str) -> float:
    """Compile (or load from the cache) architecture ``name``'s kernel by a tiny run of its sample point;
    return the seconds it took."""
    import importlib

    from .registry import declarations
    from .validate import kernel as K

    d = declarations()[name]
    t0 = time.perf_counter()
    params = {**d.defaults(), **{k: d.param(k).parse(v) for k, v in d.sample.items()}}
    system, workload = d.build(params)
    kernel = importlib.import_module(d.kernel)
    kernel.replicate(system, workload, K.Run(slots=200, warmup=20, drain=0, seed=1))
    return time.perf_counter() - t0


def warm(workers: int = 0, out=sys.stderr) -> dict:
    """Compile every kernel; a line per kernel on ``out`` as it finishes. Returns name -> seconds."""
    from .registry import declarations

    names = by_compile_time(d for d in declarations().values() if d.simulated)
    jobs = (os.cpu_count() or 1) if workers == 0 else workers
    done = {}
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(compile_one, n): n for n in names}
        for i, f in enumerate(as_completed(futures), 1):
            name = futures[f]
            done[name] = f.result()
            out.write(f"[{i}/{len(names)}] {name}: ready in {done[name]:.1f} s\n")
            out.flush()
    out.write(f"{len(names)} kernels ready in {time.perf_counter() - t0:.1f} s on {jobs} processes\n")
    return done
