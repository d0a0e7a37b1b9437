"""``switchq serve``: every declared model as a what-if page, and the JSON API the pages use.

Nothing here lists models: a page is generated from the registry
(:mod:`switchq.registry`), so a new declaration gets its page with no web
code changed. The layers, each small:

- :mod:`.pages`: what a page shows (parameters grouped as the CLI groups
  them, units, defaults, allowed ranges, help) and the equivalent command
  line and Python call of a view;
- :mod:`.answers`: analytic answers and curves, read and solved exactly as
  ``switchq solve``/``size``/``sweep`` read and solve them, their ``--json``
  shape and their CSV;
- :mod:`.references`: reference lines a curve is drawn against (a limit the
  literature gives, with its source);
- :mod:`.jobs`: simulated points through the sweep engine and its store, one
  request at a time in a warm worker process that a cancel ends, with a
  stated work cap;
- :mod:`.app`: the HTTP routes (FastAPI), bad input as a 400 with the CLI's
  one-line message (and the same in the page's words);
- :mod:`.serve`: the ``switchq serve`` command.

The page itself is static: ``static/index.html`` and its scripts (``net.js``:
requests, the newest winning, the server's reachability; ``plot.js``: the
chart and its exports; ``tables.js``; ``curves.js``; ``simulate.js``;
``app.js``: the page and its permalink).

FastAPI and uvicorn are the ``web`` extra: importing :mod:`switchq` (or this
package) imports neither, nor Numba.
"""
