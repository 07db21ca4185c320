"""What the supervisor and the runner say to each other: the framing, the checks the
supervisor makes of the runner's untrusted messages, how it tells how the runner ended."""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: typing costs every child an import
    from verstehen.methods.certification.sandbox_child.messages import Output, Verdict


PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 4, 36, 38


REPORT_FD = 3


NONCE_BYTES = 32


_HEAD = 11  # a runner message: kind byte, 10 ASCII digits of length, payload


_STDERR_KEEP = 64 * 1024


class _Timeout(BaseException):
    """Raised by SIGALRM when loading or one call runs past its time."""


class _Unserializable(Exception):
    """A return value that has no JSON form."""


def _read_exact(fd: int, size: int) -> bytes:
    """Exactly `size` bytes from fd, read unbuffered so nothing beyond them is consumed."""
    chunks = []
    while size:
        chunk = os.read(fd, size)
        if not chunk:
            raise EOFError("job cut short")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_line(fd: int) -> bytes:
    """One short line from fd, a byte at a time."""
    line = b""
    while not line.endswith(b"\n") and len(line) < 24:
        line += _read_exact(fd, 1)
    return line


def _prctl(option: int, value: int) -> bool:
    """prctl(option, value); False when the kernel refuses."""
    import ctypes

    status: int = ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)  # a C int
    return status == 0


def _collect(pid: int, report_r: int, err_r: int, cap: int
             ) -> tuple[bytes | None, bytes, int]:
    """The runner's messages (None past the cap: it is killed) and stderr tail, until it exits;
    and its wait status."""
    report, err, over = bytearray(), bytearray(), False
    try:
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    done, status = False, None
    with selectors.DefaultSelector() as sel:
        sel.register(report_r, selectors.EVENT_READ, report)
        sel.register(err_r, selectors.EVENT_READ, err)
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ)
        while not done:
            for key, _ in sel.select(None if pidfd is not None else 0.05):
                if key.fd == pidfd:
                    done = True
                    continue
                chunk = os.read(key.fd, 65536)
                if not chunk:
                    sel.unregister(key.fd)
                elif key.data is report:
                    report += chunk
                    if len(report) > cap:  # an output bomb: stop it now
                        os.kill(pid, signal.SIGKILL)
                        done = over = True
                elif len(err) < _STDERR_KEEP:
                    err += chunk
            if pidfd is None:
                waited, status = os.waitpid(pid, os.WNOHANG)
                done = done or waited == pid
            if not sel.get_map() or (pidfd is not None and len(sel.get_map()) == 1):
                done = True
    # Descendants of the program may still hold the pipes open: take what is there, no more.
    for fd, buf in ((report_r, report), (err_r, err)):
        os.set_blocking(fd, False)
        with contextlib.suppress(OSError):
            while len(buf) <= cap and (chunk := os.read(fd, 65536)):
                buf += chunk
    if status is None:
        status = os.waitpid(pid, 0)[1]
    if pidfd is not None:
        os.close(pidfd)
    return None if over else bytes(report), bytes(err), status


def _diagnose(status: int, stderr: bytes) -> str:
    """Why a runner that sent no final message died."""
    text = stderr.decode("utf-8", "replace")
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL):
        return "cpu limit exceeded"
    if "MemoryError" in text or "Cannot allocate memory" in text:
        return "memory limit exceeded"
    if os.WIFSIGNALED(status):
        try:
            return f"sandbox child killed by {signal.Signals(os.WTERMSIG(status)).name}"
        except ValueError:
            return f"sandbox child killed by signal {os.WTERMSIG(status)}"
    last = text.strip().splitlines()[-1:] or ["no output"]
    code = os.waitstatus_to_exitcode(status)
    return f"the program exited (code {code}) before finishing: {last[0][:300]}"


def _output(raw: bytes, cap: int) -> Output:
    """One output message: {"value": JSON} or {"error": str}, at most `cap` bytes (the runner
    fits every honest output to it); ValueError if it is neither."""
    if len(raw) > cap:
        raise ValueError(f"an output over {cap} bytes")
    doc = json.loads(raw)
    if not isinstance(doc, dict) or len(doc) != 1:
        raise ValueError("an output is not a one-key object")
    if "error" in doc and isinstance(doc["error"], str):
        return {"error": doc["error"][:2000]}
    if "value" not in doc:
        raise ValueError("an output has neither value nor error")
    return {"value": doc["value"]}  # doc's one key


def _verdict(report: bytes, n_inputs: int, status: int, stderr: bytes, answer_bytes: int
             ) -> Verdict:
    """The run's result from the runner's messages, which the program may have forged; each
    output at most `answer_bytes`."""
    layers: list[str] | None = None
    outputs: list[Output] = []
    pos, ended = 0, False

    def failed(error: str) -> Verdict:
        return {"ok": False, "outputs": [], "error": error, "layers": layers or []}

    while pos < len(report):
        head = report[pos:pos + _HEAD]
        if len(head) < _HEAD or not head[1:].isdigit():
            return failed("malformed report from the program: a message without a header")
        kind, size = head[:1], int(head[1:])
        body = report[pos + _HEAD:pos + _HEAD + size]
        pos += _HEAD + size
        if len(body) < size:
            return failed("malformed report from the program: a message cut short")
        if ended:
            return failed("malformed report from the program: messages after the end")
        if kind == b"F" and layers is not None:  # a fault or a blocked action ends the run
            return failed(body.decode("utf-8", "replace")[:500])
        try:
            if layers is None:
                if kind != b"L":
                    raise ValueError("the first message is not the list of layers")
                layers = json.loads(body)
                if not isinstance(layers, list) or not all(isinstance(x, str) for x in layers):
                    raise ValueError("bad list of layers")
            elif kind == b"V":
                outputs.append(_output(body, answer_bytes))
                if len(outputs) > n_inputs:
                    raise ValueError("more outputs than inputs")
            elif kind == b"E" and len(outputs) == n_inputs:
                ended = True
            else:
                raise ValueError(f"unexpected message {kind!r} after {len(outputs)} outputs")
        except (ValueError, RecursionError) as exc:  # json's errors are ValueErrors
            return failed(f"malformed report from the program: {str(exc)[:200]}")
    if not ended:
        return failed(_diagnose(status, stderr))
    return {"ok": True, "outputs": outputs, "error": None, "layers": layers or []}
