"""Design-space sweeps: any registered model, analytic or simulated, over a grid of parameters.

``switchq sweep MODEL --vary NAME=VALUES ...`` and :func:`sweep` (also
``switchq.sweep(...)``) share this engine, in five parts:

1. :mod:`.grid` reads ``--vary`` values (lists, ranges, geometric and log
   grids) into checked, canonical values;
2. :mod:`.plan` checks every point before any work (a bad grid fails with
   one line, nothing computed or stored), keys and seeds it;
3. :mod:`.engine` reuses points already in the result store
   (:mod:`switchq.store`) and runs the rest: analytic points in this
   process, simulated ones over local processes or a Dask cluster
   (:mod:`.executors`), each committed as soon as it finishes;
4. :mod:`.export` writes tables, CSV, Parquet and plots;
5. :mod:`.query` reads stored points back (``switchq results``).

Examples
--------
>>> rows = run_sweep("hol", {"ports": "2:4"}, store=None).rows()
>>> [(r["ports"], r["exact"]) for r in rows]
[(2, '3/4'), (3, '43/63'), (4, '325/496')]
"""

from .bench import sweep_bench
from .engine import _DEFAULT  # noqa: F401  (the CLI's "default store" marker)
from .engine import Record, SweepInterrupted, SweepRun, run_plan, run_points, run_sweep, sweep
from .export import check_y, flatten, to_frame, write_csv, write_parquet, write_plot
from .grid import MAX_POINTS, VARY_SYNTAX, fmt, values
from .plan import Plan, Point, check_points, plan_points, plan_sweep, point_seed
from .query import results_rows

__all__ = ["sweep", "run_sweep", "run_points", "run_plan", "plan_sweep", "plan_points", "values", "point_seed", "SweepRun", "Plan", "Point", "Record",
           "check_points", "flatten", "write_csv", "write_parquet", "write_plot", "to_frame", "results_rows",
           "sweep_bench", "check_y", "SweepInterrupted", "MAX_POINTS", "VARY_SYNTAX", "fmt"]
