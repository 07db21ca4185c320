"""Limits on what a server can make us hold, and how a reply that breaks them is reported.

Every one of them fails the call with a TransientError (a server fault: retried, and with
several endpoints moved to another), never a crash or a cache row.
"""

from __future__ import annotations

# decompressed bytes one reply may have; real chat replies are a few KB, a long one 1 MB
MAX_REPLY_BYTES = 8 * 2**20
# tokens one reply may count (prompt or completion): no model has a context near a billion
MAX_TOKEN_COUNT = 10**9
# characters of a server's error text kept in an error (records hold it)
MAX_ERROR_CHARS = 2000


def size_text(n: int) -> str:
    """`n` bytes in MiB when a whole number of them, else in bytes ("8 MiB", "1000 bytes")."""
    return f"{n // 2**20} MiB" if n and n % 2**20 == 0 else f"{n} bytes"
