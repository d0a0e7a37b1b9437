"""The HTTP routes of ``switchq serve``: the pages, and the JSON API they talk to.

The API is the CLI over HTTP: requests carry option texts by parameter name
(``{"params": {"ports": "16", "cable": "100m"}}``, exactly what the options
take; a seed as text, as it may not fit a double), responses carry the CLI's
``--json`` (``result`` of a solve, ``rows`` of a sweep) with the equivalent
command line and Python call. Its OpenAPI description is at ``/openapi.json``.
A bad value is a 400 whose ``error`` is the CLI's one line, whose ``field``
and ``errors`` say which fields it belongs to, and whose ``messages`` say the
same in the page's words (labels, not flags); an unknown model a 404, a job
id this server never gave (from before a restart) a 404 "unknown job (server
restarted)"; a full simulation queue a 429. The page's own routes answer a
refusal with a 200 saying so, so a value being typed is no failed request
(nor an error in the browser's console): ``/api/answer/NAME`` is
``/api/solve/NAME`` for a page, and ``/api/check/NAME`` reads a simulation
request as typed without queueing it. Routes are plain functions, which the
server runs in a thread pool, so analytic answers are served while a
simulation runs (in its worker process, :mod:`.jobs`). Responses over 1 kB
are gzip-compressed for clients that accept it.
"""

from __future__ import annotations

import secrets
import time
from importlib.resources import files
from typing import Any

from fastapi import Body, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from switchq.errors import InputError

from . import answers, pages
from .jobs import Busy, Jobs, Limits, run_values

__all__ = ["create_app"]

STATIC = files("switchq.web") / "static"

Texts = dict[str, Any]


class SolveRequest(BaseModel):
    params: Texts = Field(default_factory=dict, description="Option texts by parameter name, as the CLI takes "
                                                            "them: {'ports': '16', 'cable': '100m'}; blank = default.")


class SweepRequest(SolveRequest):
    vary: dict[str, str] = Field(default_factory=dict, description="Grid specs by parameter name, as --vary takes "
                                                                   "them: {'load': '0.1:0.9:0.1'}.")


class SimulateRequest(SweepRequest):
    run: Texts = Field(default_factory=dict, description="Run option texts by name (slots or cycles, warmup, "
                                                         "replications, seed), as switchq sweep --simulate takes "
                                                         "them.")


def _refused(name: str | None, e: InputError, given: dict | None = None, mode: str = "analytic") -> dict:
    """The CLI's one line, the field it belongs to, every other field refused on its own, and all of it in the
    page's words."""
    field = None
    errors = {}
    if name is not None:
        m = pages.model(name)
        field = answers.field_of(m, e.parameter)
        errors = answers.field_errors(name, given or {}, mode) if given else {}
        if field is not None:
            errors.setdefault(field, str(e))
    return _body(name, str(e), field, errors)


def _body(name: str | None, error: str, field: str | None, errors: dict) -> dict:
    said = (lambda text: answers.page_message(name, text)) if name is not None else (lambda text: text)
    return {"error": error, "field": field, "errors": errors, "message": said(error),
            "messages": {k: said(v) for k, v in errors.items()}}


def _refusal(name: str | None, e: InputError, given: dict | None = None, mode: str = "analytic") -> JSONResponse:
    """A 400 of :func:`_refused` (a 404 for a model there is none of)."""
    if name is not None:
        try:
            pages.model(name)
        except InputError:
            return JSONResponse(_body(None, str(e), None, {}), status_code=404)
    return JSONResponse(_refused(name, e, given, mode), status_code=400)


def create_app(store=None, limits: Limits = Limits(), workers: int = 1, start_worker: bool = False) -> FastAPI:
    """The app: pages, static assets and the API; simulated points go to ``store`` (None: kept nowhere)."""
    app = FastAPI(title="switchq", version=_version(), docs_url=None, redoc_url=None,
                  description="What-if answers for switch and router architectures: every declared model's "
                              "analytic answer and curve, and its simulated twin through the sweep engine. "
                              "Requests take the CLI's option texts; responses carry the CLI's --json.")
    jobs = Jobs(store, limits, workers)
    app.state.jobs = jobs
    # This run of the server: a page that sees it change knows the server restarted (its job ids are gone).
    instance = {"id": secrets.token_hex(6), "started": time.time()}
    app.add_middleware(GZipMiddleware, minimum_size=1000)
    if start_worker:
        jobs.start_worker()

    _errors(app)
    _pages(app)
    _answers(app)
    _simulations(app, jobs, limits, workers, instance)
    return app


def _errors(app) -> None:
    """Every refusal and failure as the JSON body the page reads (``error``, ``field``, ``errors``)."""

    @app.exception_handler(InputError)
    def _input_error(request: Request, e: InputError):
        return _refusal(request.path_params.get("name"), e)

    @app.exception_handler(RequestValidationError)
    def _bad_body(request: Request, e: RequestValidationError):
        first = e.errors()[0] if e.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ("body",)))
        return JSONResponse(_body(None, f"{where}: {first.get('msg', 'bad request')}", None, {}), status_code=400)

    @app.exception_handler(Exception)
    def _bug(request: Request, e: Exception):
        return JSONResponse(_body(None, f"internal error: {type(e).__name__}: {e}", None, {}), status_code=500)


def _pages(app) -> None:
    """The page (one for every model: the script reads the model from the path) and its static assets."""

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(str(STATIC / "index.html"))

    @app.get("/m/{name}", include_in_schema=False)
    def page(name: str):
        return FileResponse(str(STATIC / "index.html"))

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon():
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")


def _answers(app) -> None:
    """The analytic side: the models, an answer (strict for the API, a refusal beside its field for the page)
    and a curve."""

    @app.get("/api/models", summary="Every model with a page")
    def models():
        return pages.catalogue()

    @app.get("/api/models/{name}", summary="A model's page: fields by group, results, units")
    def model(name: str):
        pages.check_name(name)
        return pages.describe(name)

    def answer(name: str, body: SolveRequest) -> tuple:
        """``(True, the answer)`` or ``(False, the refusal)``."""
        pages.check_name(name)
        bad = answers.field_errors(name, body.params)
        if bad:
            field, message = next(iter(bad.items()))
            return False, _body(name, message, field, bad)
        try:
            result = answers.solve(name, body.params)
        except InputError as e:
            return False, _refused(name, e, body.params)
        return True, {"result": result, "command": pages.command_line(name, body.params),
                      "python": pages.python_call(name, body.params)}

    @app.post("/api/solve/{name}", summary="The analytic answer: switchq solve|size NAME ... --json")
    def solve(name: str, body: SolveRequest = Body(default_factory=SolveRequest)):
        ok, out = answer(name, body)
        return out if ok else JSONResponse(out, status_code=400)

    @app.post("/api/answer/{name}", summary="The analytic answer as a page asks for it: refusals answered 200")
    def page_answer(name: str, body: SolveRequest = Body(default_factory=SolveRequest)):
        """What ``/api/solve`` answers, but a refusal is a 200 with ``refused: true``: to a page that shows it
        beside its field, a value being typed is not a failed request (nor an error in the browser's console)."""
        ok, out = answer(name, body)
        return out if ok else {"refused": True, **out}

    @app.post("/api/sweep/{name}", summary="An analytic curve: switchq sweep NAME --vary ... --json (or --csv)")
    def sweep(name: str, body: SweepRequest, format: str = "json"):
        pages.check_name(name)
        if format not in ("json", "csv"):
            raise InputError("format", format, "json or csv")
        try:
            rows = answers.sweep(name, body.vary, body.params)
        except InputError as e:
            return _refusal(name, e, body.params)
        if format == "csv":
            return PlainTextResponse(answers.to_csv(rows), media_type="text/csv")
        return {"rows": rows, "command": pages.command_line(name, body.params, body.vary),
                "python": pages.python_call(name, body.params, body.vary)}


def _simulations(app, jobs, limits, workers, instance) -> None:
    """The simulated side: a request queued as jobs of points, checked as typed, followed, cancelled and
    exported; and this server's cap and run."""

    @app.post("/api/simulate/{name}", status_code=202,
              summary="Queue simulated points: switchq sweep NAME --simulate ... --json, point by point")
    def simulate(name: str, body: SimulateRequest):
        pages.check_name(name)
        try:
            job = jobs.submit(name, body.vary, body.params, body.run)
        except InputError as e:
            return _refusal(name, e, {**body.params, **body.run}, "simulated")
        except Busy as e:
            return JSONResponse(_body(None, str(e), None, {}), status_code=429)
        return jobs.view(job.id)

    @app.post("/api/check/{name}", summary="Check a simulation request as typed, without queueing it")
    def check(name: str, body: SimulateRequest):
        """200 whatever the values: ``errors`` (CLI lines) and ``messages`` (page words) by field, ``error`` the
        first refusal of the whole request (None: it would be queued as it is)."""
        pages.check_name(name)
        fine = {"error": None, "field": None, "errors": {}, "message": None, "messages": {}}
        if pages.model(name).build is None:
            return fine
        given = {**body.params, **body.run}
        bad = answers.field_errors(name, given, "simulated")
        # Run options over this server's cap, beside their fields with the other refusals (those read alone).
        m = pages.model(name)
        try:
            run_kw = run_values(m, {k: v for k, v in answers.clean_given(body.run).items() if k not in bad})
        except InputError:
            run_kw = {}
        for e in jobs.over_cap(m, run_kw):
            bad.setdefault(answers.field_of(m, e.parameter) or e.parameter, str(e))
        if bad:
            field, message = next(iter(bad.items()))
            return _body(name, message, field, bad)
        try:
            jobs.plan(name, body.vary, body.params, body.run)
        except InputError as e:
            return _refused(name, e, given, "simulated")
        return fine

    @app.get("/api/jobs/{job_id}", summary="A simulation request: state, progress and the points so far")
    def job(job_id: str):
        return _job(jobs.view, job_id)

    @app.delete("/api/jobs/{job_id}", summary="Cancel a simulation request (ends its running point)")
    def cancel(job_id: str):
        return _job(jobs.cancel, job_id)

    @app.get("/api/jobs/{job_id}/csv", summary="A simulation request's points as switchq sweep --csv writes them")
    def job_csv(job_id: str):
        view = _job(jobs.view, job_id)
        if isinstance(view, JSONResponse):
            return view
        return PlainTextResponse(answers.to_csv(view["rows"]), media_type="text/csv")

    @app.get("/api/jobs/{job_id}/json", summary="A simulation request's points as switchq sweep --json prints them")
    def job_json(job_id: str):
        view = _job(jobs.view, job_id)
        if isinstance(view, JSONResponse):
            return view
        return JSONResponse(view["rows"])

    @app.get("/api/limits", summary="This server's work cap per simulation request, and which run it is")
    def limits_():
        return {**limits.__dict__, "workers": workers, "store": jobs.store, "instance": instance["id"],
                "started": instance["started"]}


def _job(action, job_id: str):
    try:
        return action(job_id)
    except KeyError:
        return JSONResponse(_body(None, f"unknown job (server restarted): got {job_id!r}; allowed: the id of a "
                                        "request made to this server since it started (simulate again)", None, {}),
                            status_code=404)


def _version() -> str:
    from switchq import __version__

    return __version__
