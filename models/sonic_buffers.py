"""SONiC's buffer configuration, read: the documented subset switchq models (issue 37).

SONiC keeps a switch's shared-buffer set-up in CONFIG_DB tables, dumped as JSON (``config_db.json``, or the
``buffers.json.j2`` output). This module reads four of them and names every key it does not model:

========================  =====================================================================================
table                     keys read (every value a decimal string or number of bytes, unless said)
========================  =====================================================================================
``BUFFER_POOL``           ``size``; ``type`` (ingress, egress); ``mode`` (dynamic, static); ``xoff`` (the
                          ingress lossless pool's shared headroom pool)
``BUFFER_PROFILE``        ``pool`` (a pool's name, or ``[BUFFER_POOL|name]``); ``size`` (reserved bytes);
                          ``dynamic_th`` (alpha = 2^dynamic_th) or ``static_th`` (bytes); ``xon``, ``xoff``,
                          ``xon_offset`` (a lossless priority group's PFC thresholds and headroom)
``BUFFER_PG``             ``"PORT|PGS"`` -> ``profile`` (an ingress priority group's profile)
``BUFFER_QUEUE``          ``"PORT|QUEUES"`` -> ``profile`` (an egress queue's profile)
========================  =====================================================================================

Other tables (``PORT``, ``DEVICE_METADATA``, ``BUFFER_PORT_INGRESS_PROFILE_LIST`` ...) are listed in
``ignored_tables`` for the caller to name once. A key inside the four tables that switchq does not model is
refused with its name: an ignored key would be a silent change to the switch asked about.

>>> import json, tempfile
>>> doc = {"BUFFER_POOL": {"egress_lossy_pool": {"size": "1000000", "type": "egress", "mode": "dynamic"}},
...        "BUFFER_PROFILE": {"q": {"pool": "[BUFFER_POOL|egress_lossy_pool]", "size": "0", "dynamic_th": "1"}},
...        "BUFFER_QUEUE": {"Ethernet0|0-2": {"profile": "q"}, "Ethernet4|0-2": {"profile": "q"}},
...        "PORT": {}}
>>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
...     json.dump(doc, f)
>>> b = read_sonic_buffers(f.name)
>>> b.queue_profile().dynamic_th, b.pools["egress_lossy_pool"].size_bytes, b.ports(), b.ignored_tables
(1, 1000000, ('Ethernet0', 'Ethernet4'), ('PORT',))
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from switchq.errors import InputError

__all__ = ["Pool", "Profile", "SonicBuffers", "read_sonic_buffers"]

OPTION = "sonic_buffers"
TABLES = {"BUFFER_POOL": ("size", "type", "mode", "xoff"),
          "BUFFER_PROFILE": ("pool", "size", "dynamic_th", "static_th", "xon", "xoff", "xon_offset"),
          "BUFFER_PG": ("profile",), "BUFFER_QUEUE": ("profile",)}


@dataclass(frozen=True)
class Pool:
    name: str
    size_bytes: int
    type: str
    mode: str
    xoff_bytes: int | None = None


@dataclass(frozen=True)
class Profile:
    name: str
    pool: str
    size_bytes: int = 0
    dynamic_th: int | None = None
    static_th: int | None = None
    xon_bytes: int | None = None
    xoff_bytes: int | None = None
    xon_offset_bytes: int | None = None

    @property
    def lossless(self) -> bool:
        """A priority group's profile with PFC thresholds (xoff: the headroom above the XOFF point)."""
        return self.xoff_bytes is not None


@dataclass(frozen=True)
class SonicBuffers:
    path: str
    pools: dict
    profiles: dict
    pgs: dict                  # "PORT|PGS" -> profile name
    queues: dict               # "PORT|QUEUES" -> profile name
    ignored_tables: tuple = ()

    def ports(self) -> tuple:
        """The ports the PG and queue tables name, in order of first appearance."""
        seen = {}
        for key in (*self.queues, *self.pgs):
            seen.setdefault(key.split("|")[0], None)
        return tuple(seen)

    def queue_profile(self, name: str | None = None) -> Profile:
        """The egress queues' profile: ``name``, or the one profile BUFFER_QUEUE names (refused if several)."""
        used = tuple(dict.fromkeys(self.queues.values()))
        return self._pick(name, used, tuple(self.profiles), "BUFFER_QUEUE names {} profiles",
                          "a file whose BUFFER_QUEUE names a profile")

    def lossless_profile(self, name: str | None = None) -> Profile:
        """A lossless priority group's profile: ``name``, or the one lossless profile BUFFER_PG names."""
        found = tuple(f.name for f in self.lossless_profiles())
        return self._pick(name, found, found, "BUFFER_PG names {} lossless profiles",
                          "a file whose BUFFER_PG names a profile with xoff (a lossless group)")

    def _pick(self, name, used, allowed, several: str, none: str) -> Profile:
        """Profile ``name`` if it is among ``allowed``; unnamed, the one profile of ``used`` (``several`` and
        ``none`` say why not, in the one-line refusal)."""
        if name is None:
            if len(used) != 1:
                raise InputError("sonic_profile", None, f"one of {', '.join(used)} ({several.format(len(used))})"
                                 if used else none)
            name = used[0]
        if name not in allowed:
            raise InputError("sonic_profile", name, "one of " + ", ".join(allowed))
        return self.profiles[name]

    def lossless_profiles(self) -> tuple:
        """The profiles of the ingress priority groups with PFC thresholds (``xoff``), each once."""
        return tuple(self.profiles[n] for n in dict.fromkeys(self.pgs.values()) if self.profiles[n].lossless)


def _bytes(table, entry, key, value) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not number == number or number < 0 or not number.is_integer():
        raise InputError(OPTION, f"{table}|{entry}|{key}={value!r}", "a whole number of bytes")
    return int(number)


def _integer(table, entry, key, value) -> int:
    try:
        return int(str(value))
    except ValueError:
        raise InputError(OPTION, f"{table}|{entry}|{key}={value!r}", "an integer") from None


def _ref(value: str, table: str) -> str:
    """A reference as SONiC writes it: ``name`` or, in older dumps, ``[TABLE|name]``."""
    text = str(value).strip()
    if text.startswith("[") and text.endswith("]") and "|" in text:
        named, _, name = text[1:-1].partition("|")
        if named == table:
            return name
    return text


def _entries(doc, table):
    rows = doc.get(table, {})
    if not isinstance(rows, dict):
        raise InputError(OPTION, table, "a JSON object of entries")
    for entry, fields in rows.items():
        if not isinstance(fields, dict):
            raise InputError(OPTION, f"{table}|{entry}", "a JSON object of fields")
        unknown = [k for k in fields if k not in TABLES[table]]
        if unknown:
            raise InputError(OPTION, f"{table}|{entry}: " + ", ".join(unknown),
                             f"keys switchq models ({', '.join(TABLES[table])}); the others would change the switch")
        yield entry, fields


def read_sonic_buffers(path: str) -> SonicBuffers:
    """Read ``path`` (SONiC's buffer tables as JSON); a bad file is a one-line InputError naming it."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise InputError(OPTION, path, f"a readable file ({e.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(OPTION, path, f"a JSON file of SONiC's buffer tables (not JSON: {e})") from None
    if not isinstance(doc, dict):
        raise InputError(OPTION, path, "a JSON object of tables (BUFFER_POOL, BUFFER_PROFILE, ...)")
    pools = {}
    for name, f in _entries(doc, "BUFFER_POOL"):
        kind, mode = f.get("type", "egress"), f.get("mode", "dynamic")
        if kind not in ("ingress", "egress") or mode not in ("dynamic", "static"):
            raise InputError(OPTION, f"BUFFER_POOL|{name}", "type ingress or egress, mode dynamic or static")
        pools[name] = Pool(name, _bytes("BUFFER_POOL", name, "size", f.get("size", "0")), kind, mode,
                           None if "xoff" not in f else _bytes("BUFFER_POOL", name, "xoff", f["xoff"]))
    profiles = {}
    for name, f in _entries(doc, "BUFFER_PROFILE"):
        pool = _ref(f.get("pool", ""), "BUFFER_POOL")
        if pool not in pools:
            raise InputError(OPTION, f"BUFFER_PROFILE|{name}|pool={pool}", "a pool of BUFFER_POOL: " +
                             (", ".join(pools) or "none is defined"))
        if ("dynamic_th" in f) == ("static_th" in f):
            raise InputError(OPTION, f"BUFFER_PROFILE|{name}", "exactly one of dynamic_th and static_th")
        if ("dynamic_th" in f) != (pools[pool].mode == "dynamic"):
            raise InputError(OPTION, f"BUFFER_PROFILE|{name}", f"dynamic_th in a dynamic pool, static_th in a static "
                                                               f"one ({pool} is {pools[pool].mode})")
        size = {k: _bytes("BUFFER_PROFILE", name, k, f[k]) for k in ("size", "static_th", "xon", "xoff",
                                                                      "xon_offset") if k in f}
        dyn = None if "dynamic_th" not in f else _integer("BUFFER_PROFILE", name, "dynamic_th", f["dynamic_th"])
        if dyn is not None and not -8 <= dyn <= 8:
            raise InputError(OPTION, f"BUFFER_PROFILE|{name}|dynamic_th={dyn}", "an integer in [-8, 8]")
        profiles[name] = Profile(name, pool, size.get("size", 0), dyn, size.get("static_th"), size.get("xon"),
                                 size.get("xoff"), size.get("xon_offset"))
    uses = {}
    for table in ("BUFFER_PG", "BUFFER_QUEUE"):
        uses[table] = {}
        for key, f in _entries(doc, table):
            profile = _ref(f.get("profile", ""), "BUFFER_PROFILE")
            if profile not in profiles:
                raise InputError(OPTION, f"{table}|{key}|profile={profile}", "a profile of BUFFER_PROFILE: " +
                                 (", ".join(profiles) or "none is defined"))
            uses[table][key] = profile
    ignored = tuple(t for t in doc if t not in TABLES)
    return SonicBuffers(path, pools, profiles, uses["BUFFER_PG"], uses["BUFFER_QUEUE"], ignored)
