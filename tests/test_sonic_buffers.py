"""``--sonic-buffers``: SONiC's buffer tables read into the shared-memory switch and the PFC headroom (issue 37).

The example file is switchq's own (``switchq/examples/sonic-32x400g-buffers.json``, illustrative figures for a
32 x 400 Gb/s switch); expected figures are worked out here from its numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from switchq.cli import main

EXAMPLE = str(Path(__file__).resolve().parents[1] / "switchq" / "examples" / "sonic-32x400g-buffers.json")
LOSSY = ["--sonic-buffers", EXAMPLE, "--sonic-profile", "egress_lossy_profile"]


def _json(args, capsys):
    with pytest.raises(SystemExit) as e:
        main([*args, "--json"])
    out = capsys.readouterr()
    assert e.value.code == 0, out.err
    return json.loads(out.out), out.err


def test_the_example_files_lossy_queue_absorbs_the_burst_its_pool_allows(capsys):
    # egress_lossy_pool: 38,000,000 B shared, 144 B cells: 263,888 cells; the profile reserves 9216 B = 64 cells per
    # queue (32 x 64 = 2048 cells beside the pool) and sets dynamic_th 0, alpha 1. An 8:1 incast's queue refuses at
    # c = 64 + 263,888 / 2 = 132,008 cells: 132,008 / 7 = 18,858.3 cells per sender.
    out, err = _json(["solve", "shared-buffer", "--ports", "32", *LOSSY, "--cell", "144B", "--incast", "8"], capsys)
    assert out["buffer_cells"] == 263_888 + 2048 and out["alpha"] == 1.0
    assert out["cap_cells"] == pytest.approx(132_008) and out["burst_whole"] == 18_858
    assert "tables not read: PORT, CABLE_LENGTH" in err


def test_dynamic_th_given_replaces_the_files(capsys):
    # dynamic_th 2: alpha 4, c = 64 + 4 x 263,888 / 5 = 211,174.4 cells.
    out, _ = _json(["solve", "shared-buffer", "--ports", "32", *LOSSY, "--cell", "144B", "--incast", "8",
                    "--dynamic-th", "2"], capsys)
    assert out["alpha"] == 4.0 and out["cap_cells"] == pytest.approx(211_174.4)


def test_lossless_headroom_against_the_cable(capsys):
    # The lossless group's xoff is 300,000 B; 802.1Qbb's headroom at 400 Gb/s with 1228.8 ns interfaces is
    # 250,674 B for 100 m and 353,309 B for 300 m (switchq size pfc, pinned in test_pfc): it covers 100 m by 49,326 B
    # and misses 300 m by 53,309 B. The headroom pool (the ingress pool's xoff, 4,800,000 B) holds 19 groups'
    # headroom at once at 100 m (4.8e6 / 250,674 = 19.1).
    args = ["size", "pfc", "--link-rate", "400Gb/s", "--interface-delay", "1228.8ns", "--sonic-buffers", EXAMPLE]
    near, _ = _json([*args, "--cable", "100m"], capsys)
    far, _ = _json([*args, "--cable", "300m"], capsys)
    assert near["configured_xoff_bytes"] == 300_000 and near["headroom_margin_bytes"] == 300_000 - 250_674
    assert far["headroom_margin_bytes"] == 300_000 - 353_309
    assert near["groups_in_pool"] == 19 and near["sonic_profile"] == "pg_lossless_400000_100m_profile"


def _doc(**tables):
    doc = {"BUFFER_POOL": {"p": {"size": "100000", "type": "egress", "mode": "dynamic"}},
           "BUFFER_PROFILE": {"q": {"pool": "p", "size": "0", "dynamic_th": "0"}},
           "BUFFER_QUEUE": {"Ethernet0|0": {"profile": "q"}}}
    doc.update(tables)
    return doc


@pytest.mark.parametrize("content, says", [
    ("{not json", "not JSON"),
    (_doc(BUFFER_PROFILE={"q": {"pool": "nope", "size": "0", "dynamic_th": "0"}}), "pool=nope"),
    (_doc(BUFFER_QUEUE={"Ethernet0|0": {"profile": "[BUFFER_PROFILE|missing]"}}), "profile=missing"),
    (_doc(BUFFER_PROFILE={"q": {"pool": "p", "size": "0", "dynamic_th": "0", "headroom_type": "dynamic"}}),
     "headroom_type"),
    (_doc(BUFFER_PROFILE={"q": {"pool": "p", "size": "0", "static_th": "4000"}}), "dynamic_th in a dynamic pool"),
])
def test_a_bad_file_is_one_line_naming_what(tmp_path, content, says, capsys):
    f = tmp_path / "buffers.json"
    f.write_text(content if isinstance(content, str) else json.dumps(content))
    with pytest.raises(SystemExit) as e:
        main(["solve", "shared-buffer", "--ports", "4", "--sonic-buffers", str(f), "--congested", "2"])
    err = capsys.readouterr().err.strip().splitlines()
    assert e.value.code == 2 and len(err) == 1 and err[0].startswith("switchq: error: --sonic-buffers: got")
    assert says in err[0], err


def test_options_the_file_gives_are_refused_beside_it(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "shared-buffer", "--ports", "32", *LOSSY, "--buffer", "1MB", "--congested", "2"])
    assert "--buffer: got" in capsys.readouterr().err


def test_the_lossless_group_from_the_file(capsys):
    # pg_lossless_400000_100m_profile: the ingress lossless pool (38,000,000 B: 263,888 cells of 144 B) with
    # dynamic_th 0 (alpha 1); the pool's xoff, 4,800,000 B (33,333 cells), is a shared headroom pool, so no group
    # keeps its own. Under an 8:1 incast the 8 groups settle at alpha B / (1 + 8 alpha) = 263,888 / 9 cells.
    out, _ = _json(["solve", "shared-buffer", "--ports", "32", "--sonic-buffers", EXAMPLE, "--lossless", "--cell",
                    "144B", "--pause-slots", "100", "--incast", "8"], capsys)
    assert out["xoff_cells"] == pytest.approx(263_888 / 9) and out["headroom_cells"] == 0
    assert out["headroom_pool_cells"] == 33_333 and out["pause_duty"] == 0.875
