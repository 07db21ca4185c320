"""The runner: closes what it inherited, confines itself, then loads the program and calls it
on each input, one message per output."""

from __future__ import annotations

import gc
import json
import os
import resource
import signal
import sys
from typing import TYPE_CHECKING

from hook import _make_hook, _strip_modules
from layers import (
    _SYSTEM_READS,
    _drop_identity,
    _landlock,
    _mount_quota,
    _namespaces,
    _optional,
    _private_root,
    _set_limits,
)
from protocol import REPORT_FD, _Timeout, _Unserializable

if TYPE_CHECKING:  # annotations only: typing costs every child an import
    from collections.abc import Callable
    from typing import Any, NoReturn

    from verstehen.methods.certification.sandbox_child.messages import Job, Output


def _jsonable(value: Any, depth: int = 0) -> Any:
    """The JSON form of a return value; raises _Unserializable when there is none."""
    if depth > 100:
        raise _Unserializable("nested too deeply")
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        if value.bit_length() > 13000:
            raise _Unserializable("int with more than 3900 digits")
        return int.__index__(value)
    mod = type(value).__module__
    if isinstance(value, float) or (mod, type(value).__name__) in (
        ("fractions", "Fraction"), ("decimal", "Decimal")):
        try:
            number = float(value)
        except (ValueError, OverflowError) as exc:
            raise _Unserializable(type(value).__name__) from exc
        return number if number - number == 0 else str(number)  # nan / inf / -inf as strings
    if isinstance(value, (list, tuple)):
        return [_jsonable(item, depth + 1) for item in value]
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = _jsonable(key, depth + 1)
            if isinstance(key, (list, dict)):
                raise _Unserializable("dict with a " + type(key).__name__ + " key")
            out[key if isinstance(key, str) else json.dumps(key)] = _jsonable(item, depth + 1)
        return out
    raise _Unserializable(type(value).__name__)


def _describe(exc: BaseException) -> str:
    """'ExcType: message', capped; never raises."""
    try:
        text = str(exc)
    except Exception:
        text = "<unprintable>"
    return f"{type(exc).__name__}: {text}"[:500]


def _call(fn: Any, args: list[Any]) -> Output:
    """One input: {"value": ...} or {"error": ...}; lets _Timeout and MemoryError through."""
    try:
        return {"value": _jsonable(fn(*args))}
    except (_Timeout, MemoryError):
        raise
    except _Unserializable as exc:
        return {"error": f"unserializable result: {exc}"}
    except BaseException as exc:
        return {"error": _describe(exc)}


def _sender(fd: int) -> Callable[[bytes, bytes], None]:
    """Write one message (kind, payload) to the supervisor (bound names only: the audit hook
    sends through this after the program may have patched builtins)."""
    write, length, view = os.write, len, memoryview

    def send(kind: bytes, payload: bytes) -> None:
        data = view(kind + b"%010d" % length(payload) + payload)
        while data:
            data = data[write(fd, data):]

    return send


def _own_fds(report_w: int, err_w: int) -> None:
    """Keep 0, 1 -> /dev/null, 2 -> stderr pipe, 3 -> report pipe and nothing else: none of the
    supervisor's descriptors (its stdin, which carries the nonce, or its stdout) survives."""
    devnull = os.open(os.devnull, os.O_RDWR)
    report_hi, err_hi = os.dup2(report_w, 10), os.dup2(err_w, 11)  # the pipes are fds 3..6
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    os.dup2(err_hi, 2)
    os.dup2(report_hi, REPORT_FD)
    os.closerange(REPORT_FD + 1, max(12, min(resource.getrlimit(resource.RLIMIT_NOFILE)[0], 2**16)))
    # typeshed declares sys.__stdout__ Final; replacing it here is the point
    sys.stdout = sys.__stdout__ = open(os.devnull, "w")  # type: ignore[misc]  # noqa: SIM115


def _confine(job: Job, root: str, reads: tuple[str, ...]) -> list[str]:
    """Apply the job's layers in the order they need (mounts and Landlock rules while still
    root, then the uid switch, then rlimits); the names of those in force."""
    layers, applied = set(job["layers"]), []
    uid = job["uid"] if "process" in layers else None
    mounts = "rlimits" in layers or "rootfs" in layers
    spaces = _optional(_namespaces, mounts, "netns" in layers) or set()
    if "mount" in spaces and "rootfs" in layers and _optional(_private_root, root, reads):
        applied.append("rootfs")
    owner = os.getuid() if uid is None else uid
    if "mount" in spaces and "rlimits" in layers and _optional(
            _mount_quota, root, job["disk_bytes"], job["disk_files"], owner):
        applied.append("tmpfs")
    if "net" in spaces:
        applied.append("netns")
    if "landlock" in layers and _optional(_landlock, root, reads):
        applied.append("landlock")
    if "process" in layers and _optional(_drop_identity, uid):
        applied.append("process")
    if "rlimits" in layers and _optional(_set_limits, job):
        applied.append("rlimits")
    if "audit" in layers:
        _strip_modules()
        applied.append("audit")
    return applied


def _runner(job: Job, report_w: int, err_w: int) -> NoReturn:
    """Confine this process with the job's layers, then load and call the program."""
    _own_fds(report_w, err_w)
    send, dumps, exit_now = _sender(REPORT_FD), json.dumps, os._exit
    root = os.path.realpath(job["tmpdir"])
    reads = tuple(dict.fromkeys(
        [os.path.realpath(p) for p in sys.path if os.path.isdir(p)] + list(_SYSTEM_READS)))
    applied = _confine(job, root, reads)
    for name in [n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes", "json")]:
        del sys.modules[name]  # `import ctypes` is audited again; the program gets its own json
    gc.collect()  # no ctypes object from the set-up stays reachable
    reserve = [bytearray(2**20)]  # freed on MemoryError so the last message can still be sent

    def fatal(reason: str) -> NoReturn:
        reserve.clear()
        send(b"F", reason.encode("utf-8", "replace"))
        exit_now(0)

    send(b"L", dumps(applied).encode())  # before any code of the program runs
    if "audit" in applied:
        sys.addaudithook(_make_hook(root, reads, fatal))
    try:
        _run(job, send, fatal)
    except MemoryError:
        fatal("memory limit exceeded")
    send(b"E", b"")
    exit_now(0)


def _load(job: Job) -> tuple[Any, str | None]:
    """Compile and execute the program (its top level under the load timer); (entry, error).
    _Timeout and MemoryError pass through to _run."""
    namespace: dict[str, object] = {"__name__": "__explanation__", "__builtins__": __builtins__}
    try:
        code = compile(job["source"], "<explanation>", "exec")
    except (SyntaxError, ValueError) as exc:  # ValueError: NUL bytes, lone surrogates
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        return None, f"syntax error: {getattr(exc, 'msg', exc)}{where}"
    except (RecursionError, MemoryError):  # the parser's own depth guards, not the rlimit
        return None, "syntax error: the program is nested too deeply to compile"
    try:
        exec(code, namespace)
    except (_Timeout, MemoryError):  # _run reports the load timeout; MemoryError is fatal
        raise
    except BaseException as exc:
        return None, f"error while loading the program: {_describe(exc)}"
    fn = namespace.get(job["entry"])
    return (fn, None) if callable(fn) else (None, f"no function named {job['entry']}")


def _fitted(output: Output, encoded: bytes, cap: int) -> bytes:
    """An output whose JSON is over `cap` bytes, made to fit: a value becomes that question's
    error; an error message is cut."""
    if "value" in output:
        return json.dumps({"error": f"answer of {len(encoded):,} bytes, over the limit of "
                                    f"{cap:,}"}).encode()
    text = str(output.get("error"))[:cap]
    while len(out := json.dumps({"error": text}).encode()) > cap:
        text = text[:len(text) // 2]  # escapes take up to 12 bytes a character
    return out


def _ignore_unraisable(info: Any) -> None:
    """sys.unraisablehook: an exception Python swallows (in a __del__, a weakref callback) is
    ignored, never printed (printing a traceback reads source files outside the sandbox); the
    timer's own exception there still marks the call as timed out (see `_run`)."""


def _run(job: Job, send: Callable[[bytes, bytes], None],
         fatal: Callable[[str], NoReturn]) -> None:
    """Load the program, then call the entry on each input under the per-call timer. A call
    during which the timer fired is a timeout whatever it returned: the program may swallow
    the timer's exception (in a __del__, or catching BaseException), so the timer fires again
    every 50 ms until the call ends."""
    armed, fired = [False], [False]
    setitimer, real = signal.setitimer, signal.ITIMER_REAL  # bound before the program runs
    sys.unraisablehook = _ignore_unraisable

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            fired[0] = True
            setitimer(real, 0.05)
            raise _Timeout

    def arm(seconds: float) -> None:
        fired[0] = False
        armed[0] = True
        setitimer(real, seconds)

    def disarm() -> None:
        while True:  # a last alarm may land before the flag is down: then once more
            try:
                armed[0] = False
                setitimer(real, 0)
                return
            except _Timeout:
                continue

    signal.signal(signal.SIGALRM, on_alarm)
    arm(float(job["load_seconds"]))  # from the program's first line: compile and top level
    try:
        try:
            fn, error = _load(job)
        finally:
            disarm()
    except _Timeout:
        fn, error = None, "time limit exceeded while loading the program"
    if error is None and fired[0]:
        error = "time limit exceeded while loading the program"
    if error is not None:
        fatal(error)
    cap, total, dumps = int(job["answer_bytes"]), int(job["output_bytes"]), json.dumps
    output: Output = {}
    for args in job["inputs"]:
        arm(float(job["per_call_seconds"]))
        try:
            try:
                output = _call(fn, args)
                out = dumps(output, allow_nan=False).encode()
            finally:
                disarm()
        except _Timeout:
            out = b'{"error": "timeout"}'
        if fired[0]:
            out = b'{"error": "timeout"}'
        if len(out) > total:  # one answer over everything the run may return: a bomb
            fatal("output limit exceeded")
        if len(out) > cap:
            out = _fitted(output, out, cap)
        send(b"V", out)
