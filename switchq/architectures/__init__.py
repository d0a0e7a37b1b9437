"""One module per architecture, network, collective or link: its declaration (``DECLARATION``).

Modules here are discovered by :mod:`switchq.registry`, not listed: adding an
architecture is adding a module (see "Adding an architecture" in the README).
They import model descriptions only, so discovering them is cheap.
"""
