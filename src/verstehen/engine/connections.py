"""How many connections at once a process may open: the open-file limit, less what the rest
of the process keeps."""

from __future__ import annotations

import os
import resource

# Descriptors the open-file limit keeps for the rest of the process (cache, run folder, sandbox
# pipes, the interpreter's own), and those each connection may hold (its socket, a DNS lookup's)
RESERVED_DESCRIPTORS, DESCRIPTORS_PER_CONNECTION = 64, 2


def connection_cap() -> int | None:
    """How many connections at once the open-file limit leaves room for (None: no limit)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        open_now = len(os.listdir("/proc/self/fd"))
    except OSError:
        open_now = 16  # no /proc: a fresh interpreter's few
    return max(1, (soft - open_now - RESERVED_DESCRIPTORS) // DESCRIPTORS_PER_CONNECTION)
