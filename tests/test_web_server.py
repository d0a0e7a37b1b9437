"""``switchq serve`` as a user starts it: a process that prints its address, answers, and stops on a signal.

:func:`running_server` is also how the browser and load tests start theirs (a real process, not an
in-process app: its simulations then run in their own worker process, as a user's do).
"""

from __future__ import annotations

import contextlib
import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("fastapi")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(store, *args, timeout: float = 60.0):
    """``switchq serve`` on a free loopback port with this store; yields its base URL, stops it after."""
    port = free_port()
    command = [sys.executable, "-m", "switchq", "serve", "--port", str(port), *args]
    command += ["--store", str(store)] if store is not None else ["--no-store"]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        t0 = time.time()
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/limits", timeout=2):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise AssertionError(f"switchq serve exited: {proc.stderr.read()}")
                if time.time() - t0 > timeout:
                    raise AssertionError(f"switchq serve did not answer within {timeout} s")
                time.sleep(0.1)
        yield url
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_serve_prints_its_address_answers_and_stops(tmp_path):
    with running_server(tmp_path / "s.sqlite", "--max-points", "3") as url:
        with urllib.request.urlopen(f"{url}/api/limits") as r:
            limits = json.load(r)
        assert limits["max_points"] == 3 and limits["store"] == str(tmp_path / "s.sqlite")
        with urllib.request.urlopen(f"{url}/") as r:
            html = r.read().decode()
        # Every asset is served by the package itself: nothing is fetched from the internet.
        assert "/static/vendor/vega.min.js" in html and "https://" not in html
        with urllib.request.urlopen(f"{url}/static/vendor/vega-lite.min.js") as r:
            assert r.status == 200
