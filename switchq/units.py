"""Parsing of quantities typed with units.

Inside switchq quantities are canonical (slots, cells, ports; seconds, metres,
bits, bit/s, Hz). The unit printed beside each input and result, and carried
in ``--json``'s ``units`` object, is declared by its model
(:mod:`switchq.architectures`), not here.

:func:`parse_quantity` reads what people type (``200ns``, ``20m``,
``10Gb/s``, ``256B``) with the units of `pint <https://pint.readthedocs.io>`_
and returns the canonical float. Conventions:

* ``b`` is a bit and ``B`` a byte (8 bits), never a bel; ``bps`` is bit/s,
  so ``Gbps`` = ``Gb/s`` = ``Gbit/s``, while ``GB/s`` is gigabytes per second.
* SI prefixes are powers of ten, ``KB`` = ``kB`` = 1000 B (``K`` is accepted
  as a spelling of kilo); IEC prefixes are powers of two, ``KiB`` = 1024 B,
  ``MiB`` = 2**20 B.
* A bare number (``200``) is refused for a dimensional quantity: whether it
  meant ns, us or slots cannot be guessed, and guessing wrong is silent.
* Fractions of a bit (``mb``, ``ub``) are refused: they are always a typo
  for ``Mb``.

Speed: every ``switchq size`` answer must take under 0.5 s including the
interpreter start (about 0.13 s, and 0.1 s more for switchq and NumPy).
Importing pint alone costs 0.15-0.3 s, and pint's default registry another
0.19 s to build, so (1) the registry is built once per process from the
twenty definitions below (~0.01 s), and (2) the plain ``<number><unit>`` and
``<number><unit>/<unit>`` forms, nearly everything typed, are read by a small
exact parser built from the same table; pint, the reference, is imported only
for anything else (``20 m + 3 ft``, ``2 nanoseconds``). The tests check that
both agree wherever the fast path answers. ``switchq solve`` never loads pint.

Examples
--------
>>> parse_quantity("200ns", "time", "--rtt")
2e-07
>>> parse_quantity("10Gb/s", "rate", "--link-rate") == parse_quantity("10 Gbps", "rate", "--link-rate")
True
>>> parse_quantity("4KiB", "size", "--cell"), parse_quantity("4 KB", "size", "--cell")
(32768.0, 32000.0)
>>> parse_quantity("100 ft", "length", "--cable")
30.48
>>> parse_quantity("200", "time", "--rtt")
Traceback (most recent call last):
...
switchq.errors.InputError: --rtt: got '200'; allowed: a time with a unit, e.g. 200ns
"""

from __future__ import annotations

import functools
import math
import re
from decimal import Decimal

from .errors import InputError

__all__ = ["parse_quantity", "KINDS"]

# kind -> (dimensions, canonical pint unit, example for the error message)
KINDS = {
    "time": ({"time": 1}, "second", "200ns"),
    "length": ({"length": 1}, "meter", "20m"),
    "rate": ({"information": 1, "time": -1}, "bit / second", "10Gb/s"),
    "size": ({"information": 1}, "bit", "256B"),
    "speed": ({"length": 1, "time": -1}, "meter / second", "2e8m/s"),
    "frequency": ({"time": -1}, "hertz", "250MHz"),
}

# The one table of units; pint's registry and the fast path below are both built
# from it. Factors are exact decimals (Decimal arithmetic keeps "200ns" exactly
# 2e-07 s, not 2.0000000000000002e-07). pint's default registry (~1000 units)
# would also cost ~0.19 s per process to build, and reads "B" as bel.
_PREFIXES = (  # (name, factor, symbols)
    ("pico", "1e-12", ("p",)),
    ("nano", "1e-9", ("n",)),
    ("micro", "1e-6", ("u", "µ", "μ")),
    ("milli", "1e-3", ("m",)),
    ("centi", "1e-2", ("c",)),
    ("kilo", "1e3", ("k",)),
    ("kilo_capital", "1e3", ("K",)),   # "KB" as commonly written: still SI, 1000
    ("mega", "1e6", ("M",)),
    ("giga", "1e9", ("G",)),
    ("tera", "1e12", ("T",)),
    ("kibi", "1024", ("Ki",)),
    ("mebi", "1048576", ("Mi",)),
    ("gibi", "1073741824", ("Gi",)),
    ("tebi", "1099511627776", ("Ti",)),
)
_BASE_UNITS = (  # (name, pint definition, factor to canonical, dimensions, symbol and aliases)
    ("second", "[time]", "1", {"time": 1}, ("s", "sec")),
    ("meter", "[length]", "1", {"length": 1}, ("m", "metre")),
    ("foot", "0.3048 * meter", "0.3048", {"length": 1}, ("ft", "feet")),
    ("bit", "[information]", "1", {"information": 1}, ("b",)),
    ("byte", "8 * bit", "8", {"information": 1}, ("B", "octet")),
    ("bps", "bit / second", "1", {"information": 1, "time": -1}, ()),
    ("hertz", "1 / second", "1", {"time": -1}, ("Hz",)),
)

# A sub-unit prefix on an information unit ("10 mb/s") is a typo for M, never a real size.
_FRACTIONAL_INFORMATION = re.compile(r"^(pico|nano|micro|milli|centi)(bit|byte|bps)$")


@functools.lru_cache(maxsize=1)
def _registry():
    import pint

    registry = pint.UnitRegistry(None, cache_folder=None, non_int_type=Decimal)
    for name, factor, symbols in _PREFIXES:
        registry.define(f"{name}- = {factor} = " + " = ".join(f"{s}-" for s in symbols))
    for name, definition, _, _, aliases in _BASE_UNITS:
        registry.define(" = ".join((name, definition, *aliases)))
    return registry


def _parse_pint(text: str, kind: str) -> float:
    """The reference parser: any pint expression of the table's units; nan if unreadable or not ``kind``."""
    registry = _registry()
    dimensions, canonical, _ = KINDS[kind]
    try:
        quantity = registry.parse_expression(text)
        ok = (isinstance(quantity, registry.Quantity)
              and dict(quantity.dimensionality) == {f"[{d}]": e for d, e in dimensions.items()}
              and not any(_FRACTIONAL_INFORMATION.match(name) for name, _ in quantity.unit_items()))
        return float(quantity.to(canonical).magnitude) if ok else math.nan
    except Exception:  # pint raises a dozen types (syntax, undefined unit, division by zero): all mean "unreadable"
        return math.nan


# Fast path: "<number> <unit>" or "<number> <unit>/<unit>", which is nearly everything
# typed. Importing pint costs ~0.2 s per process, and `switchq size` must answer in
# under 0.5 s, so pint is only loaded for what this does not recognise; the tests
# check that both agree wherever this one answers.
_FAST = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\s/]*)\s*(?:/\s*([^\s/]+)\s*)?")


def _fast_atoms() -> dict:
    """Unit token -> (factor to canonical, dimensions, is a fraction of a bit): bases, prefix symbol + any
    spelling ("ns", "nsec"), prefix name + base name ("nanosecond")."""
    atoms = {}
    for name, _, factor, dims, aliases in _BASE_UNITS:
        for unit in (name, *aliases):
            atoms[unit] = (Decimal(factor), dims, False)
            for prefix, prefix_factor, symbols in _PREFIXES:
                fraction = "information" in dims and Decimal(prefix_factor) < 1
                for p in (prefix, *symbols) if unit == name else symbols:
                    atoms.setdefault(p + unit, (Decimal(prefix_factor) * Decimal(factor), dims, fraction))
    return atoms


_ATOMS = _fast_atoms()


def _parse_fast(text: str, kind: str) -> float | None:
    """The value of a plain "<number> <unit>[/<unit>]", nan if it is not a ``kind``, None if not that form."""
    match = _FAST.fullmatch(text)
    if match is None:
        return None
    number, numerator, denominator = match.groups()
    if not numerator:
        return math.nan if denominator is None else None   # a bare number: refused, see the module docstring
    atoms = [_ATOMS.get(numerator), _ATOMS.get(denominator) if denominator else (Decimal(1), {}, False)]
    if None in atoms:
        return None
    (top, top_dims, top_fraction), (bottom, bottom_dims, bottom_fraction) = atoms
    dims = dict(top_dims)
    for d, e in bottom_dims.items():
        dims[d] = dims.get(d, 0) - e
    if {d: e for d, e in dims.items() if e} != KINDS[kind][0] or top_fraction or bottom_fraction:
        return math.nan
    return float(Decimal(number) * top / bottom)


def parse_quantity(text: str, kind: str, parameter: str) -> float:
    """Read ``text`` as a quantity of ``kind`` and return it in canonical units.

    Parameters
    ----------
    text : str
        What the user typed, with a unit: ``"200ns"``, ``"1.5 us"``, ``"20m"``,
        ``"100 ft"``, ``"10Gb/s"``, ``"10 Gbps"``, ``"1 GB/s"``, ``"256B"``,
        ``"4KiB"``, ``"2048 bit"``, ``"2e8m/s"``; any pint expression of these
        units (``"20 m + 3 ft"``, ``"2 nanoseconds"``) is read too.
    kind : {"time", "length", "rate", "size", "speed", "frequency"}
        Returned in seconds, metres, bit/s, bits, m/s and Hz respectively.
    parameter : str
        Name for the error message (the CLI passes its option, e.g. ``--rtt``).

    Returns
    -------
    float
        The value in the canonical unit. The sign is kept: range checks are
        the caller's, who knows what is allowed.

    Raises
    ------
    InputError
        ``text`` is not a finite quantity of ``kind`` with a unit (bare
        number, unknown unit, wrong dimension, fraction of a bit).

    Examples
    --------
    >>> parse_quantity("1.5us", "time", "--rtt")
    1.5e-06
    >>> parse_quantity("1 GB/s", "rate", "--link-rate")
    8000000000.0
    >>> parse_quantity("64 KB", "size", "--buffer") / 8
    64000.0
    >>> parse_quantity("20 m + 3 ft", "length", "--cable")
    20.9144
    >>> parse_quantity("10 m", "time", "--rtt")
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: --rtt: got '10 m'; allowed: a time with a unit, e.g. 200ns
    """
    if kind not in KINDS:
        raise InputError("kind", kind, "one of " + ", ".join(KINDS))
    allowed = f"a {kind} with a unit, e.g. {KINDS[kind][2]}"
    if kind in ("size", "rate"):
        allowed += " (b = bit, B = byte)"
    if not isinstance(text, str) or not text.strip():
        raise InputError(parameter, text, allowed)
    value = _parse_fast(text, kind)
    if value is None:
        value = _parse_pint(text, kind)
    if not math.isfinite(value):
        raise InputError(parameter, text, allowed)
    return value
