"""Warnings a run gives before it starts: one line on stderr from the command line, a Python
`UserWarning` from the API (so a notebook shows it)."""

from __future__ import annotations

import sys
import warnings


def warn(message: str, *, announce: bool) -> None:
    """Say `message` once: "warning: ..." on stderr when `announce` (the CLI), else warn."""
    if announce:
        print(f"warning: {message}", file=sys.stderr)
    else:
        warnings.warn(message, UserWarning, stacklevel=3)
