"""Ports on 127.0.0.1 for the local servers that tests and benchmarks start."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from typing import AnyStr


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]  # an AF_INET address: (host, port)
        return port


def wait_for_port(port: int, proc: subprocess.Popen[AnyStr], timeout: float = 60.0) -> None:
    """Block until something accepts connections on the port; fail if the process died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode} before listening")
        with contextlib.suppress(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listened on {port} within {timeout}s")
