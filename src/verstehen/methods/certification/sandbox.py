"""Run a model-written program ("explanation") on many inputs in a confined child process.

Layers, each effective without the others (the child side lives in ``_sandbox_child.py``):

1. Process: one ``python -I -S -B`` child per run (isolated mode, stdlib only, no bytecode
   writes) in its own session, cwd a fresh temp dir, environment only PATH/HOME/TMPDIR (no API
   keys); JSON job in on stdin, one JSON document out on the inherited stdout (the program's own
   prints go to /dev/null). The temp dir is removed afterwards.
2. Network namespace: the child unshares a user + network namespace (or just a network
   namespace when it has CAP_SYS_ADMIN), leaving only a down loopback; skipped where the kernel
   refuses. Reported as ``SandboxResult.network_namespace``.
3. Landlock (Linux >= 5.13): the kernel refuses writes, creation, removal and renames outside
   the temp dir, every execve, TCP bind/connect (ABI >= 4) and signals or abstract-socket
   connections leaving the child (ABI >= 6); skipped where unavailable. ``SandboxResult.landlock``.
4. rlimits: CPU seconds, address space, file size 8 MiB, 32 open files, no core dumps, no new
   processes (RLIMIT_NPROC 0; not binding for a privileged uid outside a user namespace).
5. Audit hook (PEP 578), installed before the program is compiled: sockets and network
   clients, subprocess/os.system/exec/spawn/fork/kill, ctypes, writes outside the temp dir
   (``open`` with write flags, os.remove/rename/mkdir/chmod/...), links, and tampering (new
   audit hooks, settrace, setrlimit, gc referrers) end the whole run at once with
   ``error="blocked: ..."`` - the program cannot catch this. Importing socket, subprocess,
   ctypes, multiprocessing, ... counts as the attempt. The hook is a tripwire, not a
   boundary: a program that sets out to subvert the interpreter may get past it, which is
   what layers 1-4 are for. Reads are not restricted.
6. Parent: wall-clock deadline (kills the process group), a cap on the bytes read from the
   child, and classification of how the child died (SIGXCPU/SIGKILL -> cpu limit,
   MemoryError -> memory limit). Each input also has a per-call SIGALRM timer in the child.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_CHILD = Path(__file__).with_name("_sandbox_child.py")
_STDERR_KEEP = 64 * 1024
_FENCE = re.compile(r"```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```|\Z)", re.S | re.M)


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed run."""

    cpu_seconds: int = 20
    wall_seconds: float = 60.0
    memory_bytes: int = 512 * 2**20
    per_call_seconds: float = 1.0
    output_bytes: int = 16 * 2**20


@dataclass(frozen=True)
class SandboxResult:
    """Outcome of a run: per-input outputs, or why the whole run failed."""

    ok: bool
    outputs: list[dict[str, Any]]
    error: str | None
    seconds: float
    network_namespace: bool = False
    landlock: bool = False


class _Abort(Exception):
    """The parent stopped the child (deadline or output cap); the message is the error."""


def _exchange(proc: subprocess.Popen[bytes], payload: bytes, cap: int, deadline: float
              ) -> tuple[bytes, bytes]:
    """Feed stdin and collect stdout/stderr without threads, honouring deadline and cap."""
    assert proc.stdin and proc.stdout and proc.stderr
    out, err, pending = bytearray(), bytearray(), memoryview(payload)
    with selectors.DefaultSelector() as sel:
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
        sel.register(proc.stdout, selectors.EVENT_READ, out)
        sel.register(proc.stderr, selectors.EVENT_READ, err)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Abort("wall-clock limit exceeded")
            for key, _ in sel.select(left):
                if key.fileobj is proc.stdin:
                    try:
                        pending = pending[os.write(key.fd, pending[:65536]):]
                    except BrokenPipeError:
                        pending = pending[:0]
                    if not pending:
                        sel.unregister(proc.stdin)
                        proc.stdin.close()
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fileobj)
                elif key.data is out:
                    out += chunk
                    if len(out) > cap:
                        raise _Abort("output limit exceeded")
                elif len(err) < _STDERR_KEEP:
                    err += chunk
    return bytes(out), bytes(err)


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's process group (anything it may have started goes with it)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _remove_tree(tmp: str) -> None:
    """Delete the run's temp dir, even where the program made subdirectories unreadable."""
    for dirpath, dirnames, _ in os.walk(tmp):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                with contextlib.suppress(OSError):
                    os.chmod(path, 0o700)
    shutil.rmtree(tmp, ignore_errors=True)


def _diagnose(returncode: int, stderr: bytes) -> str:
    """Why a child that wrote no result died."""
    text = stderr.decode("utf-8", "replace")
    if returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "cpu limit exceeded"
    if "MemoryError" in text or "Cannot allocate memory" in text:
        return "memory limit exceeded"
    if returncode < 0:
        with contextlib.suppress(ValueError):
            return f"sandbox child killed by {signal.Signals(-returncode).name}"
        return f"sandbox child killed by signal {-returncode}"
    last = text.strip().splitlines()[-1:] or ["no result"]
    return f"sandbox child failed (exit code {returncode}): {last[0][:300]}"


def run_program(
    source: str, entry: str, inputs: list[list[Any]], limits: Limits = Limits()
) -> SandboxResult:
    """Call `entry(*args)` for each args list in a sandboxed child process; never raises for
    program faults."""
    start = time.monotonic()
    tmp = tempfile.mkdtemp(prefix="verstehen-sandbox-")
    try:
        job = {"source": source, "entry": entry, "inputs": inputs, "tmpdir": tmp,
               "per_call_seconds": limits.per_call_seconds, "cpu_seconds": limits.cpu_seconds,
               "memory_bytes": limits.memory_bytes}
        payload = json.dumps(job).encode()
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": tmp, "TMPDIR": tmp}
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", "-B", str(_CHILD)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=tmp, env=env, start_new_session=True, close_fds=True,
        )
        with proc:
            try:
                out, err = _exchange(proc, payload, limits.output_bytes,
                                     start + limits.wall_seconds)
            except _Abort as exc:
                return SandboxResult(False, [], str(exc), time.monotonic() - start)
            finally:  # the child has closed its output (exited) or is past its limits
                _kill_group(proc)
                returncode = proc.wait()
    finally:
        _remove_tree(tmp)
    seconds = time.monotonic() - start
    try:
        doc = json.loads(out)
        layers = {"network_namespace": bool(doc["netns"]), "landlock": bool(doc["landlock"])}
        return SandboxResult(bool(doc["ok"]), list(doc.get("outputs") or []) if doc["ok"] else [],
                             doc.get("error"), seconds, **layers)
    except (ValueError, TypeError, KeyError):
        return SandboxResult(False, [], _diagnose(returncode, err), seconds)


def extract_code(text: str) -> str | None:
    """The Python code in a model's reply: the first ```python (or bare ```) fenced block, else
    the whole text if it contains 'def '; None if there is no code."""
    for lang, body in _FENCE.findall(text):
        if lang.lower() in ("", "python", "py", "python3") and body.strip():
            return body.rstrip() + "\n"
    return text if "def " in text else None
