"""``switchq serve``: the what-if pages and their JSON API on a local web server (uvicorn).

One warm process: the analytic answers are imported once and answer in
milliseconds; simulations run in one worker process that keeps its compiled
kernels between requests (:mod:`.jobs`). It listens on 127.0.0.1 (this
machine only) unless ``--host`` says otherwise, and warns when it does: the
pages run simulations for whoever can reach them.
"""

from __future__ import annotations

import ipaddress
import sys

import click

from switchq.errors import InputError
from switchq.params import Param

__all__ = ["serve_command", "is_loopback"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
DEFAULT_HOST, DEFAULT_PORT = "127.0.0.1", 8765


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only.

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@click.command("serve", context_settings=CONTEXT)
@click.option("--host", default=None, metavar="ADDRESS",
              help=f"Address to listen on [default: {DEFAULT_HOST}, this machine only]. Any other address is "
                   "served only when given here, with a warning.")
@click.option("--port", default=str(DEFAULT_PORT), show_default=True, metavar="INTEGER", help="Port (1-65535).")
@click.option("--store", type=click.Path(dir_okay=False), default=None,
              help="Result store of simulated points, shared with switchq sweep [default: $SWITCHQ_STORE or "
                   "./switchq-results.sqlite].")
@click.option("--no-store", is_flag=True, help="Keep no simulated point.")
@click.option("--workers", "-j", default="1", show_default=True, metavar="INTEGER",
              help="Processes one simulated point spreads its replications over (0 = all cores).")
@click.option("--max-points", default="25", show_default=True, metavar="INTEGER",
              help="Most points one simulation request may ask for.")
@click.option("--max-replications", default="32", show_default=True, metavar="INTEGER",
              help="Most replications per simulated point.")
@click.option("--max-slots", default="200000", show_default=True, metavar="INTEGER",
              help="Most measured (and warm-up) slots or cycles per replication.")
@click.option("--max-simulated", default="2", show_default=True, metavar="SECONDS",
              help="Most simulated seconds (and warm-up) per replication, for models run in simulated time.")
@click.option("--max-seconds", default="300", show_default=True, metavar="NUMBER",
              help="Wall time after which a simulation request stops (its running point ended, as a cancel "
                   "ends it).")
@click.option("--queue", default="8", show_default=True, metavar="INTEGER",
              help="Most simulation requests waiting; more get HTTP 429.")
def serve_command(host, port, store, no_store, workers, max_points, max_replications, max_slots, max_simulated,
                  max_seconds, queue):
    """Serve every declared model as a what-if page, with its JSON API (OpenAPI at /openapi.json).

    A page per model: its parameters with units, defaults and ranges; the analytic answer as you type;
    a curve over any parameter; its simulated twin at chosen points (95% intervals, stored and reused as
    switchq sweep stores them); the command line and Python call of every view; CSV, JSON, PNG and SVG.

    \b
    Example:
      switchq serve
      switchq serve --port 9000 --max-points 10
    """
    from .jobs import Limits

    limits = Limits(max_points=_int("--max-points", max_points, 1), max_replications=_int(
        "--max-replications", max_replications, 1), max_slots=_int("--max-slots", max_slots, 100),
        max_simulated=_number("--max-simulated", max_simulated), max_seconds=_number("--max-seconds", max_seconds),
        queue=_int("--queue", queue, 1))
    port = _int("--port", port, 1, 65535)
    workers = _int("--workers", workers, 0)
    if store is not None and no_store:
        raise InputError("--no-store", True, "either --store FILE or --no-store, not both")
    if host is None:
        host = DEFAULT_HOST
    elif not is_loopback(host):
        sys.stderr.write(f"switchq: warning: serving on {host}: anyone who can reach it can run simulations on "
                         "this machine (within the work cap); there is no authentication\n")
    from switchq.store import default_path

    try:
        import uvicorn

        from .app import create_app
    except ImportError as e:      # the web extra is optional: say how to get it, in one line
        raise InputError("switchq serve", f"{e.name} not installed",
                         'the web extra installed: python -m pip install -e ".[web]"') from None

    app = create_app(None if no_store else (store or default_path()), limits, workers, start_worker=True)
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"switchq serve: http://{shown}:{port}/  (API: http://{shown}:{port}/openapi.json; Ctrl-C to stop)")
    try:
        uvicorn.run(app, host=host, port=port, log_level="warning")
    finally:
        app.state.jobs.close()


def _int(option: str, text: str, low: int, high: int | None = None) -> int:
    """An option's integer, read and refused as every switchq option is (:class:`switchq.params.Param`)."""
    return Param(option.lstrip("-").replace("-", "_"), "", "int", low=low, high=high).parse(text, option)


def _number(option: str, text: str) -> float:
    return Param(option.lstrip("-").replace("-", "_"), "", "float", low=0, low_open=True).parse(text, option)
