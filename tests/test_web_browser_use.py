"""``switchq serve`` under real use, in Debian's Chromium (issue 34): what a user typing fast, cancelling, restarting
the server or pasting a large seed sees is right.

The newest answer wins over a slower older one; job ids do not survive a restart (an old one is a 404, never
another request's rows); the server going away shows a banner and the page resumes when it is back; Cancel ends a
running point; errors of the simulated twin's fields stay until fixed; a seed beyond 2**53 stays exact; the y axis
and every choice stay in the permalink. Simulations are tiny (500 slots, 5 replications) unless a test needs one
still running.
"""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api")

from test_web_browser import _idle, _value, browser, page, server  # noqa: E402,F401  (fixtures)
from test_web_server import free_port, running_server  # noqa: E402

pytestmark = pytest.mark.xdist_group("web-browser")

TINY = "r.slots=500&r.replications=5"


def test_typing_6_then_3_on_the_window_page_shows_the_answer_for_3(server, page):
    # The exact chain of 6 ports takes seconds, that of 3 a few milliseconds: the answer for 3 comes back first,
    # and the answer for 6, arriving later, is dropped (it answers a question no longer asked).
    url, _ = server
    page.goto(f"{url}/m/window")
    _idle(page, typed=False)
    def for_6(request):
        return "/api/answer/window" in request.url and '"6"' in (request.post_data or "")

    with page.expect_response(lambda r: for_6(r.request), timeout=180_000) as six:
        with page.expect_request(for_6):
            page.fill("#f-ports", "6")     # past the debounce, the request for 6 is on its way
        page.fill("#f-ports", "3")
        page.wait_for_selector("#result tr[data-quantity=n_ports] td:nth-child(2):text-is('3')", timeout=60_000)
        t0 = time.perf_counter()
    waited = time.perf_counter() - t0
    assert json.loads(six.value.body())["result"]["n_ports"] == 6      # it did arrive, after the answer for 3
    page.wait_for_timeout(300)
    _idle(page)
    print(f"\nwindow: the answer for 6 ports arrived {waited:.1f} s after the answer for 3, and was dropped")
    assert _value(page, "n_ports") == "3"
    assert "--ports 3" in page.inner_text("#reproduce") and "p.ports=3" in page.url
    assert page.input_value("#f-ports") == "3"


def test_an_untouched_oq_page_shows_no_error_and_logs_none(server, page):
    url, _ = server
    page.goto(f"{url}/m/oq")
    _idle(page, typed=False)
    assert page.eval_on_selector_all(".error", "es => es.map(e => e.textContent).filter(Boolean)") == []
    assert "got None" not in page.inner_text("body")
    assert page.console_errors == []
    assert page.inner_text("#answer") == "Give ports and load for the answer."
    # Typed, then cleared: now the field says it is needed, in the page's words.
    page.fill("#f-ports", "4")
    _idle(page)
    page.fill("#f-ports", "")
    _idle(page)
    assert page.inner_text("#err-ports") == "ports: required (an integer >= 1)"


def test_errors_of_simulated_only_fields_are_checked_as_typed_and_stay_until_fixed(server, page):
    url, _ = server
    page.goto(f"{url}/m/voq?p.ports=4&{TINY}")
    _idle(page, typed=False)
    page.fill("#f-load", "1.5")
    page.fill("#f-burst", "0.5")
    page.fill("#f-slots", "1000000")     # over this server's cap
    _idle(page)
    # Checked as typed, before any Simulate: each beside its field, all at once.
    assert page.inner_text("#err-load").startswith("load: got '1.5'")
    assert page.inner_text("#err-burst").startswith("burst: got '0.5'")
    assert page.inner_text("#err-slots").startswith("slots: got 1000000; allowed: at most 200000 per point")
    page.click("#simulate")
    page.wait_for_timeout(1000)        # the refusals used to vanish after about 100 ms
    _idle(page)
    assert page.inner_text("#err-load").startswith("load: got '1.5'")
    assert page.get_attribute("#f-load", "aria-invalid") == "true"
    page.fill("#f-load", "0.5")
    page.fill("#f-burst", "")
    _idle(page)
    assert page.inner_text("#err-load") == "" and page.inner_text("#err-burst") == ""
    assert page.inner_text("#err-slots").startswith("slots: got 1000000; allowed: at most 200000 per point")
    page.click("#simulate")
    page.wait_for_timeout(1000)
    _idle(page)
    assert page.inner_text("#err-slots").startswith("slots: got 1000000")
    assert page.evaluate("S.job") is None
    page.fill("#f-slots", "500")
    _idle(page)
    assert page.inner_text("#err-slots") == ""


def test_a_large_seed_stays_exact_from_the_field_to_the_result(server, page):
    from switchq.sweeps import plan_sweep
    from switchq.web.pages import model, run_options

    url, _ = server
    seed = "8831625547063467241"      # beyond 2**53: JSON.parse would make it 8831625547063467000
    page.goto(f"{url}/m/hol?p.ports=4&{TINY}&r.seed={seed}")
    _idle(page, typed=False)
    page.click("#simulate")
    _idle(page, timeout=180_000)
    assert page.input_value("#f-seed") == seed and f"r.seed={seed}" in page.url
    assert f"--seed {seed}" in page.inner_text("#reproduce")
    root = next(p for p in run_options(model("hol")) if p.name == "seed").parse(seed, "--seed")
    point = plan_sweep("hol", {}, {"ports": "4"}, simulate=True, slots=500, replications=5, seed=root).points[0]
    assert point.seed > 2 ** 53
    row_seed = page.evaluate("S.simRows[0].seed")
    assert row_seed == str(point.seed)                               # exact, as text
    page.click("details.diagnostics summary")
    assert page.inner_text("details.diagnostics tr[data-quantity=seed] td:nth-child(2)") == str(point.seed)


def test_the_y_axis_and_every_choice_stay_in_the_permalink_and_through_a_new_simulation(server, page, browser):
    url, _ = server
    page.goto(f"{url}/m/oq?p.ports=16&x=load&range=0.1:0.9:0.1&points=0.3,0.5&{TINY}")
    _idle(page, typed=False)
    page.select_option("#y", "mean_latency")
    page.select_option("#yscale", "log")
    _idle(page)
    assert "y=mean_latency" in page.url and "yscale=log" in page.url
    page.click("#simulate")
    _idle(page, timeout=180_000)
    assert page.input_value("#y") == "mean_latency" and page.evaluate("window.switchqPlot.y") == "mean_latency"
    page.fill("#points", "0.4,0.6")     # a new simulation keeps the y axis
    _idle(page)
    page.click("#simulate")
    _idle(page, timeout=180_000)
    assert page.input_value("#y") == "mean_latency" and "y=mean_latency" in page.url
    link = page.url
    fresh = browser.new_context().new_page()
    fresh.goto(link)
    _idle(fresh, timeout=180_000)
    assert fresh.input_value("#y") == "mean_latency" and fresh.input_value("#yscale") == "log"
    assert fresh.input_value("#points") == "0.4,0.6" and fresh.input_value("#f-slots") == "500"
    assert fresh.evaluate("window.switchqPlot.y") == "mean_latency"
    fresh.context.close()


def test_the_page_is_busy_while_an_analytic_answer_is_pending(server, page):
    url, _ = server
    page.goto(f"{url}/m/window")
    _idle(page, typed=False)
    assert not page.is_visible("#busy")
    page.fill("#f-ports", "5")        # the exact chain of 5 ports: about a second
    page.wait_for_selector("#busy:not(.idle)", timeout=5_000)
    assert page.inner_text("#busy") in ("Working…", "Simulating…")
    assert page.get_attribute("#busy", "role") == "status"
    _idle(page, timeout=120_000)
    assert not page.is_visible("#busy") and _value(page, "n_ports") == "5"


def test_cancel_ends_a_running_bmin_point_within_2_s_and_the_next_request_starts(server, page):
    url, _ = server
    # 64 nodes, 200 000 cycles x 8 replications: about a minute and a half of one point.
    page.goto(f"{url}/m/bmin?p.nodes=64&r.cycles=200000&r.replications=8")
    _idle(page, typed=False)
    page.click("#simulate")
    page.wait_for_function("S.job && S.job.state === 'running'", timeout=60_000)
    page.wait_for_timeout(1500)          # inside the point
    assert page.evaluate("S.job.state") == "running"
    t0 = time.perf_counter()
    page.click("#cancel")
    page.wait_for_function("S.job.state === 'cancelled'", timeout=10_000)
    cancelled = time.perf_counter() - t0
    assert "0 of 1 points (cancelled" in page.inner_text("#progress")
    # The next request starts at once (a fresh worker), not after the cancelled point would have ended.
    page.fill("#f-nodes", "16")
    page.fill("#f-cycles", "2000")
    page.fill("#f-replications", "2")
    _idle(page)
    t1 = time.perf_counter()
    page.click("#simulate")
    _idle(page, timeout=60_000)
    after = time.perf_counter() - t1
    print(f"\nbmin 64 nodes: cancelled {cancelled:.2f} s after the click; the next point done in {after:.2f} s")
    assert cancelled < 2.0
    assert "1 of 1 points (done" in page.inner_text("#progress")
    assert after < 30


def test_the_server_going_away_shows_a_banner_and_the_page_resumes_when_it_is_back(browser, tmp_path):
    import urllib.error
    import urllib.request

    store, port = tmp_path / "s.sqlite", free_port()
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        with running_server(store, port=port) as url:
            page.goto(f"{url}/m/voq?p.ports=4&x=load&points=0.3,0.6&{TINY}")
            _idle(page, typed=False)
            page.click("#simulate")
            _idle(page, timeout=180_000)
            old_job = page.evaluate("S.job.id")
            assert not page.is_visible("#banner")
        page.fill("#range", "0.1:0.9:0.1")       # the server is gone: the page says so
        page.wait_for_selector("#banner:not([hidden])", timeout=10_000)
        assert "unreachable" in page.inner_text("#banner")
        with running_server(store, port=port) as url:
            page.wait_for_selector("#banner", state="hidden", timeout=15_000)
            _idle(page)
            assert _value(page, "saturation_throughput")          # answered again
            # The old request's id means nothing to the new server: its CSV is refused, never another's rows.
            with pytest.raises(urllib.error.HTTPError) as e:
                urllib.request.urlopen(f"{url}/api/jobs/{old_job}/csv", timeout=30)
            assert e.value.code == 404
            page.click("#export-csv")
            page.wait_for_selector("#err-points:has-text('unknown job (server restarted)')", timeout=10_000)
            # A request still running when the server goes away: polling resumes when it is back, and says what
            # became of it.
            page.fill("#f-slots", "200000")
            _idle(page)
            page.click("#simulate")
            page.wait_for_function("S.job && S.job.state === 'running'", timeout=60_000)
        page.wait_for_selector("#banner:not([hidden])", timeout=10_000)
        with running_server(store, port=port):
            page.wait_for_selector("#banner", state="hidden", timeout=15_000)
            page.wait_for_selector("#progress:has-text('unknown job (server restarted)')", timeout=10_000)
            _idle(page)
            assert page.is_disabled("#cancel")
    finally:
        context.close()
    assert not errors, errors
