"""Child side of `sandbox.py`; run as ``python -I -S -B _sandbox_child.py``.

Reads one JSON job from stdin, confines itself (network namespace, Landlock, rlimits, audit hook),
runs the program and writes one JSON document to the stdout it inherited. Not imported by the
parent; it only uses the standard library.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
from typing import Any

_NETWORK_EVENTS = {
    "urllib.Request", "http.client.connect", "ftplib.connect", "smtplib.connect", "poplib.connect",
    "imaplib.open", "nntplib.connect", "telnetlib.Telnet.open", "webbrowser.open",
}
_PROCESS_EVENTS = {
    "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork",
    "os.forkpty", "pty.spawn", "os.kill", "os.killpg", "signal.pthread_kill", "os.startfile",
}
_TAMPER_EVENTS = {
    "sys.addaudithook", "sys.settrace", "sys.setprofile", "sys._current_frames",
    "sys._current_exceptions", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
    "resource.setrlimit", "resource.prlimit", "cpython.PyInterpreterState_New",
}
_EVENT_KINDS = {
    **dict.fromkeys(_NETWORK_EVENTS, "network access"),
    **dict.fromkeys(_PROCESS_EVENTS, "process control"),
    **dict.fromkeys(_TAMPER_EVENTS, "sandbox tampering"),
    "os.link": "file links", "os.symlink": "file links",
}
_BLOCKED_IMPORTS = {
    **dict.fromkeys(("socket", "_socket", "ssl", "_ssl", "asyncio"), "network access"),
    **dict.fromkeys(("subprocess", "_posixsubprocess", "multiprocessing", "_multiprocessing",
                     "pty", "concurrent.futures.process"), "process control"),
    **dict.fromkeys(("ctypes", "_ctypes", "_xxsubinterpreters", "_testcapi",
                     "_testinternalcapi"), "native code"),
}
# audit event -> (indices of path arguments, indices of dir_fd arguments)
_PATH_EVENTS = {
    "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)),
    "os.rename": ((0, 1), (2, 3)), "os.chmod": ((0,), (2,)), "os.chown": ((0,), (3,)),
    "os.utime": ((0,), (3,)), "os.truncate": ((0,), ()), "os.setxattr": ((0,), ()),
    "os.removexattr": ((0,), ()), "os.chflags": ((0,), ()), "os.lchflags": ((0,), ()),
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class _Timeout(BaseException):
    """Raised by SIGALRM when one call runs past per_call_seconds."""


class _Unserializable(Exception):
    """A return value that has no JSON form."""


def _unshare_network() -> bool:
    """Move into fresh user + network namespaces (only a down loopback); False if not allowed."""
    import ctypes

    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(0x10000000 | 0x40000000) != 0:  # CLONE_NEWUSER | CLONE_NEWNET
        return libc.unshare(0x40000000) == 0  # CLONE_NEWNET alone works with CAP_SYS_ADMIN
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):  # keep our ids so files can be created
        try:
            with open(f"/proc/self/{name}", "w") as fh:
                fh.write(text)
        except OSError:
            pass
    return True


def _landlock(root: str) -> bool:
    """Kernel-enforced: write/create/remove only below root, no execve, no TCP, no signals out."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # create_ruleset VERSION
    if abi < 1:
        return False
    write = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))  # WRITE_FILE .. MAKE_SYM
    write |= (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0)  # REFER, TRUNCATE
    attr = (ctypes.c_uint64 * 3)(write | 1, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    ruleset = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(24), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    rule = (ctypes.c_char * 12)()  # packed struct landlock_path_beneath_attr {u64 access; s32 fd}
    dir_fd = os.open(root, os.O_PATH | os.O_CLOEXEC)
    ctypes.memmove(rule, write.to_bytes(8, sys.byteorder) + dir_fd.to_bytes(4, sys.byteorder), 12)
    try:
        if libc.syscall(445, ctypes.c_int(ruleset), ctypes.c_int(1), rule, ctypes.c_uint32(0)):
            return False
        if libc.prctl(38, 1, 0, 0, 0):  # PR_SET_NO_NEW_PRIVS
            return False
        return libc.syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(dir_fd)
        os.close(ruleset)


def _optional(layer: Any, *args: Any) -> bool:
    """Apply a layer the kernel (or this Python build) may not offer; False when it did not."""
    try:
        return bool(layer(*args))
    except Exception:
        return False


def _set_limits(job: dict[str, Any]) -> None:
    """Cap CPU time, address space, file size, open files, core dumps and (best effort) forks."""
    cpu = int(job["cpu_seconds"])
    wanted = [(resource.RLIMIT_CPU, (cpu, cpu + 1)), (resource.RLIMIT_FSIZE, (8 * 2**20,) * 2),
              (resource.RLIMIT_AS, (job["memory_bytes"], job["memory_bytes"])),
              (resource.RLIMIT_NOFILE, (32, 32)), (resource.RLIMIT_CORE, (0, 0)),
              (resource.RLIMIT_NPROC, (0, 0))]
    for which, (soft, hard) in wanted:
        ceiling = resource.getrlimit(which)[1]  # an unprivileged process cannot go above it
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        try:
            resource.setrlimit(which, (soft, hard))
        except (ValueError, OSError):
            if which != resource.RLIMIT_NPROC:
                raise


def _make_hook(root: str, finish: Any) -> Any:
    """An audit hook that ends the run with a 'blocked: ...' error on any forbidden action."""
    realpath, fspath, fsdecode, readlink, join = (
        os.path.realpath, os.fspath, os.fsdecode, os.readlink, os.path.join)

    def resolve(path: Any, dir_fd: Any = None) -> str:
        if isinstance(path, int):
            return readlink(f"/proc/self/fd/{path}")
        path = fsdecode(fspath(path))
        if isinstance(dir_fd, int) and dir_fd >= 0:
            path = join(readlink(f"/proc/self/fd/{dir_fd}"), path)
        return realpath(path)

    def outside(path: Any, dir_fd: Any = None) -> str | None:
        try:
            where = resolve(path, dir_fd)
        except (OSError, TypeError, ValueError):
            return repr(path)
        return None if where == root or where.startswith(root + "/") else where

    def hook(event: str, args: tuple[Any, ...]) -> None:
        reason = None
        if event == "open":
            flags = args[2] if isinstance(args[2], int) else 0
            if flags & _WRITE_FLAGS or (isinstance(args[1], str) and set(args[1]) & set("wax+")):
                where = outside(args[0])
                reason = where and f"write outside the sandbox (open {where})"
        elif event == "import":
            kind = _BLOCKED_IMPORTS.get(args[0])
            reason = kind and f"{kind} (import {args[0]})"
        elif event.startswith("socket."):
            reason = f"network access ({event})"
        elif event.startswith("ctypes."):
            reason = f"native code ({event})"
        elif event in _EVENT_KINDS:
            reason = f"{_EVENT_KINDS[event]} ({event})"
        elif event in _PATH_EVENTS:
            paths, dir_fds = _PATH_EVENTS[event]
            for i in paths:
                where = outside(args[i], args[dir_fds[i]] if i < len(dir_fds) else None)
                if where:
                    reason = f"write outside the sandbox ({event} {where})"
                    break
        if reason:
            finish({"ok": False, "outputs": [], "error": "blocked: " + reason})

    return hook


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


def _call(fn: Any, args: list[Any]) -> dict[str, Any]:
    """One input: {"value": ...} or {"error": ...}; lets _Timeout and MemoryError through."""
    try:
        return {"value": _jsonable(fn(*args))}
    except (_Timeout, MemoryError):
        raise
    except _Unserializable as exc:
        return {"error": f"unserializable result: {exc}"}
    except BaseException as exc:
        return {"error": _describe(exc)}


def _run(job: dict[str, Any]) -> dict[str, Any]:
    """Compile, load and call the entry point on every input (the hook is already active)."""
    try:
        code = compile(job["source"], "<explanation>", "exec")
    except (SyntaxError, ValueError) as exc:
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        return {"ok": False, "error": f"syntax error: {getattr(exc, 'msg', exc)}{where}"}
    namespace: dict[str, Any] = {"__name__": "__explanation__", "__builtins__": __builtins__}
    try:
        exec(code, namespace)
    except MemoryError:
        raise
    except BaseException as exc:
        return {"ok": False, "error": f"error while loading the program: {_describe(exc)}"}
    fn = namespace.get(job["entry"])
    if not callable(fn):
        return {"ok": False, "error": f"no function named {job['entry']}"}
    armed = [False]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            raise _Timeout

    signal.signal(signal.SIGALRM, on_alarm)
    outputs = []
    for args in job["inputs"]:
        armed[0] = True
        signal.setitimer(signal.ITIMER_REAL, job["per_call_seconds"])
        try:
            outputs.append(_call(fn, args))
        except _Timeout:
            outputs.append({"error": "timeout"})
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    return {"ok": True, "outputs": outputs, "error": None}


def main() -> None:
    """Confine this process, run the job, write the result and exit without interpreter cleanup."""
    job = json.loads(sys.stdin.buffer.read())
    root = os.path.realpath(job["tmpdir"])
    out_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # prints from the program go nowhere, not into the result
    os.close(devnull)
    sys.stdout = sys.__stdout__ = open(os.devnull, "w")  # noqa: SIM115
    layers = {"netns": _optional(_unshare_network), "landlock": _optional(_landlock, root)}
    _set_limits(job)
    dumps, write, exit_now = json.dumps, os.write, os._exit
    for name in [n for n in sys.modules if n.split(".")[0] in ("ctypes", "_ctypes", "json")]:
        del sys.modules[name]  # `import ctypes` is audited again; the program gets its own json
    reserve = [bytearray(2**20)]  # freed on MemoryError so the report can still be written

    def finish(result: dict[str, Any]) -> None:
        reserve.clear()
        data = memoryview(dumps({**result, **layers}, allow_nan=False).encode())
        while data:
            data = data[write(out_fd, data):]
        exit_now(0)

    sys.addaudithook(_make_hook(root, finish))
    try:
        result = _run(job)
    except MemoryError:
        result = {"ok": False, "outputs": [], "error": "memory limit exceeded"}
    finish(result)


if __name__ == "__main__":
    main()
