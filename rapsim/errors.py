"""Errors every ``rap`` command reports as a message and an exit status."""


class RapError(Exception):
    """A user-facing error: bad input, a missing file, an impossible request.

    The ``rap`` command prints ``rap CMD: error: <message>`` (or the
    message alone when it is already in ``file:line:col: error:`` form) and
    exits with ``exit_code``; it never shows a traceback for these.
    """

    exit_code = 1

    def __init__(self, message: str, exit_code: int | None = None):
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class Diagnostics(RapError):
    """Several located errors, each already formatted as
    ``file:line:col: error: message``."""

    def __init__(self, messages: list[str]):
        super().__init__("\n".join(messages))
        self.messages = list(messages)
