"""BookSim2's configuration files, read as BookSim2 reads them (issue 38).

BookSim2 (github.com/booksim/booksim2, commit 28f43299) takes a file of ``key = value;`` statements with ``//``
comments, then ``key=value`` overrides on its command line, each parsed as a statement of the file. A value's
token decides which of three tables it goes to: an integer literal (``-?[0-9]+``) to the integer keys, a number
with a point or an exponent to the real keys, anything else (a name, a path, a ``{...}`` list) to the text keys.
A key absent from that table is an error (``Parse error : Unknown integer field: k``), so a real key written
without a point (``injection_rate = 1;``) is refused, as BookSim2 refuses it. :data:`KEYS` holds the 131 keys
of its ``src/booksim_config.cpp`` with their types and defaults.

Every key is in one of three lists (:data:`MODELLED`, :data:`NO_OP`, :data:`REFUSED`):

- modelled: switchq's ``iq-router`` does what BookSim2 does with it, for the values :data:`MODELLED` allows
  (another value is refused, naming the key and the values it takes);
- a no-op: BookSim2 reads it only for what switchq does not do (an output file, a power model, a topology or
  feature the file does not use), or the key changes nothing in the ``iq`` router (BookSim2's ``iq`` router builds
  its allocators without reading ``alloc_iters`` or ``arb_type``); set in a file, it is named once with its note;
- refused: setting it away from its default would ask for something switchq does not model, so it is refused
  with its reason. A key BookSim2 does not declare is refused as BookSim2 refuses it.

Nothing is changed silently: a value is used as BookSim2 uses it, named as a no-op, or refused.

>>> cfg = parse_text("topology = mesh; k = 4; // a 4 x 4 mesh\\nn = 2; injection_rate = 0.05;", "example")
>>> cfg.values["topology"], cfg.values["k"], cfg.values["injection_rate"], cfg.values["num_vcs"]
('mesh', 4, 0.05, 16)
>>> parse_text("injection_rate = 1;", "example")
Traceback (most recent call last):
...
switchq.errors.InputError: booksim_config: got 'injection_rate = 1'; allowed: a real written with a point (1.0): injection_rate is a real key (BookSim2: Unknown integer field)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from switchq.errors import InputError

__all__ = ["KEYS", "MODELLED", "NO_OP", "REFUSED", "BookSimConfig", "parse_text", "read", "check_lists"]

# name, type (int, float, str; "+str": also a list or a name), default: src/booksim_config.cpp at 28f43299.
_TABLE = """
channel_file str ""|subnets int 1|topology str torus|k int 8|n int 2|c int 1|routing_function str none
use_noc_latency int 1|x int 8|y int 8|xr int 1|yr int 1|link_failures int 0|fail_seed int+str 0|in_ports int 5
out_ports int 5|router str iq|output_delay int 0|credit_delay int 0|internal_speedup float 1.0
output_buffer_size int -1|noq int 0|speculative int 0|spec_check_elig int 1|spec_check_cred int 1
spec_mask_by_reqs int 0|spec_sw_allocator str prio|num_vcs int 16|vc_buf_size int 8|buf_size int -1
buffer_policy str private|private_bufs int -1|private_buf_size int+str 1|private_buf_start_vc int+str -1
private_buf_end_vc int+str -1|max_held_slots int -1|feedback_aging_scale int 1|feedback_offset int 0
wait_for_tail_credit int 0|vc_busy_when_full int 0|vc_prioritize_empty int 0|vc_priority_donation int 0
vc_shuffle_requests int 0|hold_switch_for_packet int 0|input_speedup int 1|output_speedup int 1
routing_delay int 1|vc_alloc_delay int 1|sw_alloc_delay int 1|st_prepare_delay int 0|st_final_delay int 1
vct int 0|vc_allocator str islip|sw_allocator str islip|arb_type str round_robin|alloc_iters int 1
classes int 1|traffic str uniform|class_priority int+str 0|perm_seed int+str 0|injection_rate float+str 0.1
injection_rate_uses_flits int 0|packet_size int+str 1|packet_size_rate int+str 1|injection_process str bernoulli
burst_alpha float 0.5|burst_beta float 0.5|burst_r1 float -1.0|priority str none|batch_size int 1000
batch_count int 1|max_outstanding_requests int 0|use_read_write int+str 0|write_fraction float+str 0.5
read_request_begin_vc int 0|read_request_end_vc int 5|write_request_begin_vc int 2|write_request_end_vc int 7
read_reply_begin_vc int 8|read_reply_end_vc int 13|write_reply_begin_vc int 10|write_reply_end_vc int 15
read_request_subnet int 0|read_reply_subnet int 0|write_request_subnet int 0|write_reply_subnet int 0
read_request_size int+str 1|write_request_size int+str 1|read_reply_size int+str 1|write_reply_size int+str 1
sim_type str latency|warmup_periods int 3|sample_period int 1000|max_samples int 10|measure_stats int+str 1
pair_stats int 0|latency_thres float+str 500.0|warmup_thres float+str 0.05|acc_warmup_thres float+str 0.05
stopping_thres float+str 0.05|acc_stopping_thres float+str 0.05|sim_count int 1|include_queuing int 1
seed int+str 0|print_activity int 0|print_csv_results int 0|deadlock_warn_timeout int 256|viewer_trace int 0
watch_file str ""|watch_flits str ""|watch_packets str ""|watch_transactions str ""|watch_out str ""
stats_out str ""|injected_flits_out str ""|received_flits_out str ""|stored_flits_out str ""
sent_flits_out str ""|outstanding_credits_out str ""|ejected_flits_out str ""|active_packets_out str ""
used_credits_out str ""|free_credits_out str ""|max_credits_out str ""|sent_packets_out str ""|sim_power int 0
power_output_file str pwr_tmp|tech_file str ""|channel_width int 128|channel_sweep int 0|network_file str ""
"""


def _table():
    keys = {}
    for item in _TABLE.replace("\n", "|").split("|"):
        if not item.strip():
            continue
        name, kind, default = item.split(" ", 2)
        base = kind.split("+")[0]
        value = "" if default == '""' else int(default) if base == "int" else float(default) if base == "float" \
            else default
        keys[name] = (kind, value)
    return keys


KEYS = _table()

# Modelled keys: the values switchq's iq-router takes (None: any value of the key's type, checked by the model).
MODELLED = {
    "topology": ("fly", "mesh", "torus", "fattree"), "k": None, "n": None, "use_noc_latency": (0, 1),
    "routing_function": ("dest_tag", "dor", "dim_order", "nca"), "router": ("iq",), "credit_delay": None,
    "num_vcs": None, "vc_buf_size": None, "buf_size": None, "buffer_policy": ("private", "shared"),
    # Read by the shared policy only (as BookSim2 reads them); switchq's iq-router checks them there.
    "private_bufs": None, "private_buf_size": None, "private_buf_start_vc": None, "private_buf_end_vc": None,
    "wait_for_tail_credit": (0, 1), "hold_switch_for_packet": (0, 1), "input_speedup": None,
    "output_speedup": None, "routing_delay": None, "vc_alloc_delay": (1,), "sw_alloc_delay": (1,),
    "st_prepare_delay": None, "st_final_delay": None, "vc_allocator": None, "sw_allocator": None,
    "traffic": ("uniform", "bitcomp", "transpose", "bitrev", "shuffle", "tornado", "neighbor"),
    "injection_rate": None, "injection_rate_uses_flits": (0, 1), "packet_size": None,
    "injection_process": ("bernoulli", "on_off"), "burst_alpha": None, "burst_beta": None, "burst_r1": None,
    "include_queuing": (0, 1),
    # Modelled only at their defaults: BookSim2's other values are features switchq's router does not have.
    "subnets": (1,), "c": (1,), "internal_speedup": (1.0,), "output_buffer_size": (-1,), "noq": (0,),
    "speculative": (0,), "vct": (0,), "classes": (1,), "priority": ("none",), "use_read_write": (0,),
    "link_failures": (0,), "vc_busy_when_full": (0,), "vc_prioritize_empty": (0,), "vc_priority_donation": (0,),
    "vc_shuffle_requests": (0,), "measure_stats": (1,), "xr": (1,),
}

_FILES = "an output file switchq does not write (its results are its --json and tables)"
_UNREAD = "declared in booksim_config.cpp and read nowhere in BookSim2"
NO_OP = {
    "channel_file": _UNREAD, "in_ports": _UNREAD, "out_ports": _UNREAD, "output_delay": _UNREAD,
    "alloc_iters": "BookSim2's iq router builds its allocators without reading it (one iteration; islip(N) "
                   "inline sets N)",
    "arb_type": "BookSim2's iq router builds its allocators without reading it (round-robin arbiters)",
    "x": "cmesh and flatfly only", "y": "cmesh and flatfly only", "yr": "cmesh and flatfly only",
    "network_file": "anynet only", "fail_seed": "read only with link_failures",
    "spec_check_elig": "read only with speculative", "spec_check_cred": "read only with speculative",
    "spec_mask_by_reqs": "read only with speculative", "spec_sw_allocator": "read only with speculative",
    "max_held_slots": "read only by the limited "
    "buffer policy", "feedback_aging_scale": "read only by the feedback buffer policies",
    "feedback_offset": "read only by the feedback buffer policies",
    "class_priority": "read only with several classes", "perm_seed": "read only by randperm traffic",
    "packet_size_rate": "read only with several packet sizes",
    "batch_size": "read only with sim_type batch", "batch_count": "read only with sim_type batch",
    "max_outstanding_requests": "read only with sim_type batch",
    **{k: "read only with use_read_write" for k in (
        "write_fraction", "read_request_begin_vc", "read_request_end_vc", "write_request_begin_vc",
        "write_request_end_vc", "read_reply_begin_vc", "read_reply_end_vc", "write_reply_begin_vc",
        "write_reply_end_vc", "read_request_subnet", "read_reply_subnet", "write_request_subnet",
        "write_reply_subnet", "read_request_size", "write_request_size", "read_reply_size", "write_reply_size")},
    "max_samples": "switchq measures a fixed window with replications (--cycles, -r) instead of BookSim2's "
                   "convergence test",
    **{k: "switchq judges a run's stability by its backlog, not by BookSim2's thresholds" for k in (
        "latency_thres", "warmup_thres", "acc_warmup_thres", "stopping_thres", "acc_stopping_thres")},
    "sim_count": "switchq's replications are -r",
    "seed": "switchq's --seed seeds the replications",
    "warmup_periods": "switchq's warm-up is --warmup cycles", "sample_period": "switchq's window is --cycles",
    "sim_type": "switchq measures latency and throughput in every run",
    "pair_stats": _FILES, "print_activity": _FILES, "print_csv_results": _FILES,
    "deadlock_warn_timeout": "a warning BookSim2 prints", "viewer_trace": _FILES,
    **{k: _FILES for k in ("watch_file", "watch_flits", "watch_packets", "watch_transactions", "watch_out",
                           "stats_out", "injected_flits_out", "received_flits_out", "stored_flits_out",
                           "sent_flits_out", "outstanding_credits_out", "ejected_flits_out", "active_packets_out",
                           "used_credits_out", "free_credits_out", "max_credits_out", "sent_packets_out",
                           "power_output_file")},
    "sim_power": "the power model, not simulated (0 only)", "tech_file": "the power model's",
    "channel_width": "the power model's", "channel_sweep": "the power model's",
}
# No key is refused outright: a modelled key's other values are (MODELLED), and so are keys BookSim2 does not
# declare. Kept as a list so that every declared key is placed.
REFUSED: dict = {}

_INT = re.compile(r"-?[0-9]+")
_REAL = re.compile(r"-?(?:[0-9]*\.[0-9]+|(?:[0-9]*\.)?[0-9]+[eE][+-]?[0-9]+)")
# A statement as BookSim2's lexer reads one: a key, '=', one token (an integer, a real, a {list} or a name, as
# src/config.l's patterns), ';'. Anything else, a ';' left out included, is refused rather than read into a value.
_NAME = r"[A-Za-z_\-/.][A-Za-z0-9_\-/.+(){},]*"
_STATEMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(-?[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|\{[^;{}]*\}|"
                        + _NAME + r")\s*;")


def check_lists() -> None:
    """Every key of :data:`KEYS` is in exactly one list (a test runs this)."""
    lists = (set(MODELLED), set(NO_OP), set(REFUSED))
    for name in KEYS:
        placed = sum(name in s for s in lists)
        if placed != 1:
            raise AssertionError(f"{name} is in {placed} lists")
    extra = set().union(*lists) - set(KEYS)
    if extra:
        raise AssertionError(f"not BookSim2 keys: {sorted(extra)}")


@dataclass
class BookSimConfig:
    """A file read: every key's value (defaults where not set), the keys set in order, and the no-op notes."""

    source: str
    values: dict
    assigned: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def given(self, key: str) -> bool:
        return key in self.assigned


def _typed(key: str, text: str, where: str):
    """A value as BookSim2's lexer types it, into the table the key is declared in."""
    if key not in KEYS:
        raise InputError(where, key, "a key BookSim2 declares (src/booksim_config.cpp): unknown key")
    kind, _ = KEYS[key]
    token = "int" if _INT.fullmatch(text) else "float" if _REAL.fullmatch(text) else "str"
    if token == "int" and kind.startswith("int"):
        return int(text)
    if token == "float" and kind.startswith("float"):
        return float(text)
    if token == "str" and (kind == "str" or kind.endswith("+str")):
        return text
    wanted = {"int": "an integer written without a point", "float": "a real written with a point (1.0)",
              "str": "a name or a {list}"}[kind.split("+")[0]]
    field_name = {"int": "integer", "float": "double", "str": "string"}[token]
    raise InputError(where, f"{key} = {text}", f"{wanted}: {key} is a{'n' if kind[0] == 'i' else ''} "
                                                f"{'real' if kind.startswith('float') else kind.split('+')[0]} key "
                                                f"(BookSim2: Unknown {field_name} field)")


# No-op keys with a value that would change what BookSim2 does: sim_type batch runs another experiment.
NO_OP_VALUES = {"sim_type": ("latency", "throughput")}


def _check_value(key: str, value, where: str) -> None:
    allowed = MODELLED.get(key, NO_OP_VALUES.get(key))
    if allowed is not None and value not in allowed:
        shown = ", ".join(str(a) for a in allowed)
        raise InputError(where, f"{key} = {value}", f"{shown} (switchq's iq-router models {key} only so)")


def _one_line(text: str) -> str:
    return " ".join(text.split())[:60]


def parse_text(text: str, source: str, overrides=()) -> BookSimConfig:
    """Statements of a file (``text``) and then ``overrides`` (``key=value`` strings), as BookSim2 reads them."""
    values = {k: default for k, (_, default) in KEYS.items()}
    cfg = BookSimConfig(source, values)
    body = re.sub(r"//[^\n]*", "", text)
    pieces = [(body, "booksim_config")] + [(o if o.rstrip().endswith(";") else o + ";", "booksim_override")
                                            for o in overrides]
    for chunk, where in pieces:
        end = 0
        for m in _STATEMENT.finditer(chunk):
            if chunk[end:m.start()].strip():
                raise InputError(where, _one_line(chunk[end:m.start()]), "key = value; statements, one value each")
            end = m.end()
            key, raw = m.group(1), m.group(2)
            value = _typed(key, raw, where)
            _check_value(key, value, where)
            values[key] = value
            if key not in cfg.assigned:
                cfg.assigned.append(key)
            if key in NO_OP and not any(n.startswith(key + ":") for n in cfg.notes):
                cfg.notes.append(f"{key}: no effect here ({NO_OP[key]})")
        if chunk[end:].strip():
            raise InputError(where, _one_line(chunk[end:]), "key = value; statements, one value each (a ';' missing?)")
    return cfg


def read(path, overrides=()) -> BookSimConfig:
    """A BookSim2 configuration file and its overrides; a file that cannot be read is one line naming it."""
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as e:
        raise InputError("booksim_config", str(path), f"a readable BookSim2 configuration file ({e.strerror})") \
            from None
    return parse_text(text, str(path), overrides)
