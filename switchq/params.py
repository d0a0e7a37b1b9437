"""A model's parameters, declared once: spelling, type, range, default, unit and help.

Every verb reads parameters through these declarations: ``switchq solve``,
``simulate`` and ``size`` build their options from them, ``switchq sweep``
its ``--vary`` names and fixed options, and every bad value gets the same
one-line error naming the option as typed. A :class:`Param` turns text (or a
Python value) into its canonical value:

- integers are ``int``, numbers ``float``;
- quantities with a unit (``time``, ``length``, ``rate``, ``size``, ``speed``,
  ``frequency``) are floats in seconds, metres, bit/s, bits, m/s and Hz
  (:func:`switchq.units.parse_quantity`); a size is a whole number of bits;
- ``cells`` is a number of cells, or a size with a unit kept as its text (the
  model converts it with its cell size);
- ``floats`` is a comma-separated list of numbers, a tuple;
- optional parameters are ``None`` when unset.

Examples
--------
>>> p = Param("ports", "n_ports", "int", low=1, unit="ports", help="switch size N")
>>> p.parse("16", "--ports"), p.option
(16, '--ports')
>>> Param("load", "load", "float", low=0, high=1).parse("1.5", "--load")
Traceback (most recent call last):
...
switchq.errors.InputError: --load: got '1.5'; allowed: a number in [0, 1]
>>> Param("rtt", "rtt", "time", None, low=0, low_open=True, unit="s").parse("200ns", "--rtt")
2e-07
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable

from .errors import InputError

__all__ = ["Param", "REQUIRED", "MODES", "BOTH", "ANALYTIC", "SIM", "sim_only", "QUANTITY_KINDS", "check_applies",
           "each_takes_its_own", "applies_text", "applies_conditions", "Above"]

MODES = ("analytic", "simulated")
BOTH = MODES
ANALYTIC = ("analytic",)
SIM = ("simulated",)


class _Required:
    def __repr__(self):
        return "REQUIRED"


REQUIRED = _Required()  # default of a parameter that must be given

# Canonical unit symbol of each quantity kind of switchq.units (what a quantity is re-read with), and its name.
QUANTITY_KINDS = {"time": ("s", "s"), "length": ("m", "m"), "rate": ("b/s", "bit/s"), "size": ("b", "bits"),
                  "speed": ("m/s", "m/s"), "frequency": ("Hz", "Hz")}
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


@dataclass(frozen=True)
class Param:
    """One parameter of a model.

    Attributes
    ----------
    name : str
        CLI spelling: the ``--vary`` name, ``--<name with dashes>`` option and table column.
    target : str
        Keyword of the model description or solver it feeds (``n_ports``); also its JSON name
        in ``solve``/``simulate`` output.
    kind : str
        ``int``, ``float``, ``choice``, ``flag``, ``floats``, ``cells``, ``text`` or a quantity
        kind (``time``, ``length``, ``rate``, ``size``, ``speed``, ``frequency``).
    default : object
        ``REQUIRED`` when it must be given; ``None`` for an optional parameter left unset.
    low, high : float or None
        Allowed interval (``low_open``/``high_open`` exclude the ends).
    choices : tuple
        For ``choice``.
    unit : str
        Unit of the canonical value.
    help : str
    modes : tuple
        Modes that use it (``analytic``, ``simulated``): a parameter not used by a mode may
        not be given in it.
    aliases : tuple
        Other names for it: solver keywords that name it in their errors (``n_ports``,
        ``tau``), and other CLI spellings (``--traffic``, ``--switch-ports``, ``-n``), which
        the commands accept as options.
    switches : tuple
        ``(option, value)`` pairs: flag options that set this parameter to a value
        (``("--sfc", "sfc")`` for ``protocol``).
    many : bool
        ``solve``/``simulate``: a comma-separated list gives one answer per value.
    expand : tuple
        ``(value, (values, ...))`` pairs: a value that stands for several (``both``).
    default_text : str
        How the help shows a default computed elsewhere (``"max(1000, slots/10)"``).
    parser : callable or None
        ``parser(text, where) -> value`` for a kind of its own (node lists).
    applies : tuple
        ``(name, values)``: it applies only where parameter ``name`` takes one of ``values``
        (``("buffer_org", ("hipiqs",))``; None among them: also where ``name`` is not given), or where
        ``name`` is in an :class:`Above` (``("file_servers", Above(1))``); several such pairs must all hold.
        Given elsewhere it is refused (:func:`check_applies`).
    """

    name: str
    target: str
    kind: str
    default: object = REQUIRED
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    unit: str = ""
    help: str = ""
    modes: tuple = BOTH
    aliases: tuple = ()
    switches: tuple = ()
    many: bool = False
    expand: tuple = ()
    default_text: str = ""
    parser: Callable | None = None
    applies: tuple = ()

    @property
    def option(self) -> str:
        """The option of a fixed value, ``--rtt-slots`` for ``rtt_slots``."""
        return "--" + self.name.replace("_", "-")

    @property
    def options(self) -> tuple:
        """Every option spelling: ``--name`` first, then the aliases that are options."""
        return (self.option,) + tuple(a for a in self.aliases if a.startswith("-") and a != self.option)

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def numeric(self) -> bool:
        return self.kind in ("int", "float", "cells") or self.kind in QUANTITY_KINDS

    def allowed(self) -> str:
        """What values are allowed, as the one-line error says it."""
        if self.kind == "choice":
            text = "one of " + ", ".join(str(c) for c in (*self.choices, *dict(self.expand)))
        elif self.kind == "flag":
            text = "true or false"
        elif self.kind == "floats":
            text = "comma-separated numbers" + self._interval()
        elif self.kind == "cells":
            text = "a whole number of cells" + self._interval() + ", or a size with a unit (e.g. 4KiB)"
        elif self.kind == "text" or self.parser is not None:
            text = self.help or "text"
        else:
            text = {"int": "an integer", "float": "a number"}.get(self.kind, f"a {self.kind}")
            unit = f" {QUANTITY_KINDS[self.kind][1]}" if self.kind in QUANTITY_KINDS else ""
            text += self._interval() + unit
            if self.kind in QUANTITY_KINDS:
                text += f" with a unit, e.g. {_example(self.kind)}"
        if self.default is None:
            text += ", or none"
        return text

    def _interval(self) -> str:
        lo = "(" if self.low_open else "["
        hi = ")" if self.high_open else "]"
        if self.low is not None and self.high is not None:
            return f" in {lo}{_num(self.low)}, {_num(self.high)}{hi}"
        if self.low is not None:
            return f" {'>' if self.low_open else '>='} {_num(self.low)}"
        if self.high is not None:
            return f" {'<' if self.high_open else '<='} {_num(self.high)}"
        return ""

    def describe_default(self) -> str:
        if self.required:
            return "required"
        if self.default_text:
            return self.default_text
        if self.default is None:
            return "none"
        return _fmt(self.default)

    def parse(self, text, where: str | None = None):
        """One value from its text (or a Python value), canonical and checked; InputError names ``where``."""
        where = where or self.option
        if self.default is None and (text is None or (isinstance(text, str) and text.strip().lower() == "none")):
            return None
        if isinstance(text, str):
            text = text.strip()
        if self.parser is not None:
            return self.parser(text, where)
        if self.kind == "choice":
            if text not in self.choices:
                raise InputError(where, text, self.allowed())
            return text
        if self.kind == "flag":
            if isinstance(text, bool):
                return text
            low = str(text).lower()
            if low in _TRUE or low in _FALSE:
                return low in _TRUE
            raise InputError(where, text, self.allowed())
        if self.kind == "text":
            return str(text)
        if self.kind == "floats":
            return self._floats(text, where)
        if self.kind == "cells" and isinstance(text, str) and not _is_number(text):
            from .units import parse_quantity

            parse_quantity(text, "size", where)   # checked here, converted by the model with its cell size
            return text
        if self.kind in QUANTITY_KINDS:
            value = self._quantity(text, where)
        else:
            value = self._number(text, where)
        self.check_range(value, text, where)
        return value

    def _floats(self, text, where):
        items = text.split(",") if isinstance(text, str) else list(text)
        try:
            values = tuple(float(x) for x in items)
        except (TypeError, ValueError):
            raise InputError(where, text, self.allowed()) from None
        for v in values:
            if not math.isfinite(v):
                raise InputError(where, text, self.allowed())
            self.check_range(v, text, where)
        return values

    def _number(self, text, where):
        if isinstance(text, bool):
            raise InputError(where, text, self.allowed())
        if isinstance(text, (int, float)) or type(text).__module__ == "numpy":
            value = float(text) if self.kind == "float" else text
        else:
            try:
                value = float(text)
            except (TypeError, ValueError):
                raise InputError(where, text, self.allowed()) from None
        if not math.isfinite(float(value)):
            raise InputError(where, text, self.allowed())
        if self.kind in ("int", "cells"):
            if isinstance(value, int):
                return value
            if isinstance(text, str) and text.strip().lstrip("+-").isdigit():
                # Exactly: a 64-bit seed read through float() loses its last digits (8831625547063467241).
                return int(text.strip())
            f = float(value)
            if not f.is_integer():
                raise InputError(where, text, self.allowed())
            return int(f)
        return float(value)

    def _quantity(self, text, where):
        from .units import parse_quantity

        if isinstance(text, (int, float)) and not isinstance(text, bool):
            value = float(text)           # from Python: already canonical
        else:
            value = parse_quantity(text, self.kind, where)
        if self.kind == "size":
            if not float(value).is_integer():
                raise InputError(where, text, "a whole number of bits, e.g. 256B or 2048 bit")
            return int(value)
        return value

    def check_range(self, value, text, where):
        if self.low is not None and (value < self.low or (self.low_open and value == self.low)):
            raise InputError(where, text, self.allowed())
        if self.high is not None and (value > self.high or (self.high_open and value == self.high)):
            raise InputError(where, text, self.allowed())

    def shown(self, value):
        """``value`` as an error message shows it: a quantity with its unit (``10m``), anything else as is."""
        if self.kind in QUANTITY_KINDS and isinstance(value, (int, float)) and not isinstance(value, bool):
            return self.as_text(value)
        return value

    def as_text(self, value) -> str | None:
        """A quantity as text ``switchq.units.parse_quantity`` reads back to the same float."""
        if value is None:
            return None
        text = repr(value)   # shortest text that reads back to the same float
        return (text[:-2] if text.endswith(".0") else text) + QUANTITY_KINDS[self.kind][0]

    def values(self, text, where: str | None = None) -> list:
        """The values a ``many`` parameter's text stands for (one per comma-separated piece, or per item of a
        list given from Python, expanded)."""
        if not self.many:
            return [self.parse(text, where)]
        if isinstance(text, (list, tuple)) and self.kind != "floats":   # from Python: the values themselves
            pieces = list(text)
        elif isinstance(text, str):
            pieces = [x.strip() for x in text.split(",")]
        else:
            return [self.parse(text, where)]
        groups = dict(self.expand)
        if not pieces or not all(x != "" for x in pieces):
            raise InputError(where or self.option, text, "one value or a comma-separated list")
        out = []
        for piece in pieces:
            out.extend(groups.get(piece, (piece,)) if isinstance(piece, str) else (piece,))
        return [self.parse(v, where) for v in out]

    def names(self) -> set:
        """Every name an error may use for this parameter: its own, its target and its aliases."""
        return {self.name, self.target, *(a.lstrip("-").replace("-", "_") for a in self.aliases), *self.aliases}


@dataclass(frozen=True)
class Above:
    """A numeric condition of :attr:`Param.applies`: the other parameter given, at least ``low`` (above it when
    ``open``); ``Above()``: given at all.

    >>> 2 in Above(2), 1 in Above(2), 1.0 in Above(1, open=True), None in Above()
    (True, False, False, False)
    """

    low: float | None = None
    open: bool = False

    def __contains__(self, value) -> bool:
        if value is None or self.low is None:
            return value is not None
        if isinstance(value, (bool, str)):
            return False
        return value > self.low or (value == self.low and not self.open)

    def text(self) -> str:
        return "" if self.low is None else f" {'>' if self.open else '>='} {_num(self.low)}"


def _option_of(name: str, params) -> str:
    return next((q.option for q in params if q.name == name), "--" + name.replace("_", "-"))


def applies_conditions(p: Param) -> tuple:
    """``p.applies`` as ``((name, allowed), ...)``: one condition, or several that must all hold."""
    return (p.applies,) if p.applies and isinstance(p.applies[0], str) else tuple(p.applies)


def _condition_text(name, allowed, params) -> str:
    option = _option_of(name, params)
    if isinstance(allowed, Above):
        return f"with {option}{allowed.text()}"
    values = [v for v in allowed if v is not None]
    parts = [f"with {option} " + " or ".join(_fmt(v) for v in values)] if values else []
    if None in allowed:
        parts.append(f"without {option}")
    return " or ".join(parts)


def applies_text(p: Param, params) -> str:
    """Where ``p`` applies, as its help and its refusal say it: ``only with --buffer-org hipiqs``."""
    if not p.applies:
        return ""
    return "only " + " and ".join(_condition_text(name, allowed, params) for name, allowed in applies_conditions(p))


def _unmet(p: Param, values: dict):
    """The first condition of ``p.applies`` that ``values`` do not meet, as ``(name, value)``; None if all hold."""
    for name, allowed in applies_conditions(p):
        value = values.get(name)
        if value not in allowed:
            return name, value
    return None


def _not_applying(params, values: dict, given) -> list:
    """``(p, (name, value))`` of each parameter in ``given``, at a value other than its default, that does not
    apply at ``values``: the rule :func:`check_applies` and :func:`each_takes_its_own` both read."""
    out = []
    for p in params:
        if p.applies and p.name in given and values.get(p.name) != p.default:
            unmet = _unmet(p, values)
            if unmet is not None:
                out.append((p, unmet))
    return out


def _why(name, value, params) -> str:
    option = _option_of(name, params)
    return f"{option} not given" if value is None else f"not with {option} {_fmt(value)}"


def _refusal(p: Param, params, values: dict, name, value) -> InputError:
    return InputError(p.option, p.shown(values.get(p.name)), f"{applies_text(p, params)} ({_why(name, value, params)})")


def check_applies(params, values: dict, given) -> None:
    """Refuse a parameter given (by name, in ``given``) a value other than its default where it does not apply,
    naming both options. (Its default is what such a run does anyway: given, it changes nothing.)

    >>> org = Param("buffer_org", "buffer_org", "choice", "hipiqs", choices=("fifo", "hipiqs"))
    >>> xp = Param("crosspoint_flits", "crosspoint_flits", "int", None, applies=("buffer_org", ("hipiqs",)))
    >>> check_applies((org, xp), {"buffer_org": "fifo", "crosspoint_flits": 4}, {"crosspoint_flits"})
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: --crosspoint-flits: got 4; allowed: only with --buffer-org hipiqs (not with --buffer-org fifo)
    >>> servers = Param("file_servers", "file_servers", "int", 0)
    >>> share = Param("server_share", "server_share", "float", 0.8, applies=("file_servers", Above(1)))
    >>> check_applies((servers, share), {"file_servers": 0, "server_share": 0.5}, {"server_share"})
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: --server-share: got 0.5; allowed: only with --file-servers >= 1 (not with --file-servers 0)
    """
    for p, (name, value) in _not_applying(params, values, given):
        raise _refusal(p, params, values, name, value)


def each_takes_its_own(params, rows: list, given) -> list:
    """Rows side by side (a ``many`` parameter given several values, ``--model all``), each taking the inputs in
    ``given`` that apply to it: ``[(values, notes), ...]``. An input that does not apply to a row is set back to
    its default there and named in that row's notes; an input that applies to no row is refused, as
    :func:`check_applies` refuses it (the one rule both read).

    >>> model = Param("model", "model", "choice", "ieee", choices=("ieee", "mlx5"), many=True)
    >>> delay = Param("interface_delay", "interface_delay", "float", None, applies=("model", ("ieee",)))
    >>> rows = [{"model": "ieee", "interface_delay": 1.0}, {"model": "mlx5", "interface_delay": 1.0}]
    >>> each_takes_its_own((model, delay), rows, {"interface_delay"})
    [({'model': 'ieee', 'interface_delay': 1.0}, ()), ({'model': 'mlx5', 'interface_delay': None}, ('interface_delay: not used by mlx5',))]
    >>> each_takes_its_own((model, delay), rows[1:] * 2, {"interface_delay"})
    Traceback (most recent call last):
    ...
    switchq.errors.InputError: --interface-delay: got 1.0; allowed: only with --model ieee (not with --model mlx5)
    """
    varying = {k for k in (rows[0] if rows else {}) if len({repr(r.get(k)) for r in rows}) > 1}
    out, refused, taken = [], {}, set()
    for row in rows:
        row, notes, left = dict(row), [], set(given)
        while True:     # an input set back may be what another one applies with: until nothing changes
            found = _not_applying(params, row, left)
            if not found:
                break
            for p, (name, value) in found:
                refused.setdefault(p.name, _refusal(p, params, row, name, value))
                notes.append(f"{p.name}: not used by {_fmt(value)}" if name in varying and value is not None
                             else f"{p.name}: not used ({_why(name, value, params)})")
                row[p.name] = p.default
                left.discard(p.name)
        taken |= left
        out.append((row, tuple(notes)))
    for p in params:
        if p.name in refused and p.name not in taken:
            raise refused[p.name]
    return out


def sim_only(*params) -> tuple:
    """The same parameters, used by the simulated twin only."""
    return tuple(replace(p, modes=SIM) for p in params)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _num(x) -> str:
    return str(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return str(v).lower()
    if isinstance(v, float):
        return f"{v:g}"
    if isinstance(v, tuple):
        return ",".join(_fmt(x) for x in v)
    return str(v)


def _example(kind):
    from .units import KINDS

    return KINDS[kind][2]
