"""The JSON API of ``switchq serve`` is the CLI over HTTP: the same values read, the same one-line refusals,
the same ``--json`` and ``--csv``; bad requests get a 4xx, never a 500; every declared model has a page, a
new declaration included, with no web code changed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from switchq.cli import app as cli  # noqa: E402
from switchq.registry import MODELS  # noqa: E402
from switchq.web.app import create_app  # noqa: E402
from switchq.web.jobs import Limits  # noqa: E402


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    store = tmp_path_factory.mktemp("web") / "store.sqlite"
    app = create_app(store, Limits(max_points=5, max_replications=10, max_slots=5000, queue=4))
    with TestClient(app) as c:
        c.store = store
        yield c
    app.state.jobs.close()


def _cli(*args):
    r = CliRunner().invoke(cli, list(args))
    return r


def _cli_error(*args) -> str:
    """The one line ``switchq`` prints for bad input (main() turns InputError into it)."""
    p = subprocess.run([sys.executable, "-m", "switchq", *args], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    return p.stderr.strip().removeprefix("switchq: error: ")


def test_solve_is_the_clis_json(client):
    for verb, name, args, given in [
            ("solve", "hol", ["--ports", "8"], {"ports": "8"}),
            ("solve", "oq", ["--ports", "16", "--load", "0.9", "--buffer", "4"],
             {"ports": "16", "load": "0.9", "buffer": "4"}),
            ("size", "size-credit", ["--link-rate", "10Gb/s", "--cable", "20m", "--cell", "64B", "--ports", "8",
                                     "--per", "switch"],
             {"link_rate": "10Gb/s", "cable": "20m", "cell": "64B", "ports": "8", "per": "switch"}),
            ("size", "size-pfc", ["--link-rate", "100Gb/s", "--cable", "100m", "--mtu", "9216B", "--model", "all"],
             {"link_rate": "100Gb/s", "cable": "100m", "mtu": "9216B", "model": "all"})]:
        command = name.removeprefix("size-")
        r = client.post(f"/api/solve/{name}", json={"params": given})
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["result"] == json.loads(_cli(verb, command, *args, "--json").output)
        # The command line the page shows gives the same answer.
        words = body["command"].split()[1:]
        assert json.loads(_cli(*words).output) == body["result"]
    assert client.post("/api/solve/hol", json={"params": {"ports": 8}}).json()["result"]["n_ports"] == 8


def test_a_bad_value_is_the_clis_one_line_beside_its_field(client):
    r = client.post("/api/solve/hol", json={"params": {"ports": "0"}})
    assert r.status_code == 400
    assert r.json()["error"] == _cli_error("solve", "hol", "--ports", "0")
    assert r.json()["field"] == "ports"
    r = client.post("/api/solve/size-pfc", json={"params": {"link_rate": "400", "cable": "100m", "mtu": "x"}})
    assert r.status_code == 400
    errors = r.json()["errors"]
    assert set(errors) == {"link_rate", "mtu"}      # every bad field at once
    assert errors["link_rate"] == _cli_error("size", "pfc", "--link-rate", "400", "--cable", "100m")
    # Refused together (a value that applies only elsewhere): named as the CLI names it.
    # (mlx5 and cisco: no row of theirs takes the interface delay; with --model all the ieee row would.)
    r = client.post("/api/solve/size-pfc", json={"params": {"link_rate": "400Gb/s", "cable": "100m",
                                                           "model": "mlx5,cisco", "interface_delay": "1228.8ns"}})
    assert r.status_code == 400 and r.json()["field"] == "interface_delay"
    assert r.json()["error"] == _cli_error("size", "pfc", "--link-rate", "400Gb/s", "--cable", "100m", "--model",
                                           "mlx5,cisco", "--interface-delay", "1228.8ns")


def test_an_option_where_it_has_no_effect_is_the_clis_refusal(client):
    # A hotspot share without the hotspot pattern would be the uniform answer: refused, before any work.
    r = client.post("/api/simulate/oq", json={"params": {"ports": "8", "load": "0.9", "hotspot_fraction": "0.5"}})
    assert r.status_code == 400 and r.json()["field"] == "hotspot_fraction"
    assert r.json()["error"] == _cli_error("simulate", "oq", "--ports", "8", "--load", "0.9", "--hotspot-fraction",
                                           "0.5")
    assert r.json()["error"].startswith("--hotspot-fraction: got 0.5; allowed: only with --pattern hotspot")


def test_bad_requests_get_a_4xx_never_a_500(client):
    cases = [("post", "/api/solve/nope", {}), ("post", "/api/sweep/nope", {"vary": {"load": "0.5"}}),
             ("get", "/api/models/nope", None), ("get", "/api/jobs/999", None), ("get", "/api/jobs/999/json", None),
             ("post", "/api/solve/hol", {"params": "ports=8"}), ("post", "/api/solve/hol", {"params": {"nope": "1"}}),
             ("post", "/api/solve/voq", {"params": {"ports": "4", "load": "0.5"}}),     # the twin's parameter
             ("post", "/api/sweep/oq", {"vary": {"load": "0.1:1.5:0.1"}, "params": {"ports": "16"}}),
             ("post", "/api/sweep/oq?format=xml", {"vary": {"load": "0.5"}, "params": {"ports": "16"}}),
             ("post", "/api/sweep/fifo", {"vary": {"load": "0.5"}}),
             ("post", "/api/simulate/hol-flit", {"vary": {}}),
             ("post", "/api/simulate/voq", {"params": {"ports": "4"}, "run": {"replications": "50"}}),
             ("post", "/api/simulate/voq", {"params": {"ports": "4"}, "run": {"slots": "1000000"}}),
             ("post", "/api/simulate/voq", {"params": {"ports": "4"}, "vary": {"load": "0.1:0.9:0.1"},
                                            "run": {"slots": "500"}}),
             ("post", "/api/simulate/voq", {"params": {"ports": "4"}, "run": {"workers": "8"}})]
    for method, path, body in cases:
        r = getattr(client, method)(path, **({"json": body} if body is not None else {}))
        assert 400 <= r.status_code < 500, (path, body, r.status_code, r.text)
        message = r.json()["error"]
        assert "\n" not in message and "Traceback" not in message, message
    r = client.post("/api/solve/hol", content=b"{bad", headers={"content-type": "application/json"})
    assert r.status_code == 400
    # A bad run option is named beside its own field, the others untouched.
    r = client.post("/api/simulate/voq", json={"params": {"ports": "4"}, "run": {"slots": "5", "seed": "1"}})
    assert r.status_code == 400 and r.json()["errors"] == {"slots": r.json()["error"]}
    assert r.json()["error"].startswith("--slots: got '5'")


def test_every_field_of_every_model_refuses_nonsense_in_one_line(client):
    for name, m in MODELS.items():
        if m.analytic is None:
            continue
        for p in m.params_for("analytic"):
            r = client.post(f"/api/solve/{name}", json={"params": {p.name: "nonsense!"}})
            if p.kind == "text":
                continue        # free text: the model decides
            assert r.status_code == 400, (name, p.name, r.text)
            assert r.json()["error"].startswith(p.option) or r.json()["field"] is not None, (name, p.name, r.text)


def test_a_curve_is_switchq_sweeps_and_its_csv_is_switchq_sweep_csv(client, tmp_path):
    body = {"params": {"ports": "16"}, "vary": {"load": "0.1:0.9:0.1"}}
    r = client.post("/api/sweep/oq", json=body)
    assert r.status_code == 200
    rows = r.json()["rows"]
    cli_rows = json.loads(_cli("sweep", "oq", "--vary", "load=0.1:0.9:0.1", "--ports", "16", "--no-store",
                               "--json").output)
    drop = ("wall_seconds", "cached")
    assert [{k: v for k, v in x.items() if k not in drop} for x in rows] == \
        [{k: v for k, v in x.items() if k not in drop} for x in cli_rows]
    assert r.json()["command"] == "switchq sweep oq --vary load=0.1:0.9:0.1 --ports 16 --json"
    csv = client.post("/api/sweep/oq?format=csv", json=body).text
    path = tmp_path / "oq.csv"
    _cli("sweep", "oq", "--vary", "load=0.1:0.9:0.1", "--ports", "16", "--no-store", "--csv", str(path))
    assert _without_columns(csv, drop) == _without_columns(path.read_text(), drop)


def _without_columns(text: str, names) -> list:
    import csv
    import io

    rows = list(csv.DictReader(io.StringIO(text)))
    return [{k: v for k, v in r.items() if k not in names} for r in rows]


def test_every_model_has_a_page_from_its_declaration(client):
    listed = {m["name"] for m in client.get("/api/models").json()}
    assert listed == set(MODELS)
    for name, m in MODELS.items():
        page = client.get(f"/api/models/{name}").json()
        fields = [f["name"] for g in page["groups"] if not g["run"] for f in g["fields"]]
        assert fields == [p.name for p in m.params], name
        assert client.get(f"/m/{name}").status_code == 200
    assert client.get("/openapi.json").json()["paths"]["/api/solve/{name}"]


def test_simulated_points_are_switchq_sweeps_stored_and_reused(client):
    body = {"params": {"ports": "4"}, "vary": {"load": "0.3,0.6,0.9"}, "run": {"slots": "500", "replications": "5"}}
    r = client.post("/api/simulate/voq", json=body)
    assert r.status_code == 202, r.text
    job = _wait(client, r.json()["id"])
    assert job["state"] == "done" and job["done"] == 3
    assert job["command"] == ("switchq sweep voq --vary load=0.3,0.6,0.9 --ports 4 --simulate --slots 500 "
                              "--replications 5 --json")
    out = _cli("sweep", "voq", "--vary", "load=0.3,0.6,0.9", "--ports", "4", "--simulate", "--slots", "500",
               "--replications", "5", "--store", str(client.store), "--json")
    cli_rows = json.loads(out.output)
    assert all(row["cached"] for row in cli_rows)          # the server stored them; the CLI reuses them
    for mine, theirs in zip(job["rows"], cli_rows):
        assert (mine["seed"], mine["throughput"], mine["throughput_ci95"]) == \
            (theirs["seed"], theirs["throughput"], theirs["throughput_ci95"])
    again = _wait(client, client.post("/api/simulate/voq", json=body).json()["id"])
    assert all(row["cached"] for row in again["rows"])
    csv = client.get(f"/api/jobs/{again['id']}/csv").text
    assert csv.splitlines()[0].startswith("model,mode,ports")


def test_a_cancelled_request_stops_at_once(client):
    body = {"params": {"ports": "4"}, "vary": {"load": "0.11,0.12,0.13,0.14,0.15"},
            "run": {"slots": "500", "replications": "5", "seed": "11"}}
    job_id = client.post("/api/simulate/voq", json=body).json()["id"]
    r = client.delete(f"/api/jobs/{job_id}")
    assert r.status_code == 200
    # The answer to the cancel says it is cancelled: a running point is ended, not waited for.
    assert r.json()["state"] == "cancelled", r.json()
    job = _wait(client, job_id)
    assert job["state"] == "cancelled" and job["done"] < 5
    # The queue is free: the next request runs.
    again = client.post("/api/simulate/voq", json={**body, "vary": {"load": "0.11"}}).json()
    assert _wait(client, again["id"])["state"] == "done"


def _wait(client, job_id, timeout=180):
    t0 = time.time()
    while time.time() - t0 < timeout:
        job = client.get(f"/api/jobs/{job_id}").json()
        if job["state"] in ("done", "cancelled", "failed"):
            assert job["error"] is None, job["error"]
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} still running after {timeout} s")


def test_serve_binds_loopback_unless_told_and_warns_when_told(monkeypatch):
    import uvicorn

    from switchq.web.serve import is_loopback

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda app, host, port, **kw: calls.append((host, port)))
    r = CliRunner().invoke(cli, ["serve", "--no-store"])
    assert r.exit_code == 0, r.output
    assert calls[-1] == ("127.0.0.1", 8765) and "http://127.0.0.1:8765/" in r.output
    r = CliRunner().invoke(cli, ["serve", "--no-store", "--host", "0.0.0.0", "--port", "9999"])
    assert calls[-1] == ("0.0.0.0", 9999) and "warning: serving on 0.0.0.0" in r.output
    assert is_loopback("127.0.0.2") and not is_loopback("192.168.1.10")
    assert _cli_error("serve", "--port", "70000") == "--port: got '70000'; allowed: an integer in [1, 65535]"


def test_importing_switchq_web_imports_no_server_and_no_numba():
    code = ("import sys, switchq, switchq.web, switchq.web.pages, switchq.web.answers; "
            "print(any(m in sys.modules for m in ('numba', 'fastapi', 'uvicorn')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "False", out.stderr


COPY = '''
from dataclasses import replace
from switchq.architectures.cioq import DECLARATION as CIOQ

DECLARATION = replace(
    CIOQ, name="cioq_copy", order=999, architectures=(), report=(), bench=(),
    answers=tuple(replace(a, name="cioq_copy", title="CIOQ copy") for a in CIOQ.answers), cases=())
'''

PROBE = '''
import json, sys
import switchq.architectures as A
A.__path__.append(sys.argv[1])
from fastapi.testclient import TestClient
from switchq.web.app import create_app

with TestClient(create_app(None)) as c:
    names = [m["name"] for m in c.get("/api/models").json()]
    page = c.get("/api/models/cioq_copy").json()
    html = c.get("/m/cioq_copy")
    solved = c.post("/api/solve/cioq_copy", json={"params": {"ports": "4"}})
    print(json.dumps({"names": names, "title": page["title"], "html": html.status_code,
                      "solved": solved.status_code, "model": solved.json()["result"]["model"]}))
'''


def test_a_new_declaration_gets_its_page_with_no_web_code_changed(tmp_path):
    (tmp_path / "cioq_copy.py").write_text(COPY)
    p = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert "cioq_copy" in out["names"]
    assert (out["title"], out["html"], out["solved"], out["model"]) == ("CIOQ copy", 200, 200, "cioq_copy")


def test_a_refusal_also_says_it_in_the_pages_words(client):
    r = client.post("/api/solve/hol", json={"params": {}})
    assert r.status_code == 400
    body = r.json()
    assert body["error"].startswith("--ports: got None")                  # the CLI's line, for API clients
    assert body["messages"] == {"ports": "ports: required (an integer >= 1)"}  # the page's: a label, no "got None"
    r = client.post("/api/solve/size-pfc", json={"params": {"link_rate": "400", "cable": "100m"}})
    assert r.json()["messages"]["link_rate"].startswith("link rate: got '400'; allowed: a rate with a unit")
    r = client.post("/api/simulate/oq", json={"params": {"ports": "8", "load": "0.9", "hotspot_fraction": "0.5"}})
    assert r.json()["messages"]["hotspot_fraction"].startswith("hotspot fraction: got 0.5; allowed: only with pattern "
                                                               "hotspot")
    assert "--" not in r.json()["messages"]["hotspot_fraction"]


def test_the_pages_answer_route_is_solve_with_refusals_answered_200(client):
    good = client.post("/api/answer/hol", json={"params": {"ports": "8"}})
    solved = client.post("/api/solve/hol", json={"params": {"ports": "8"}}).json()
    assert good.status_code == 200 and good.json() == solved
    bad = client.post("/api/answer/hol", json={"params": {"ports": "0"}})
    assert bad.status_code == 200 and bad.json()["refused"] is True
    assert bad.json()["errors"] == client.post("/api/solve/hol", json={"params": {"ports": "0"}}).json()["errors"]
    assert client.post("/api/answer/nope", json={"params": {}}).status_code == 404


def test_a_simulation_request_is_checked_as_typed_without_being_queued(client):
    # voq with a load over 1, a burst under 1 and slots over the server's cap: every field refused on its own.
    r = client.post("/api/check/voq", json={"params": {"ports": "4", "load": "1.5", "burst": "0.5"},
                                            "run": {"slots": "1000000"}})
    assert r.status_code == 200
    errors = r.json()["errors"]
    assert set(errors) == {"load", "burst", "slots"}
    assert r.json()["messages"]["load"].startswith("load: got '1.5'")
    r = client.post("/api/check/voq", json={"params": {"ports": "4"}, "run": {"slots": "1000000"}})
    assert r.status_code == 200 and r.json()["field"] == "slots"
    assert "switchq serve --max-slots" in r.json()["messages"]["slots"]
    r = client.post("/api/check/voq", json={"params": {"ports": "4"}, "run": {"slots": "500"}})
    assert r.json() == {"error": None, "field": None, "errors": {}, "message": None, "messages": {}}
    assert client.post("/api/check/hol-flit", json={}).json()["error"] is None     # analytic only: nothing to check


def test_a_seed_is_taken_as_text_and_kept_exact(client):
    from switchq.sweeps import plan_sweep

    seed = "8831625547063467241"          # beyond 2**53: a double would round it
    body = {"params": {"ports": "4"}, "vary": {}, "run": {"slots": "500", "replications": "5", "seed": seed}}
    job = _wait(client, client.post("/api/simulate/hol", json=body).json()["id"])
    # The text goes through untouched, and is read by the CLI's own reader (the page's numbers are the command's).
    assert job["run"]["seed"] == seed and f"--seed {seed}" in job["command"]
    root = next(p for p in MODELS["hol"].declaration.run_params() if p.name == "seed").parse(seed, "--seed")
    assert f"seed={root}," in job["python"]
    plan = plan_sweep("hol", {}, {"ports": "4"}, simulate=True, slots=500, replications=5, seed=root)
    assert job["rows"][0]["seed"] == plan.points[0].seed
    # A JSON number is taken too (Python reads it exactly).
    r = client.post("/api/check/hol",
                    content=b'{"params": {"ports": "4"}, "run": {"slots": "500", "seed": 8831625547063467241}}',
                    headers={"content-type": "application/json"})
    assert r.json()["error"] is None


def test_a_page_knows_its_twins_figure_units_and_reference_lines(client):
    hol = client.get("/api/models/hol").json()
    assert hol["twin_figure"] == {"saturation_throughput": "throughput"}
    assert [round(r["value"], 6) for r in hol["references"]] == [0.585786]
    assert client.get("/api/models/bmin").json()["twin_figure"] == {}      # a zero-load latency is no throughput
    pfc = client.get("/api/models/size-pfc").json()
    mtu = next(f for g in pfc["groups"] for f in g["fields"] if f["name"] == "mtu")
    # Typed in bytes (9216B), answered in bytes (mtu_bytes): shown in bytes, not in the bits kept inside.
    assert (mtu["unit"], mtu["scale"], mtu["label"]) == ("B", 0.125, "mtu")
    assert mtu["allowed"].startswith("a size in [64, 16384] B")
    body = {"params": {}, "vary": {"ports": "2,4"}, "run": {"slots": "500", "replications": "5"}}
    job = _wait(client, client.post("/api/simulate/hol", json=body).json()["id"])
    assert job["saturated"] == [True, True]          # hol's twin runs at load 1: overloaded by design
    voq = client.post("/api/simulate/voq", json={"params": {"ports": "4"}, "vary": {"load": "0.5,1"},
                                                 "run": {"slots": "500", "replications": "5"}}).json()
    assert voq["saturated"] == [False, True]
    client.delete(f"/api/jobs/{voq['id']}")


def test_a_booksim2_file_runs_from_the_page_as_from_the_cli(client):
    """Issue 38: the page takes --booksim-config as the CLI does (a bundled example found by its name), and its
    simulated points are the CLI sweep's, stored and reused."""
    body = {"params": {"booksim_config": "fattree_shared"}, "vary": {"injection_rate": "0.1,0.3"},
            "run": {"cycles": "500", "replications": "5"}}
    r = client.post("/api/simulate/iq-router", json=body)
    assert r.status_code == 202, r.text
    job = _wait(client, r.json()["id"])
    assert job["state"] == "done" and job["done"] == 2, job
    out = _cli("sweep", "iq-router", "--vary", "injection_rate=0.1,0.3", "--booksim-config", "fattree_shared",
               "--simulate", "--cycles", "500", "--replications", "5", "--store", str(client.store), "--json")
    cli_rows = json.loads(out.output[out.output.index("["):])
    assert all(row["cached"] for row in cli_rows)
    assert [(m["throughput"], m["packet_latency"]) for m in job["rows"]] == \
        [(c["throughput"], c["packet_latency"]) for c in cli_rows]
