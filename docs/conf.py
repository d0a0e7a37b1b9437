"""Sphinx configuration of the switchq docs site.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (from the checkout's root). The model
pages (``models/``) and the reports (``reports/``) are written from the declarations and the committed reports
when the build starts (``_ext/switchq_docs.py``, :mod:`switchq.docs_pages`); the tutorial notebooks run at
every build.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "switchq"
author = "switchq contributors"
copyright = "switchq contributors"

extensions = [
    "myst_nb",               # Markdown pages (MyST) and notebooks, executed
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",   # the codebase's docstrings are numpydoc-style
    "switchq_docs",          # the generated pages
]

source_suffix = {".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**.ipynb_checkpoints", "jupyter_execute"]

html_theme = "furo"
# Options are written --name everywhere: no "--" turned into a dash.
smartquotes = False
html_title = "switchq"

# MyST: ::: fences, and anchors on headings down to level 3, which CONTRIBUTING.md's links name
# (#step-by-step-the-knockout-switch).
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# Notebooks run at every build, so a tutorial that no longer runs fails it; each is kept to seconds.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 180

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
autodoc_member_order = "bysource"
autodoc_typehints = "description"
