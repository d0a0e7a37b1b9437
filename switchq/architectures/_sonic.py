"""SONiC's buffer tables as an option of the declarations that read them (issue 37): ``--sonic-buffers FILE``.

Not a declaration (the registry skips modules whose name starts with ``_``). The file is read by
:func:`switchq.models.sonic_buffers.read_sonic_buffers` once per process, and the tables it does not read are
named once on stderr, as is a key a command reads past (:func:`not_used`).
"""

from __future__ import annotations

import functools
import sys

from switchq.params import Param

__all__ = ["SONIC", "read_once", "not_used"]

SONIC = Param("sonic_buffers", "sonic_buffers", "text", None, default_text="none",
              help="SONiC buffer tables (JSON: BUFFER_POOL, BUFFER_PROFILE, BUFFER_PG, BUFFER_QUEUE); the tables "
                   "it does not read are named on stderr, keys it does not model refused.")


@functools.lru_cache(maxsize=8)
def read_once(path: str):
    """The file's tables, read once; the tables it does not read are named once on stderr."""
    from switchq.models.sonic_buffers import read_sonic_buffers

    conf = read_sonic_buffers(path)
    if conf.ignored_tables:
        sys.stderr.write(f"switchq: {path}: tables not read: {', '.join(conf.ignored_tables)}\n")
    return conf


_NAMED = set()


def not_used(path: str, key: str, why: str) -> None:
    """Name, once on stderr, a key of the file a command reads but does not use, and why."""
    if (path, key) not in _NAMED:
        _NAMED.add((path, key))
        sys.stderr.write(f"switchq: {path}: {key} not used: {why}\n")
