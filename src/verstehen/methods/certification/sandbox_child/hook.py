"""The audit hook (PEP 578): the events a program may not cause, and the functions that raise
no event and are removed instead."""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: typing costs every child an import
    from collections.abc import Callable
    from typing import Any, NoReturn

    from typing_extensions import TypeIs


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
    "os.link": "file links", "os.symlink": "file links", "sqlite3.connect": "native file access",
}


_EVENT_PREFIXES = (("socket.", "network access"), ("ctypes.", "native code"),
                   ("syslog.", "network access"))


_BLOCKED_IMPORTS = {
    **dict.fromkeys(("socket", "_socket", "ssl", "_ssl", "asyncio"), "network access"),
    **dict.fromkeys(("subprocess", "_posixsubprocess", "multiprocessing", "_multiprocessing",
                     "pty", "concurrent.futures.process"), "process control"),
    **dict.fromkeys(("ctypes", "_ctypes", "_xxsubinterpreters", "_testcapi",
                     "_testinternalcapi", "cffi", "_cffi_backend"), "native code"),
    **dict.fromkeys(("sqlite3", "_sqlite3", "dbm", "_dbm", "_gdbm", "readline", "_posixshmem",
                     "spwd", "syslog", "_tkinter"), "native file access"),
}


# Functions that raise no audit event, taken out of their modules when the hook is on.
_REMOVED = {"os": ("mkfifo", "mknod", "pidfd_open"), "posix": ("mkfifo", "mknod", "pidfd_open"),
            "signal": ("pidfd_send_signal",), "time": ("clock_settime", "clock_settime_ns")}


# audit event -> (indices of path arguments, index of each one's dir_fd argument or None)
_PATH_EVENTS = {
    "os.remove": ((0,), (1,)), "os.rmdir": ((0,), (1,)), "os.mkdir": ((0,), (2,)),
    "os.rename": ((0, 1), (2, 3)), "os.chmod": ((0,), (2,)), "os.chown": ((0,), (3,)),
    "os.utime": ((0,), (3,)), "os.truncate": ((0,), (None,)), "os.setxattr": ((0,), (None,)),
    "os.removexattr": ((0,), (None,)), "os.chflags": ((0,), (None,)),
    "os.lchflags": ((0,), (None,)),
}


_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _make_hook(root: str, reads: tuple[str, ...], fatal: Callable[[str], NoReturn]
               ) -> Callable[[str, tuple[Any, ...]], None]:
    """An audit hook that ends the run with a 'blocked: ...' error on any forbidden action.

    Everything it uses is bound here, never looked up at call time: the program may patch
    builtins and modules, but it cannot reach this closure. It never calls back into objects
    the program made (a path must be str, bytes or an int fd), so no program code runs inside it;
    an exception inside it makes the audited action fail.
    """
    str_t, bytes_t, int_t, bool_t, typ, issub = str, bytes, int, bool, type, issubclass
    rev, length, count = reversed, len, range
    as_str, decode, as_int = str.__str__, bytes.decode, int.__index__
    lstat, xstat, readlink, getcwd, getpid = os.lstat, os.stat, os.readlink, os.getcwd, os.getpid
    is_link, is_dir = stat.S_ISLNK, stat.S_ISDIR
    kinds, prefixes, blocked = dict(_EVENT_KINDS), _EVENT_PREFIXES, dict(_BLOCKED_IMPORTS)
    path_events, write_flags, errors = dict(_PATH_EVENTS), _WRITE_FLAGS, (OSError, ValueError)
    inside_prefix, read_exact = root + "/", frozenset(reads)
    read_prefixes = tuple(path + "/" for path in reads)

    def text(path: Any) -> str | int | None:
        kind = typ(path)
        if issub(kind, str_t):
            return as_str(path)
        if issub(kind, bytes_t):
            return decode(path, "utf-8", "surrogateescape")
        if issub(kind, int_t) and not issub(kind, bool_t):
            return as_int(path)
        return None

    # Exact-type tests through the bound `typ` (never a patchable builtin); as TypeIs, they also
    # narrow text()'s result for the type checker.
    def is_int(value: str | int | None) -> TypeIs[int]:
        return typ(value) is int_t

    def is_str(value: str | int | None) -> TypeIs[str]:
        return typ(value) is str_t

    def resolve(path: str, base: str) -> tuple[str, bool]:
        """The path with symlinks followed (lexical past a missing part); and whether it went
        through /proc."""
        if not path.startswith("/"):
            path = base + "/" + path
        todo = [*rev(path.split("/"))]
        parts: list[str] = []
        via_proc, hops = False, 0
        while todo:
            part = todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
                continue
            parts.append(part)
            here = "/" + "/".join(parts)
            via_proc = via_proc or here == "/proc" or here.startswith("/proc/")
            try:
                mode = lstat(here).st_mode
            except errors:
                continue
            if is_link(mode):
                hops += 1
                if hops > 40:
                    return "<symlink loop>", True
                target = readlink(here)
                parts.pop()
                if target.startswith("/"):
                    parts = []
                todo.extend(rev(target.split("/")))
        return "/" + "/".join(parts), via_proc

    def inside(where: str) -> bool:
        return where == root or where.startswith(inside_prefix)

    def readable(where: str) -> bool:
        own = f"/proc/{getpid()}"
        return (inside(where) or where == own or where.startswith(own + "/")
                or where in read_exact or where.startswith(read_prefixes))

    def fd_path(fd: int) -> str:
        return readlink(f"/proc/self/fd/{fd}")

    def target(path: Any, dir_fd: Any) -> tuple[str, bool, bool] | None:
        """(resolved path, went through /proc, relative with '..'), or None if unnamed."""
        name = text(path)
        if name is None:
            return None
        if is_int(name):
            return fd_path(name), False, False
        fd = text(dir_fd) if dir_fd is not None else None
        base = fd_path(fd) if is_int(fd) and fd >= 0 else getcwd()
        climbs = not name.startswith("/") and ".." in name.split("/")
        where, via_proc = resolve(name, base)
        return where, via_proc, climbs

    def check_open(args: tuple[Any, ...]) -> str | None:
        path, mode, flags = args[0], args[1], args[2]
        if typ(text(path)) is int_t:
            return None  # an fd already open: no new access
        writing = (typ(flags) is int_t and flags & write_flags) or (typ(mode) is str_t and (
            "w" in mode or "a" in mode or "x" in mode or "+" in mode))
        found = target(path, None)
        if found is None:
            return "unnamed path (open)"
        where, via_proc, climbs = found
        if climbs:  # os.open's dir_fd is not in the event: no climbing out of whatever it is
            return f"'..' in a relative path (open {where})"
        if writing:
            if where == "/dev/null" or (inside(where) and not via_proc):
                return None
            return f"write outside the sandbox (open {where})"
        if not readable(where):
            return f"read outside the sandbox (open {where})"
        if not inside(where):
            try:
                if is_dir(xstat(where).st_mode):  # would give a dir_fd outside
                    return f"directory handle outside the sandbox (open {where})"
            except errors:
                pass
        return None

    def check_paths(event: str, args: tuple[Any, ...]) -> str | None:
        paths, dir_fds = path_events[event]
        for n in count(length(paths)):
            i, d = paths[n], dir_fds[n]
            found = target(args[i], args[d] if d is not None and d < length(args) else None)
            if found is None:
                return f"unnamed path ({event})"
            where, via_proc, _ = found
            if via_proc or not inside(where):
                return f"write outside the sandbox ({event} {where})"
        return None

    def hook(event: str, args: tuple[Any, ...]) -> None:
        reason = None
        if event == "open":
            reason = check_open(args)
        elif event == "import":
            name = text(args[0])
            if is_str(name):
                kind = blocked.get(name) or blocked.get(name.partition(".")[0])
                reason = kind and f"{kind} (import {name})"
        elif event in path_events:
            reason = check_paths(event, args)
        elif event in kinds:
            reason = f"{kinds[event]} ({event})"
        else:
            for prefix, kind in prefixes:
                if event.startswith(prefix):
                    reason = f"{kind} ({event})"
        if reason:
            fatal("blocked: " + reason)

    return hook


def _strip_modules() -> None:
    """Remove functions that raise no audit event (fifo/device nodes, pidfd signals, clock)."""
    for module, names in _REMOVED.items():
        mod = sys.modules.get(module)
        for name in names:
            if mod is not None and hasattr(mod, name):
                delattr(mod, name)
