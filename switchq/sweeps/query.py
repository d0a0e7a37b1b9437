"""Reading stored points back: ``switchq results`` lists, filters (``--where``) and exports them."""

from __future__ import annotations

from pathlib import Path

from switchq.errors import InputError
from switchq.store import DEFAULT_TIMEOUT, Store, default_path

from .engine import _DEFAULT

__all__ = ["results_rows"]

def results_rows(store, model: str | None = None, mode: str | None = None, where=(), limit: int | None = None,
                 lock_timeout: float = DEFAULT_TIMEOUT) -> list:
    """Stored points as rows (id, model, mode, parameters, results, seed, settings, version, wall, created).

    ``where``: filters ``NAME=V1,V2``, ``NAME!=V``, ``NAME<V``, ``NAME<=V``, ``NAME>V``, ``NAME>=V`` on a
    parameter, a result or a column (model, mode, seed, switchq_version).
    """
    tests = [_where(w) for w in where]
    path = default_path() if store is _DEFAULT or store is None else Path(store)
    with Store(path, timeout=lock_timeout, readonly=True) as db:
        stored = db.rows(model, mode)
    from switchq.registry import MODELS

    out = []
    for s in stored:
        row = {"id": s["id"], "model": s["model"], "mode": s["mode"]}
        known = MODELS.get(s["model"])
        order = [p.name for p in known.params if p.name in s["params"]] if known is not None else []
        row.update({k: s["params"][k] for k in order})
        row.update(s["params"])                 # anything the registry no longer lists, last
        for k, v in s["results"].items():
            row[k + "_result" if k in s["params"] else k] = v
        row.update(seed=s["seed"], settings=s["settings"], switchq_version=s["switchq_version"],
                   wall_seconds=s["wall_seconds"], created_at=s["created_at"])
        if all(t(row) for t in tests):
            out.append(row)
    return out if limit is None else out[-limit:] if limit > 0 else []


def _scalar(text: str):
    t = text.strip()
    if t.lower() == "none":
        return None
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return float(t)
    except ValueError:
        return t


def _where(expr: str):
    import operator
    import re

    m = re.fullmatch(r"\s*([A-Za-z_][\w-]*)\s*(<=|>=|!=|=|<|>)\s*(.*?)\s*", expr or "")
    if m is None or not m.group(3):
        raise InputError("--where", expr, "NAME=V1,V2, NAME!=V, NAME<V, NAME<=V, NAME>V or NAME>=V")
    name, op, text = m.group(1).replace("-", "_"), m.group(2), m.group(3)
    if op in ("=", "!="):
        wanted = [_scalar(t) for t in text.split(",")]

        def same(a, b):
            if isinstance(a, (int, float)) and not isinstance(a, bool) and isinstance(b, float):
                return float(a) == b
            return a == b

        def test(row):
            if name not in row:
                return False
            hit = any(same(row[name], w) for w in wanted)
            return hit if op == "=" else not hit
        return test
    bound = _scalar(text)
    if not isinstance(bound, float):
        raise InputError("--where", expr, f"a number after {op}")
    compare = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}[op]

    def test(row):
        v = row.get(name)
        return isinstance(v, (int, float)) and not isinstance(v, bool) and compare(v, bound)
    return test
