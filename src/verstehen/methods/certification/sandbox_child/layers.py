"""The confinement layers the runner applies to itself: namespaces, a tmpfs quota, Landlock,
a fresh identity, rlimits."""

from __future__ import annotations

import contextlib
import os
import resource
import stat
import sys
from typing import TYPE_CHECKING

from protocol import PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS

if TYPE_CHECKING:  # annotations only: typing costs every child an import
    from collections.abc import Callable
    from typing import Any

    from verstehen.methods.certification.sandbox_child.messages import Job


CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000


MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 0x40000


_SYSTEM_READS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache",
                 "/etc/ssl", "/etc/localtime", "/usr/share/zoneinfo", "/dev/null", "/dev/zero",
                 "/dev/urandom", "/dev/random")


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


MS_RDONLY, MS_REMOUNT, MS_BIND, MNT_DETACH = 1, 32, 4096, 2


_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # syscall numbers (glibc has no wrapper)


def _bind(libc: Any, source: str, target: str, writable: bool, flags: int = MS_REC) -> None:
    """Bind `source` (a host path) at `target` below the new root, read-only unless
    `writable`; OSError when the bind fails."""
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    elif not os.path.exists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    if libc.mount(os.fsencode(source), os.fsencode(target), None, MS_BIND | flags, None):
        raise OSError(f"cannot bind {source}")
    if not writable:  # best effort: a flag the host locked (user namespaces) may refuse it
        kept = os.statvfs(target).f_flag & (MS_NOSUID | MS_NODEV | MS_NOEXEC)
        libc.mount(None, os.fsencode(target), None, MS_REMOUNT | MS_BIND | MS_RDONLY | kept,
                   None)


def _private_root(root: str, reads: tuple[str, ...]) -> bool:
    """Pivot into a fresh tmpfs that holds only the temp dir (read-write at its own path),
    read-only binds of the paths the program may read, the device files it may write and
    /proc; the host's root is detached, so every other path (/etc/shadow, the cache file)
    does not exist for the program, not even to os.stat."""
    number = _PIVOT_ROOT.get(os.uname().machine)
    if number is None:
        return False
    libc = _libc()
    new = root + "/.root"  # the new root's mount point; removed once it has been moved to /
    os.mkdir(new, 0o755)
    if libc.mount(b"tmpfs", os.fsencode(new), b"tmpfs", MS_NOSUID | MS_NODEV,
                  b"size=1m,nr_inodes=4096,mode=0755"):
        return False
    devices = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
    for path in (*reads, "/proc"):
        if os.path.exists(path):
            _bind(libc, path, new + path, writable=path in devices or path == "/proc")
    _bind(libc, root, new + root, writable=True, flags=0)  # not recursive: without .root's mount
    os.mkdir(new + "/.host")
    if libc.syscall(number, os.fsencode(new), os.fsencode(new + "/.host")):
        return False
    os.chdir("/")
    if libc.umount2(b"/.host", MNT_DETACH):
        return False
    os.rmdir("/.host")
    os.rmdir(root + "/.root")  # now a plain directory of the temp dir
    os.chdir(root)
    return True


def _mount_quota(root: str, size: int, files: int, uid: int) -> bool:
    """A size- and inode-limited tmpfs over the temp dir (in our own mount namespace)."""
    opts = f"size={size},nr_inodes={files + 1},mode=0700,uid={uid},gid={uid}"
    failed: int = _libc().mount(b"tmpfs", os.fsencode(root), b"tmpfs",  # a C int: 0 or -1
                                MS_NOSUID | MS_NODEV | MS_NOEXEC, opts.encode())
    os.chdir(root)  # the old cwd is the directory under the mount
    return failed == 0


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
        restricted: int = libc.syscall(446, ctypes.c_int(ruleset), ctypes.c_uint32(0))
        return restricted == 0
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


def _set_limits(job: Job) -> bool:
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
