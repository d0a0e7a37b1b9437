"""The one error type users see: a bad input, named, with its value and the allowed range."""

from __future__ import annotations

from contextlib import contextmanager

__all__ = ["InputError", "named_by_option"]


class InputError(ValueError):
    """A parameter outside its allowed range.

    The message is one line: ``<parameter>: got <value>; allowed: <allowed>``,
    so the CLI can print it as is and exit 2.

    Examples
    --------
    >>> str(InputError("n_ports", 0, "an integer >= 1"))
    'n_ports: got 0; allowed: an integer >= 1'
    """

    def __init__(self, parameter: str, value: object, allowed: str):
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        super().__init__(f"{parameter}: got {value!r}; allowed: {allowed}")


@contextmanager
def named_by_option(options: dict):
    """Re-raise an InputError from inside with its parameter renamed to the CLI option that set it.

    Examples
    --------
    >>> try:
    ...     with named_by_option({"n_ports": "--ports"}):
    ...         raise InputError("n_ports", 0, "an integer >= 1")
    ... except InputError as e:
    ...     print(e)
    --ports: got 0; allowed: an integer >= 1
    """
    try:
        yield
    except InputError as e:
        raise InputError(options.get(e.parameter, e.parameter), e.value, e.allowed) from None
