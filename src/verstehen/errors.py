"""Errors a user can cause (exit 2, one line) and errors a model call can raise."""

from __future__ import annotations


class UserError(Exception):
    """Bad input the user can fix: the CLI prints the message as one line and exits 2."""


class UnsupportedCapability(UserError):
    """The model or server cannot do what was asked (e.g. exact logprobs)."""


class TransientError(Exception):
    """A call failed in a way worth retrying (429, 5xx, timeout, dropped connection)."""

    def __init__(self, message: str, *, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CallFailed(Exception):
    """A call failed for good: not retryable, or out of attempts."""
