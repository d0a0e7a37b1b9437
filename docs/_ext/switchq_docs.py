"""Sphinx extension: the pages switchq writes itself, and its docstrings read as reStructuredText.

- When a build starts, the model pages and the reports are written into the docs tree from the declarations and
  the committed records (:func:`switchq.docs_pages.write_site`); the folders it writes (``docs/models/``,
  ``docs/reports/``) are generated whole and kept out of git.
- The guide links a report as the committed file (``../../reports/hol.md``), which is what GitHub shows; on the
  site the link is to the report's page the build wrote (``../reports/hol.md``).
- ``.. solver-modules::`` (inside ``{eval-rst}``) documents every module of :mod:`switchq.solvers`, found by
  listing the package, so a new solver needs no docs edit.
- ``switchq.validate`` is both the simulator's package and the verb (the package is callable): autodoc is given
  the verb's signature and docstring (:func:`switchq.verbs.validate`), not the package's.
- The docstrings are written for ``help()`` as much as for Sphinx: ``|D|`` is a set's size there, which
  reStructuredText would read as a substitution; autodoc is given it escaped.
"""

import inspect
import pkgutil
import re
import types
from pathlib import Path

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from switchq.docs_pages import write_site

# A hand-written page's link to a committed report: ](../../reports/hol.md)
_REPORT_LINK = re.compile(r"\]\(\.\./\.\./reports/([\w-]+\.md)\)")
# |D|, |gap|: a bar-delimited word outside a ``literal`` (where it is already plain).
_BARS = re.compile(r"(?<![\\|`])\|(\w+)\|(?![|`])")


def _write(app) -> None:
    docs = Path(app.srcdir)
    write_site(docs, docs.parent)


def _report_pages(app, docname, source) -> None:
    if docname.startswith("guide/"):
        source[0] = _REPORT_LINK.sub(r"](../reports/\1)", source[0])


def _plain_bars(app, what, name, obj, options, lines) -> None:
    for i, line in enumerate(lines):
        parts = line.split("``")
        lines[i] = "``".join(p if k % 2 else _BARS.sub(r"\\|\1\\|", p) for k, p in enumerate(parts))


def _verb_of(obj):
    """The verb a callable package stands for (``switchq.validate``), or None."""
    if isinstance(obj, types.ModuleType) and callable(obj):
        from switchq import verbs

        return getattr(verbs, obj.__name__.rpartition(".")[2])
    return None


def _verb_docstring(app, what, name, obj, options, lines) -> None:
    verb = _verb_of(obj)
    if verb is not None and what == "function":
        from sphinx.util.docstrings import prepare_docstring

        lines[:] = prepare_docstring(verb.__doc__)


def _verb_signature(app, what, name, obj, options, signature, return_annotation):
    verb = _verb_of(obj)
    if verb is not None and what == "function":
        # Without annotations, as the other verbs are shown (autodoc_typehints = "description").
        sig = inspect.signature(verb)
        sig = sig.replace(parameters=[q.replace(annotation=q.empty) for q in sig.parameters.values()],
                          return_annotation=sig.empty)
        return str(sig), None
    return None


class SolverModules(SphinxDirective):
    """``automodule`` with its members, of each module of :mod:`switchq.solvers`."""

    def run(self):
        import switchq.solvers

        found = sorted(m.name for m in pkgutil.iter_modules(switchq.solvers.__path__) if not m.name.startswith("_"))
        text = StringList()
        for name in found:
            for line in (f".. automodule:: switchq.solvers.{name}", "   :members:", ""):
                text.append(line, "<solver-modules>")
        node = nodes.section()
        nested_parse_with_titles(self.state, text, node)
        return node.children


def setup(app):
    app.connect("builder-inited", _write)
    app.connect("source-read", _report_pages)
    app.connect("autodoc-process-docstring", _verb_docstring)
    app.connect("autodoc-process-docstring", _plain_bars)
    app.connect("autodoc-process-signature", _verb_signature)
    app.add_directive("solver-modules", SolverModules)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
