"""The result store of ``switchq sweep``: one SQLite file, one row per finished point.

Every point is committed in its own transaction the moment it finishes, so a
sweep stopped at any moment (Ctrl-C, ``kill -9``, a power cut aside) keeps
every point it finished, and the next run of the same sweep skips them. The
file is in WAL mode with ``synchronous=NORMAL``: a commit survives the death
of the process that made it (not the loss of power to the machine), and costs
tens of microseconds instead of a disk flush.

A row is keyed by (model, mode, canonical parameter JSON, seed, run-settings
JSON); ``key`` is the SHA-256 of those five. Columns::

    id, key, model, mode ('analytic' | 'simulated'), params (JSON), results (JSON),
    seed (NULL for analytic points), settings (JSON), switchq_version,
    wall_seconds, created_at (UTC, ISO 8601)

Errors are :class:`StoreError` (an :class:`~switchq.errors.InputError` naming
``--store``, so the CLI prints one line and exits 2): a store another process
keeps locked past ``timeout`` seconds, a file that is not a switchq store or
is damaged (left untouched: never repaired, truncated or deleted).

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "results.sqlite")
>>> with Store(path) as s:
...     k = point_key("oq", "analytic", {"ports": 16, "load": 0.8}, None, {})
...     s.add(k, "oq", "analytic", {"ports": 16, "load": 0.8}, {"mean_wait": 1.875}, None, {}, 0.001)
...     sorted(s.finished("oq", "analytic"))[0] == k
True
>>> [r["results"] for r in Store(path, readonly=True).rows()]
[{'mean_wait': 1.875}]
>>> open(path, "wb").write(b"not a database" * 100) and None
>>> Store(path)
Traceback (most recent call last):
...
switchq.store.StoreError: --store: got '...results.sqlite'; allowed: a switchq result store (SQLite); this file is not one or is damaged (file is not a database); it was left untouched: move it aside or give another --store
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import sqlite3
from datetime import datetime, timezone
from pathlib import Path

from .errors import InputError

__all__ = ["Store", "StoreError", "point_key", "simulator_version", "canonical_json", "dumps", "default_path",
           "DEFAULT_TIMEOUT"]

APPLICATION_ID = 0x53575131  # "SWQ1": marks a switchq store in the SQLite header
SCHEMA_VERSION = 1
DEFAULT_TIMEOUT = 10.0
DEFAULT_NAME = "switchq-results.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS points (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    model TEXT NOT NULL,
    mode TEXT NOT NULL,
    params TEXT NOT NULL,
    results TEXT NOT NULL,
    seed INTEGER,
    settings TEXT NOT NULL,
    switchq_version TEXT NOT NULL,
    wall_seconds REAL NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS points_model_mode ON points (model, mode);
"""


class StoreError(InputError):
    """The store cannot be used: locked, not a switchq store, damaged or not writable (names ``--store``)."""

    def __init__(self, path, allowed: str):
        super().__init__("--store", str(path), allowed)


def default_path() -> Path:
    """``$SWITCHQ_STORE``, else ``switchq-results.sqlite`` in the current directory."""
    return Path(os.environ.get("SWITCHQ_STORE") or DEFAULT_NAME)


def _clean(v):
    if isinstance(v, float) and not math.isfinite(v):
        return None  # standard JSON has no NaN: null means "not measurable here"
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    return v


def dumps(obj, sort_keys: bool = False) -> str:
    """Compact standard JSON (NaN and infinities as null)."""
    try:
        return json.dumps(obj, sort_keys=sort_keys, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a NaN somewhere: the slow path cleans it
        return json.dumps(_clean(obj), sort_keys=sort_keys, separators=(",", ":"))


def canonical_json(obj) -> str:
    """Sorted keys, no spaces, NaN as null: equal values always give equal text.

    Examples
    --------
    >>> canonical_json({"load": 0.5, "ports": 8})
    '{"load":0.5,"ports":8}'
    >>> canonical_json([float("nan"), (1, 2)])
    '[null,[1,2]]'
    """
    return dumps(obj, sort_keys=True)


def point_key(model: str, mode: str, params: dict, seed, settings: dict) -> str:
    """SHA-256 (hex) of (model, mode, params, seed, settings), the store's key of one point.

    ``params`` and ``settings`` may be given as their :func:`canonical_json` text.
    """
    params = params if isinstance(params, str) else canonical_json(params)
    settings = settings if isinstance(settings, str) else canonical_json(settings)
    text = f"[{canonical_json(model)},{canonical_json(mode)},{params},{canonical_json(seed)},{settings}]"
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=1)
def simulator_version() -> str:
    """The simulator's fingerprint in a simulated point's settings (so in its key): the simulator's own
    (:func:`switchq.validate.simulator_version`) with the declarations', every module of
    :mod:`switchq.architectures` and every switchq module they import at any depth (``declaration``,
    ``params``, the models and solvers they read), read from their imports
    (:func:`switchq.validate.sources.module_files`). A stored figure is served only by the code that would
    make it again. Computed once per process.

    >>> len(simulator_version())
    12
    """
    from .validate import simulator_version as simulator
    from .validate.sources import digest, memo_file, module_files, package_modules

    declarations = module_files(package_modules("switchq.architectures"), layers=("switchq",),
                                memo=memo_file("declarations", Path(__file__)))
    return hashlib.sha256(f"{simulator()} {digest(declarations)}".encode()).hexdigest()[:12]


def _is_lock(e) -> bool:
    text = str(e).lower()
    return "locked" in text or "busy" in text


class Store:
    """A switchq result store (see the module docstring); a context manager.

    Parameters
    ----------
    path : str or Path
        The SQLite file; created (with its folder's permission) if absent,
        unless ``readonly``.
    timeout : float
        Seconds to wait for a lock held by another process before failing.
    readonly : bool
        Open for reading only (``switchq results``); the file must exist.
    """

    def __init__(self, path, timeout: float = DEFAULT_TIMEOUT, readonly: bool = False):
        self.path = Path(path)
        if not (isinstance(timeout, (int, float)) and 0 <= timeout < 1e6):
            raise InputError("--lock-timeout", timeout, "seconds >= 0")
        self.timeout = float(timeout)
        self.readonly = readonly
        if self.path.is_dir():
            raise StoreError(self.path, "a file path, not a folder")
        exists = self.path.exists() and self.path.stat().st_size > 0
        if readonly and not exists:
            raise StoreError(self.path, "an existing switchq result store (there is no store at this path)")
        try:
            if readonly:
                self._con = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                            timeout=self.timeout, isolation_level=None)
            else:
                self._con = sqlite3.connect(str(self.path), timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as e:
            raise StoreError(self.path, f"a file switchq can open and write ({e})") from None
        try:
            if exists:
                self._check()
            if not readonly:
                self._prepare()
        except StoreError:
            self._con.close()
            raise
        except sqlite3.Error as e:
            self._con.close()
            raise self._error(e) from None

    # ------------------------------------------------------------------ opening

    def _error(self, e: sqlite3.Error) -> StoreError:
        e = " ".join(str(e).split())       # one line, whatever SQLite says
        if _is_lock(e):
            return StoreError(self.path, f"a store no other process keeps locked (still locked after "
                                         f"{self.timeout:g} s: another sweep or program is writing to it; wait "
                                         "for it, or raise --lock-timeout)")
        return StoreError(self.path, f"a switchq result store (SQLite); this file is not one or is damaged ({e}); "
                                     "it was left untouched: move it aside or give another --store")

    def _check(self):
        """Read-only checks of an existing file: SQLite, ours, not damaged. Writes nothing."""
        con = self._con
        app = con.execute("PRAGMA application_id").fetchone()[0]
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and (app != APPLICATION_ID or "points" not in tables):
            raise StoreError(self.path, "a switchq result store (this SQLite file belongs to something else: "
                                        f"tables {', '.join(sorted(tables))}); it was left untouched: give another "
                                        "--store")
        check = " ".join(str(con.execute("PRAGMA quick_check(1)").fetchone()[0]).split())
        if check != "ok":
            raise StoreError(self.path, f"a switchq result store (SQLite); this file is damaged ({check}); it was "
                                        "left untouched: move it aside or give another --store")

    def _prepare(self):
        con = self._con
        con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        if con.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
            con.execute("PRAGMA journal_mode = WAL")
        con.execute("PRAGMA synchronous = NORMAL")
        con.execute("PRAGMA wal_autocheckpoint = 4000")   # 16 MB of WAL between checkpoints: fewer syncs
        # Take the write lock once now, so a store locked by someone else fails before any work starts.
        con.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    con.execute(statement)
            if con.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise

    # ------------------------------------------------------------------ use

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        try:
            self._con.close()
        except sqlite3.Error:
            pass

    def finished(self, model: str, mode: str) -> dict:
        """key -> stored row (a dict, as :meth:`rows` gives) of every point of ``model`` in ``mode``."""
        try:
            cur = self._con.execute(f"SELECT {_COLUMNS} FROM points WHERE model = ? AND mode = ?", (model, mode))
            return {r[1]: _row(r) for r in cur}
        except sqlite3.Error as e:
            raise self._error(e) from None

    def add(self, key: str, model: str, mode: str, params: dict, results: dict, seed, settings: dict,
            wall_seconds: float, version: str | None = None) -> None:
        """Commit one finished point (its own transaction; a point already stored is left as it is).

        ``params`` and ``settings`` may be their :func:`canonical_json` text, ``results`` its JSON text.
        """
        if version is None:
            from . import __version__ as version
        created = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
        try:
            self._con.execute(
                "INSERT OR IGNORE INTO points (key, model, mode, params, results, seed, settings, switchq_version, "
                "wall_seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (key, model, mode, params if isinstance(params, str) else canonical_json(params),
                 results if isinstance(results, str) else dumps(results), seed,
                 settings if isinstance(settings, str) else canonical_json(settings), version, float(wall_seconds),
                 created))
        except sqlite3.Error as e:
            raise self._error(e) from None

    def rows(self, model: str | None = None, mode: str | None = None):
        """Stored points in the order they were stored, as dicts with parsed JSON."""
        where, args = [], []
        if model is not None:
            where.append("model = ?")
            args.append(model)
        if mode is not None:
            where.append("mode = ?")
            args.append(mode)
        sql = f"SELECT {_COLUMNS} FROM points" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        try:
            return [_row(r) for r in self._con.execute(sql, args)]
        except sqlite3.Error as e:
            raise self._error(e) from None

    def count(self) -> int:
        try:
            return self._con.execute("SELECT COUNT(*) FROM points").fetchone()[0]
        except sqlite3.Error as e:
            raise self._error(e) from None


_COLUMNS = ("id, key, model, mode, params, results, seed, settings, switchq_version, wall_seconds, created_at")


def _row(r) -> dict:
    return {"id": r[0], "key": r[1], "model": r[2], "mode": r[3], "params": json.loads(r[4]),
            "results": json.loads(r[5]), "seed": r[6], "settings": json.loads(r[7]), "switchq_version": r[8],
            "wall_seconds": r[9], "created_at": r[10]}
