"""The parent's view of a sandboxed run on the host: its temp dir's disk use, its processes
(finding and killing them), the time they waited for a CPU, and removing the temp dir."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess


def disk_use(tmp: str, files_cap: int) -> tuple[int, int]:
    """(bytes allocated, entries) below tmp; stops counting past files_cap entries."""
    used = count = 0
    todo = [tmp]
    while todo and count <= files_cap:
        with contextlib.suppress(OSError), os.scandir(todo.pop()) as entries:
            for entry in entries:
                count += 1
                with contextlib.suppress(OSError):
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
    return used, count


def _run_members(supervisor: int, uid: int | None, tmp: str) -> set[int]:
    """Live processes of a run: descendants of the supervisor, any process running as the run's
    uid, and any whose working directory is in the run's temp dir (setsid and re-parenting
    escape a process group, not these)."""
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    with contextlib.suppress(OSError), os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit():
                continue
            pid = int(entry.name)
            try:
                with open(f"/proc/{pid}/stat", "rb") as fh:
                    fields = fh.read().rpartition(b")")[2].split()
                if fields[0] in (b"Z", b"X"):
                    continue
                children.setdefault(int(fields[1]), []).append(pid)
                if uid is not None and os.stat(f"/proc/{pid}").st_uid == uid:
                    found.add(pid)
                where = os.readlink(f"/proc/{pid}/cwd")
                if where == tmp or where.startswith(tmp + "/"):
                    found.add(pid)
            except (OSError, IndexError, ValueError):
                continue
    todo = [supervisor]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    found.discard(os.getpid())
    return found


def kill_run(proc: subprocess.Popen[bytes], uid: int | None, tmp: str, walk: bool) -> None:
    """SIGKILL the child's process group and, with the parent layer, every other process of
    the run, repeating until none is left (a fork bomb cannot outrun SIGKILL for long)."""
    if walk:
        for _ in range(50):
            members = _run_members(proc.pid, uid, tmp)
            if not members:
                break
            for pid in members:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def remove_tree(tmp: str) -> None:
    """Delete the run's temp dir, even where the program made subdirectories unreadable."""
    for dirpath, dirnames, _ in os.walk(tmp):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                with contextlib.suppress(OSError):
                    os.chmod(path, 0o700)
    shutil.rmtree(tmp, ignore_errors=True)


def waited_seconds(pids: list[int]) -> float:
    """Seconds these processes spent runnable but waiting for a CPU (the second field of
    /proc/<pid>/schedstat, in ns); what cannot be read counts 0."""
    waited = 0
    for pid in pids:
        with contextlib.suppress(OSError, ValueError, IndexError), \
                open(f"/proc/{pid}/schedstat", "rb") as fh:
            waited += int(fh.read().split()[1])
    return waited / 1e9


def children(pid: int) -> list[int]:
    """The live children of a process."""
    found = []
    with contextlib.suppress(OSError), os.scandir("/proc") as entries:
        for entry in entries:
            if entry.name.isdigit():
                with contextlib.suppress(OSError, IndexError, ValueError), \
                        open(f"/proc/{entry.name}/stat", "rb") as fh:
                    if int(fh.read().rpartition(b")")[2].split()[1]) == pid:
                        found.append(int(entry.name))
    return found
