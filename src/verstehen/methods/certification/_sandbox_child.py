"""Child side of `sandbox.py`: a trusted supervisor and the runner it forks for the program.

Run as ``python -I -S -B _sandbox_child.py``; standard library only, never imported by the
parent. The supervisor reads the job (a length line, then JSON) from stdin, forks the runner,
and only then reads the run's nonce from stdin. It never runs the program's code: it reads the
runner's messages from a pipe, checks them (untrusted), and writes one frame
``<nonce> <length>\\n<JSON>`` to its stdout. The runner closes everything it inherited, confines
itself with the layers the job names, sends the list of layers in force, and only then compiles
the program and calls it on each input, one message per output. The layers are described in
`sandbox.py`.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import resource
import selectors
import signal
import stat
import sys
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # annotations only: typing costs every child an import
    from collections.abc import Callable
    from typing import Any, NoReturn

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000
PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 4, 36, 38
REPORT_FD = 3
NONCE_BYTES = 32
_HEAD = 11  # a runner message: kind byte, 10 ASCII digits of length, payload
_STDERR_KEEP = 64 * 1024

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
_SYSTEM_READS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
                 "/etc/ssl", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/dev/zero",
                 "/dev/urandom", "/dev/random")


class _Timeout(BaseException):
    """Raised by SIGALRM when loading or one call runs past its time."""


class _Unserializable(Exception):
    """A return value that has no JSON form."""


# ----------------------------------------------------------------------------- supervisor


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

    return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0) == 0


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


def _output(raw: bytes) -> dict[str, Any]:
    """One output message: {"value": JSON} or {"error": str}; ValueError if it is neither."""
    doc = json.loads(raw)
    if not isinstance(doc, dict) or len(doc) != 1:
        raise ValueError("an output is not a one-key object")
    if "error" in doc and isinstance(doc["error"], str):
        return {"error": doc["error"][:2000]}
    if "value" not in doc:
        raise ValueError("an output has neither value nor error")
    return doc


def _verdict(report: bytes, n_inputs: int, status: int, stderr: bytes) -> dict[str, Any]:
    """The run's result from the runner's messages, which the program may have forged."""
    layers: list[str] | None = None
    outputs: list[dict[str, Any]] = []
    pos, ended = 0, False

    def failed(error: str) -> dict[str, Any]:
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
                outputs.append(_output(body))
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


def main() -> None:
    """Supervisor: fork the runner, check what it reports, send the verdict framed by the nonce."""
    job = json.loads(_read_exact(0, int(_read_line(0))))
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the program stay below us, so the parent finds
    _prctl(PR_SET_DUMPABLE, 0)  # them; and nothing of ours can be opened through /proc/<pid>
    report_r, report_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            _runner(job, report_w, err_w)
        finally:
            os._exit(70)
    os.close(report_w)
    os.close(err_w)
    nonce = _read_exact(0, NONCE_BYTES)  # only now: the runner never had it in memory
    report, err, status = _collect(pid, report_r, err_r, int(job["output_bytes"]) + 65536)
    verdict = {"ok": False, "outputs": [], "error": "output limit exceeded", "layers": []}
    if report is not None:
        verdict = _verdict(report, len(job["inputs"]), status, err)
    data = json.dumps(verdict, allow_nan=False).encode()
    frame = memoryview(nonce + b" %d\n" % len(data) + data)
    while frame:
        frame = frame[os.write(1, frame):]
    os.close(1)
    os.close(2)
    # Stay until the parent kills us: orphans of the program are re-parented to us meanwhile.
    time.sleep(float(job["wall_seconds"]) + 5)
    os._exit(0)


# ----------------------------------------------------------------------------- runner


def _libc() -> Any:
    """The C library through ctypes (imported here: the program never gets this module)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _namespaces(mount: bool, net: bool) -> set[str]:
    """New mount and/or network namespaces ({'mount', 'net'} as obtained)."""
    libc, got = _libc(), set()
    if os.geteuid() == 0:
        if mount and libc.unshare(CLONE_NEWNS) == 0 and libc.mount(
                None, b"/", None, MS_REC | MS_PRIVATE, None) == 0:  # nothing leaks to the host
            got.add("mount")
        if net and libc.unshare(CLONE_NEWNET) == 0:
            got.add("net")
        return got
    uid, gid = os.getuid(), os.getgid()
    flags = CLONE_NEWUSER | (CLONE_NEWNS if mount else 0) | (CLONE_NEWNET if net else 0)
    if libc.unshare(flags) != 0:
        return got
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):  # keep our ids so files can be created
        with contextlib.suppress(OSError), open(f"/proc/self/{name}", "w") as fh:
            fh.write(text)
    if mount and libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) == 0:
        got.add("mount")
    if net:
        got.add("net")
    return got


def _mount_quota(root: str, size: int, files: int, uid: int) -> bool:
    """A size- and inode-limited tmpfs over the temp dir (in our own mount namespace)."""
    opts = f"size={size},nr_inodes={files + 1},mode=0700,uid={uid},gid={uid}"
    ok = _libc().mount(b"tmpfs", os.fsencode(root), b"tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                       opts.encode()) == 0
    os.chdir(root)  # the old cwd is the directory under the mount
    return ok


def _landlock(root: str, reads: tuple[str, ...]) -> bool:
    """Kernel-enforced: read only the listed paths, write only below root, no execve, no TCP,
    no signals or abstract-socket connections leaving the runner."""
    import ctypes

    libc = _libc()
    abi = libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))  # create_ruleset VERSION
    if abi < 1:
        return False
    read_file, read_dir = 1 << 2, 1 << 3
    write = sum(1 << bit for bit in (1, 4, 5, 6, 7, 8, 9, 10, 11, 12))  # WRITE_FILE .. MAKE_SYM
    write |= (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0)  # REFER, TRUNCATE
    handled = write | read_file | read_dir | 1  # 1: EXECUTE, allowed nowhere
    attr = (ctypes.c_uint64 * 3)(handled, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    ruleset = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(24), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    truncate = 1 << 14 if abi >= 3 else 0
    rules = [(root, write | read_file | read_dir), ("/dev/null", (1 << 1) | read_file | truncate)]
    rules += [(path, read_file | read_dir) for path in reads]
    try:
        for path, access in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            if not stat.S_ISDIR(os.fstat(fd).st_mode):
                access &= (1 << 1) | read_file | truncate  # file rules take file rights only
            rule = (ctypes.c_char * 12)()  # packed landlock_path_beneath_attr {u64 access; s32 fd}
            ctypes.memmove(rule, access.to_bytes(8, sys.byteorder) + fd.to_bytes(4, sys.byteorder),
                           12)
            added = libc.syscall(445, ctypes.c_int(ruleset), ctypes.c_int(1), rule,
                                 ctypes.c_uint32(0))
            os.close(fd)
            if added:
                return False
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
            return False
        return libc.syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def _drop_identity(uid: int | None) -> bool:
    """Run as the job's fresh uid/gid with no groups and no processes allowed (when root),
    dumpable for /proc/self, and no privilege gain on exec. The standard library is reached
    through /proc/self/fd links to directories opened before the switch, since it may sit
    below a directory (such as /root) that the new uid cannot enter."""
    libc = _libc()
    if uid is not None and os.geteuid() == 0:
        links = {}
        for entry in sys.path:
            with contextlib.suppress(OSError):
                links[entry] = f"/proc/self/fd/{os.open(entry, os.O_PATH | os.O_DIRECTORY)}"

        def moved(path: str) -> str:
            for old, new in links.items():
                if path == old or path.startswith(old + "/"):
                    return new + path[len(old):]
            return path

        sys.path[:] = [moved(p) for p in sys.path]
        for module in list(sys.modules.values()):
            search = getattr(module, "__path__", None)
            if isinstance(search, list):
                search[:] = [moved(p) if isinstance(p, str) else p for p in search]
        sys.path_importer_cache.clear()
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        if os.getuid() != uid:
            return False
        libc.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # the fresh uid may not fork
    return libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 and (uid is None or os.geteuid() != 0)


def _set_limits(job: dict[str, Any]) -> bool:
    """Cap CPU time, address space, file size, open files, core dumps and processes."""
    cpu = int(job["cpu_seconds"])
    wanted = [(resource.RLIMIT_CPU, (cpu, cpu + 1)),
              (resource.RLIMIT_FSIZE, (job["disk_bytes"],) * 2),
              (resource.RLIMIT_AS, (job["memory_bytes"], job["memory_bytes"])),
              (resource.RLIMIT_NOFILE, (32, 32)), (resource.RLIMIT_CORE, (0, 0)),
              (resource.RLIMIT_NPROC, (0, 0))]  # binds only for a uid other than root
    for which, (soft, hard) in wanted:
        ceiling = resource.getrlimit(which)[1]  # an unprivileged process cannot go above it
        if ceiling != resource.RLIM_INFINITY:
            soft, hard = min(soft, ceiling), min(hard, ceiling)
        resource.setrlimit(which, (soft, hard))
    return True


def _optional(layer: Callable[..., Any], *args: Any) -> Any:
    """Apply a layer the kernel (or this Python build) may not offer; False when it did not."""
    try:
        return layer(*args)
    except Exception:
        return False


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
        if typ(name) is int_t:
            return fd_path(name), False, False
        fd = text(dir_fd) if dir_fd is not None else None
        base = fd_path(fd) if typ(fd) is int_t and fd >= 0 else getcwd()
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
            if typ(name) is str_t:
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
    sys.stdout = sys.__stdout__ = open(os.devnull, "w")  # noqa: SIM115


def _confine(job: dict[str, Any], root: str, reads: tuple[str, ...]) -> list[str]:
    """Apply the job's layers in the order they need (mounts and Landlock rules while still
    root, then the uid switch, then rlimits); the names of those in force."""
    layers, applied = set(job["layers"]), []
    uid = job["uid"] if "process" in layers else None
    spaces = _optional(_namespaces, "rlimits" in layers, "netns" in layers) or set()
    if "mount" in spaces and _optional(_mount_quota, root, job["disk_bytes"], job["disk_files"],
                                       os.getuid() if uid is None else uid):
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


def _runner(job: dict[str, Any], report_w: int, err_w: int) -> NoReturn:
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


def _load(job: dict[str, Any]) -> tuple[Any, str | None]:
    """Compile and execute the program (its top level under the load timer); (entry, error)."""
    namespace: dict[str, Any] = {"__name__": "__explanation__", "__builtins__": __builtins__}
    try:
        code = compile(job["source"], "<explanation>", "exec")
    except (SyntaxError, ValueError) as exc:
        where = f" (line {exc.lineno})" if getattr(exc, "lineno", None) else ""
        return None, f"syntax error: {getattr(exc, 'msg', exc)}{where}"
    try:
        exec(code, namespace)
    except _Timeout:
        return None, "time limit exceeded while loading the program"
    except MemoryError:
        raise
    except BaseException as exc:
        return None, f"error while loading the program: {_describe(exc)}"
    fn = namespace.get(job["entry"])
    return (fn, None) if callable(fn) else (None, f"no function named {job['entry']}")


def _run(job: dict[str, Any], send: Callable[[bytes, bytes], None],
         fatal: Callable[[str], NoReturn]) -> None:
    """Load the program, then call the entry on each input under the per-call timer."""
    armed = [False]

    def on_alarm(signum: int, frame: Any) -> None:
        if armed[0]:
            raise _Timeout

    def timer(seconds: float) -> None:
        armed[0] = seconds > 0
        signal.setitimer(signal.ITIMER_REAL, seconds)

    signal.signal(signal.SIGALRM, on_alarm)
    timer(float(job["load_seconds"]))  # from the program's first line: compile and top level
    try:
        fn, error = _load(job)
    except _Timeout:
        fn, error = None, "time limit exceeded while loading the program"
    finally:
        timer(0)
    if error is not None:
        fatal(error)
    cap, dumps = int(job["output_bytes"]), json.dumps
    for args in job["inputs"]:
        timer(float(job["per_call_seconds"]))
        try:
            out = dumps(_call(fn, args), allow_nan=False).encode()
        except _Timeout:
            out = b'{"error": "timeout"}'
        finally:
            timer(0)
        if len(out) > cap:
            fatal("output limit exceeded")
        send(b"V", out)


if __name__ == "__main__":
    main()
