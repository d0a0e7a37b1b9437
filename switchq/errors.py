"""The one error type users see: a bad input, named, with its value and the allowed range."""

from __future__ import annotations

__all__ = ["InputError"]


class InputError(ValueError):
    """A parameter outside its allowed range.

    The message is one line: ``<parameter>: got <value>; allowed: <allowed>``,
    so the CLI can print it as is and exit 2.

    Examples
    --------
    >>> str(InputError("n_ports", 0, "an integer >= 1"))
    'n_ports: got 0; allowed: an integer >= 1'
    >>> import pickle; str(pickle.loads(pickle.dumps(InputError("vcs", 99, "at most 64"))))
    'vcs: got 99; allowed: at most 64'
    """

    def __init__(self, parameter: str, value: object, allowed: str):
        self.parameter = parameter
        self.value = value
        self.allowed = allowed
        super().__init__(f"{parameter}: got {value!r}; allowed: {allowed}")

    def __reduce__(self):
        # Rebuilt from its three fields, so an error raised in a worker process reaches the caller whole.
        return type(self), (self.parameter, self.value, self.allowed)
