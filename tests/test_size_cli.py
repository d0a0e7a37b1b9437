"""``switchq size``: JSON fields, paper 003's crosspoint memory figures, unit parsing, one-line errors.

Commands are run through click's CliRunner on ``size_group`` itself, so these tests do not depend
on how the group is registered in ``switchq.cli``; the exit-code test runs ``switchq.cli.main`` in a
subprocess with the group added if it is not there yet.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from click.testing import CliRunner

from switchq.cli_verbs import size_group
from switchq.errors import InputError
from switchq.units import _ATOMS, _parse_fast, _parse_pint, parse_quantity

LINK = ["--link-rate", "10Gb/s", "--rtt", "200ns"]


def size(*args):
    result = CliRunner().invoke(size_group, [*args, "--json"])
    if result.exception is not None:
        raise result.exception
    return json.loads(result.output)


def size_error(*args) -> InputError:
    result = CliRunner().invoke(size_group, list(args))
    assert isinstance(result.exception, InputError), (result.output, result.exception)
    return result.exception


# ------------------------------------------------------------ paper 003, section 2

def test_credit_crosspoint_for_10g_and_200ns_is_250_bytes():
    # "10Gbps per port ... 200ns of round trip time ... at least 250 bytes of memory at each crosspoint"
    exact = size("credit", *LINK, "--cell", "1B")
    assert exact["round_trip_slots"] == 250 and exact["buffer_bytes"] == 250
    assert exact["bandwidth_delay_bytes"] == 250
    # With 64 B cells tau = ceil(2000 bit / 512 bit) = 4 cells = 256 B; the exact need stays 250 B.
    cells = size("credit", *LINK, "--cell", "64B")
    assert (cells["round_trip_slots"], cells["buffer_cells"], cells["buffer_bytes"]) == (4, 4, 256)
    assert cells["bandwidth_delay_bytes"] == 250 and cells["slot_ns"] == pytest.approx(51.2)


def test_20m_of_cable_is_200ns():
    by_cable = size("credit", "--link-rate", "10Gb/s", "--cable", "20m", "--cell", "1B")
    assert by_cable["rtt_ns"] == pytest.approx(200) and by_cable["buffer_bytes"] == 250
    assert by_cable["cable_m"] == 20 and by_cable["propagation_speed_m_per_s"] == 2e8
    slower = size("credit", "--link-rate", "10Gb/s", "--cable", "20m", "--propagation-speed", "1e8m/s",
                  "--fixed-delay", "50ns", "--cell", "1B")
    assert slower["rtt_ns"] == pytest.approx(450) and slower["fixed_delay_ns"] == pytest.approx(50)


@pytest.mark.parametrize("ports, rtts, total_bytes", [(8, 4, 64_000), (32, 2, 512_000), (32, 4, 1_024_000)])
def test_cicq_totals_of_paper_003(ports, rtts, total_bytes):
    # 8 ports: "about 64KB"; 32 ports: "512KB to 1MB" (two to four RTTs). N^2 x K x 250 B.
    exact = size("cicq", "--ports", str(ports), "--rtts", str(rtts), *LINK, "--cell", "1B")
    assert exact["total_bytes_credit"] == total_bytes == exact["total_bytes_credit_exact"]
    assert exact["crosspoint_bytes_credit"] == rtts * 250
    cells = size("cicq", "--ports", str(ports), "--rtts", str(rtts), *LINK, "--cell", "64B")
    assert cells["total_bytes_credit_exact"] == total_bytes
    assert cells["total_bytes_credit"] == ports ** 2 * rtts * 256     # whole 64 B cells: 64 KiB for 8 ports


# ------------------------------------------------------------ fields

def test_credit_json_fields_order_and_units():
    out = size("credit", *LINK, "--cell", "256B", "--vcs", "2", "--ports", "8", "--per", "switch",
               "--buffer", "1")
    keys = list(out)
    assert keys[0] == "protocol" and keys[-1] == "units"
    assert keys.index("per") < keys.index("round_trip_slots")      # inputs, then results
    for key in ("buffer_cells", "buffer_bytes", "round_trip_slots", "slot_ns", "bandwidth_delay_bytes",
                "utilization", "formula", "source"):
        assert key in out
    # 256 B cells: tau = ceil(2000/2048) = 1; switch = 8 links x 8 crosspoints x 2 VCs x 1 cell.
    assert out["buffer_cells"] == 128 and out["buffer_bytes"] == 128 * 256
    assert out["utilization"] == 1.0
    numeric = [k for k, v in out.items() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    assert set(numeric) <= set(out["units"]), set(numeric) - set(out["units"])


def test_per_levels_multiply_as_documented():
    common = ["credit", *LINK, "--cell", "64B", "--vcs", "3", "--ports", "16"]
    per = {level: size(*common, "--per", level)["buffer_cells"] for level in ("crosspoint", "port", "switch")}
    assert per == {"crosspoint": 3 * 4, "port": 16 * 3 * 4, "switch": 16 * 16 * 3 * 4}


def test_grant_and_acknak():
    grant = size("grant", *LINK, "--cell", "64B")
    assert grant["buffer_cells"] == 8 and grant["receiver_cells_per_buffer"] == 8
    acknak = size("acknak", *LINK, "--cell", "64B", "--ports", "16", "--per", "port")
    assert acknak["receiver_cells_per_buffer"] == 1 and acknak["retransmission_cells_per_link"] == 4
    assert acknak["buffer_cells"] == 4 + 16 and acknak["buffer_bytes"] == 20 * 64


@pytest.mark.parametrize("buffer, cells, utilization", [("2", 2, 0.5), ("128B", 2, 0.5), ("191B", 2, 0.5),
                                                         ("1KiB", 16, 1.0), ("1 kB", 15, 1.0)])
def test_buffer_question_gives_utilization(buffer, cells, utilization):
    out = size("credit", *LINK, "--cell", "64B", "--buffer", buffer)
    assert out["offered_buffer_cells"] == cells and out["utilization"] == utilization


def test_sfc_fields_and_paper_values():
    out = size("sfc", "--ports", "16", "--rtt-slots", "64")
    assert (out["q_r"], out["q_rtx"]) == (4, 64)
    assert out["total_cells_sfc"] == 2 * 16 * 64 and out["total_cells_credit"] == 16 * 16 * 64
    assert out["reduction_factor"] == 8.0                       # N / 2
    assert (out["sequence_bits"], out["acknak_bits"]) == (6, 11)
    paper = size("sfc", "--ports", "16", "--rtt-slots", "32", "--qr-rule", "paper")
    assert (paper["q_r"], paper["q_rtx"]) == (4, 64)           # Fig. 3: floor(32/16) + 2, Q_R N
    given_q = size("sfc", "--ports", "16", "--rtt-slots", "64", "--crosspoint-cells", "2")
    assert given_q["q_r_rule"] == "given" and given_q["q_rtx"] == 64 and given_q["row_covers_rtt"] is False


def test_sfc_from_link_options_equals_sfc_from_rtt_slots():
    by_link = size("sfc", "--ports", "16", "--link-rate", "10Gb/s", "--rtt", "1.6us", "--cell", "64B")
    assert by_link["round_trip_slots"] == 32
    by_slots = size("sfc", "--ports", "16", "--rtt-slots", "32", "--cell", "64B")
    for key in ("q_r", "q_rtx", "total_cells_sfc", "total_cells_credit", "reduction_factor", "total_bytes_sfc"):
        assert by_link[key] == by_slots[key], key


def test_cicq_priorities_and_rtts():
    out = size("cicq", "--ports", "16", "--rtt-slots", "32", "--priorities", "2", "--rtts", "2")
    assert out["crosspoint_cells_credit"] == 2 * 2 * 32 and out["total_cells_credit"] == 256 * 128
    assert out["q_r"] == 4 and out["crosspoint_cells_sfc"] == 8 and out["q_rtx"] == 16 * 2 * 4
    assert out["reduction_factor"] == 8.0
    assert "total_bytes_credit" not in out                      # no --cell, no bytes


def test_cli_spells_the_solver_choices():
    from switchq import registry
    from switchq.solvers import flow_control

    for name in ("size-sfc", "size-cicq"):
        (rule,) = [p for p in registry.answers()[name][0].params if p.name == "qr_rule"]
        assert rule.choices == flow_control.Q_R_RULES


def test_every_command_has_an_example_in_its_help():
    names = size_group.list_commands(None)
    assert set(names) == {"credit", "grant", "acknak", "sfc", "cicq", "pfc", "infiniband", "shared-buffer"}
    for name in names:
        text = CliRunner().invoke(size_group, [name, "--help"]).output
        assert "Example:" in text and f"switchq size {name}" in text, name


# ------------------------------------------------------------ bad input

@pytest.mark.parametrize("args, option", [
    (["credit", "--link-rate", "-10Gb/s", "--rtt", "200ns", "--cell", "64B"], "--link-rate"),
    (["credit", "--link-rate", "25GbE", "--rtt", "200ns", "--cell", "64B"], "--link-rate"),
    (["credit", "--link-rate", "10Gb/s", "--rtt", "200", "--cell", "64B"], "--rtt"),
    (["credit", "--link-rate", "10Gb/s", "--rtt", "20m", "--cell", "64B"], "--rtt"),
    (["credit", "--link-rate", "10Gb/s", "--rtt", "200ns", "--cable", "20m", "--cell", "64B"], "--cable"),
    (["credit", "--link-rate", "10Gb/s", "--cell", "64B"], "--rtt"),
    (["credit", "--rtt", "200ns", "--cell", "64B"], "--link-rate"),
    (["credit", *LINK], "--cell"),
    (["credit", *LINK, "--cell", "0.1B"], "--cell"),
    (["credit", *LINK, "--cell", "64B", "--buffer", "32B"], "--buffer"),
    (["credit", *LINK, "--cell", "64B", "--buffer", "0"], "--buffer"),
    (["credit", *LINK, "--cell", "64B", "--per", "switch"], "--ports"),
    (["credit", *LINK, "--cell", "64B", "--ports", "0", "--per", "port"], "--ports"),
    (["credit", *LINK, "--cell", "64B", "--vcs", "0"], "--vcs"),
    (["credit", *LINK, "--cell", "64B", "--fixed-delay", "5ns"], "--fixed-delay"),
    (["credit", "--link-rate", "10Gb/s", "--cable", "0m", "--cell", "64B"], "--cable"),
    (["credit", "--link-rate", "10Gb/s", "--cable", "20m", "--propagation-speed", "2e8", "--cell", "64B"],
     "--propagation-speed"),
    (["sfc", "--ports", "0", "--rtt-slots", "8"], "--ports"),
    (["sfc", "--ports", "8"], "--rtt-slots"),
    (["sfc", "--ports", "8", "--rtt-slots", "8", "--rtt", "200ns"], "--rtt-slots"),
    (["sfc", "--ports", "8", "--rtt-slots", "0"], "--rtt-slots"),
    (["sfc", "--ports", "8", "--link-rate", "10Gb/s", "--rtt", "200ns"], "--cell"),
    (["sfc", "--ports", "8", "--rtt-slots", "8", "--crosspoint-cells", "0"], "--crosspoint-cells"),
    (["cicq", "--ports", "8", "--rtt-slots", "8", "--priorities", "0"], "--priorities"),
    (["cicq", "--ports", "8", "--rtt-slots", "8", "--rtts", "0"], "--rtts"),
])
def test_bad_input_names_the_option(args, option):
    err = size_error(*args)
    assert err.parameter == option and "\n" not in str(err)


MAIN = "import sys; from switchq.cli import main; from switchq.cli_verbs import size_group; main(sys.argv[1:])"


def run_main(*args):
    return subprocess.run([sys.executable, "-c", MAIN, "size", *args], capture_output=True, text=True)


def test_main_exits_2_with_one_stderr_line():
    p = run_main("credit", "--link-rate", "10 parsecs", "--rtt", "200ns", "--cell", "64B")
    assert p.returncode == 2 and p.stdout == ""
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("switchq: error: --link-rate: got '10 parsecs'")
    p = run_main("cicq", "--ports", "x", "--rtt-slots", "8")
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1 and "--ports" in p.stderr


def test_main_answers_json_without_loading_pint_or_sympy():
    code = MAIN.replace("main(sys.argv[1:])", "") + (
        "from click.testing import CliRunner; "
        "r = CliRunner().invoke(size_group, ['cicq', '--ports', '8', '--rtts', '4', '--link-rate', '10Gb/s', "
        "'--rtt', '200ns', '--cell', '64B', '--json']); "
        "print(r.output.strip()); print([m for m in ('pint', 'sympy', 'scipy', 'numba') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    answer, loaded = out.strip().splitlines()
    assert json.loads(answer)["total_bytes_credit_exact"] == 64000 and loaded == "[]"


# ------------------------------------------------------------ units

@pytest.mark.parametrize("text, kind, value", [
    ("200ns", "time", 200e-9), ("1.5us", "time", 1.5e-6), ("1.5 µs", "time", 1.5e-6), ("3 ms", "time", 3e-3),
    ("20m", "length", 20.0), ("100 ft", "length", 30.48), ("2 km", "length", 2000.0),
    ("10Gb/s", "rate", 1e10), ("10 Gbit/s", "rate", 1e10), ("10Gbps", "rate", 1e10), ("25 Mb/s", "rate", 25e6),
    ("1 b/s", "rate", 1.0), ("1 GB/s", "rate", 8e9),
    ("256B", "size", 2048.0), ("4KiB", "size", 4 * 1024 * 8.0), ("64 KB", "size", 64_000 * 8.0),
    ("1 kB", "size", 8000.0), ("2048 bit", "size", 2048.0), ("1 MiB", "size", 2 ** 20 * 8.0),
    ("1 Mb", "size", 1e6), ("2e8m/s", "speed", 2e8),
    ("20 m + 3 ft", "length", 20.9144), ("2 nanoseconds", "time", 2e-9),     # pint expressions
])
def test_parse_quantity(text, kind, value):
    assert parse_quantity(text, kind, "--x") == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text, kind", [("200", "time"), ("10 mb/s", "rate"), ("25GbE", "rate"), ("", "size"),
                                        ("10 m", "time"), ("1e400 s", "time"), ("1/0 s", "time"),
                                        ("nan s", "time"), ("1 Bps", "rate"), ("10 dB", "size")])
def test_parse_quantity_refuses(text, kind):
    with pytest.raises(InputError) as err:
        parse_quantity(text, kind, "--x")
    assert err.value.parameter == "--x" and err.value.value == text and "with a unit" in err.value.allowed


NUMBERS = st.one_of(st.integers(-10 ** 6, 10 ** 9).map(str),
                    st.decimals(min_value=-1e6, max_value=1e9, allow_nan=False, allow_infinity=False,
                                places=4).map(str),
                    st.sampled_from(["2e8", "1.5E-3", ".5", "7.", "1e-9"]))
UNITS = st.sampled_from(sorted(_ATOMS))


@given(number=NUMBERS, space=st.sampled_from(["", " "]), top=UNITS,
       bottom=st.one_of(st.none(), UNITS), kind=st.sampled_from(["time", "length", "rate", "size", "speed"]))
def test_fast_path_agrees_with_pint(number, space, top, bottom, kind):
    text = f"{number}{space}{top}" + (f"/{bottom}" if bottom else "")
    fast = _parse_fast(text, kind)
    assert fast is not None                       # the whole table is on the fast path
    reference = _parse_pint(text, kind)
    if math.isnan(reference):
        assert math.isnan(fast), text
    else:
        assert fast == pytest.approx(reference, rel=1e-15), text
