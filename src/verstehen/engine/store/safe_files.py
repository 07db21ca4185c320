"""The one way verstehen writes a file, and how it opens the files of a folder someone else may
have written (a run folder from a shared drive or a tarball): symbolic links are never
followed, only regular files are read or written (a FIFO or a device is refused at once, never
waited on).

A whole file (`write_file`, `writing`, `writing_text`, `temporary_path`, `replace_atomically`)
is written to `.NAME.tmp` beside NAME, created exclusively, and renamed over NAME once complete:
whenever the process dies, NAME is absent, its previous version or the new one whole (there is
no fsync: this holds against a killed process, not a power cut). The writer holds an exclusive
`flock` on the folder meanwhile, so writers of the same folder take turns and a `.NAME.tmp` it
finds is a dead writer's, removed. A link, FIFO, folder or device at NAME is refused, never
written through nor replaced. A line is appended (`append_bytes`) in one write, whole or cut
back. `tests/test_one_way_to_write.py` checks that `src/` writes files no other way.

Refusals are a `UserError` in one line naming the file and what to do. An `OSError` of the
disk (ENOSPC, EMFILE, EIO) is raised as it is after the files were put back, or, by the
functions given `advice` (the files a user asked for), said in one line ending with it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from verstehen.errors import UserError

# O_NONBLOCK: opening a FIFO must not wait for a writer (its type is checked right after)
_NOT_FOLLOWED = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
LOCK_WAIT = 60.0  # seconds a writer waits while another process writes in the same folder
_writes = threading.RLock()  # one whole-file write at a time in this process
_locked: dict[tuple[int, int], int] = {}  # (device, inode) of the folders held: how deep


def kind_of_file(mode: int) -> str:
    """What an lstat mode says a path is, in words."""
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
             (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((words for test, words in kinds if test(mode)), "not a regular file")


def refusal(path: Path, mode: int, advice: str = "remove it") -> UserError:
    """The one line that refuses a path that is not a regular file, ending with what to do."""
    return UserError(f"{path} is {kind_of_file(mode)}, not a regular file: verstehen reads "
                     f"and writes only regular files there (never through a link); {advice}")


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644, *,
                 folder: int | None = None) -> int:
    """A descriptor of the regular file `path`, opened with `flags` (O_CREAT may be among
    them) without following a symbolic link or waiting on a FIFO; UserError otherwise. With
    `folder`, a descriptor of its folder, `path.name` is opened there."""
    path = Path(path)
    try:
        fd = os.open(path if folder is None else path.name, flags | _NOT_FOLLOWED, mode,
                     dir_fd=folder)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENODEV):
            raise refusal(path, _lstat_mode(path)) from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refusal(path, st.st_mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _lstat_mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except OSError:
        return 0


def is_regular(path: Path | str) -> bool:
    """True when `path` itself (not what a link points to) is a regular file."""
    return stat.S_ISREG(_lstat_mode(Path(path)))


def exists_unfollowed(path: Path | str) -> bool:
    """True when there is anything at `path`, a dangling link included."""
    return _lstat_mode(Path(path)) != 0


def read_regular(path: Path | str) -> bytes:
    """The bytes of the regular file `path` (UserError for a link, FIFO, device, folder)."""
    with open(open_regular(path), "rb") as handle:
        return handle.read()


@contextlib.contextmanager
def reading(path: Path | str) -> Iterator[io.BufferedReader]:
    """A binary file object of the regular file `path`, for iterating its lines."""
    with open(open_regular(path), "rb") as handle:
        yield handle


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of `data` to `fd` (os.write may write fewer than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def append_bytes(path: Path | str, data: bytes) -> None:
    """Append `data` to the regular file `path` (created if absent) in full or not at all: a
    failed write is cut back to the file's length before it, then re-raised."""
    fd = open_regular(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        before = os.fstat(fd).st_size
        try:
            write_all(fd, data)
        except BaseException:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, before)
            raise
    finally:
        os.close(fd)


def truncate_regular(path: Path | str, size: int = 0) -> None:
    """Cut the regular file `path` to `size` bytes (created empty if absent)."""
    fd = open_regular(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.ftruncate(fd, size)
    finally:
        os.close(fd)



def hold_lock(path: Path | str) -> int | str:
    """Hold the exclusive flock of the lock file `path` (created if absent) and write this
    process's id in it: its descriptor; or, while another process holds it, that id as
    written there ("unknown" when none is)."""
    fd = open_regular(path, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
        os.close(fd)
        return holder
    try:
        os.ftruncate(fd, 0)
        write_all(fd, str(os.getpid()).encode())
    except BaseException:
        os.close(fd)
        raise
    return fd


@dataclass(frozen=True)
class _Stage:
    """A whole-file write under way: where to, its temporary file, the folder's locked
    descriptor, and the permission bits of the file it replaces (None: none was there)."""

    path: Path
    temporary: Path
    folder: int
    mode: int | None


@contextlib.contextmanager
def _folder_locked(folder: Path) -> Iterator[int]:
    """A descriptor of `folder`, flock-ed against other processes' writes in it (this
    process's writes take turns on `_writes`; a nested write in a folder held goes on)."""
    with _writes:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except PermissionError:  # a folder one may write but not list: no lock to take
            fd = os.open(folder, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            key = (st.st_dev, st.st_ino)
            if key not in _locked:
                _wait_for_lock(fd, folder)
            _locked[key] = _locked.get(key, 0) + 1
            try:
                yield fd
            finally:
                _locked[key] -= 1
                if not _locked[key]:
                    del _locked[key]
        finally:
            os.close(fd)  # the lock goes with the descriptor that took it


def _wait_for_lock(fd: int, folder: Path) -> None:
    deadline = time.monotonic() + LOCK_WAIT
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise UserError(f"{folder}: another process has been writing a file there for "
                                f"{LOCK_WAIT:.0f} s: wait for it to finish, then try again"
                                ) from None
            time.sleep(0.02)
        except OSError:  # a file system without locks on folders (some network ones)
            return


def _regular_mode(path: Path, name: str, folder: int, advice: str) -> int | None:
    """The permission bits of the regular file `name` in `folder` (None: nothing there);
    anything else there is refused."""
    try:
        st = os.lstat(name, dir_fd=folder)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        raise refusal(path, st.st_mode, advice)
    return stat.S_IMODE(st.st_mode)


@contextlib.contextmanager
def _staged(path: Path, advice: str) -> Iterator[_Stage]:
    """Lock the folder, refuse what is not a regular file at `path`, remove a dead writer's
    temporary file; after the block, rename the temporary file over `path` (it is removed
    instead when the block raises)."""
    temporary = path.with_name(f".{path.name}.tmp")
    with _folder_locked(path.parent) as folder:
        stage = _Stage(path, temporary, folder, _regular_mode(path, path.name, folder, advice))
        try:
            stale = os.lstat(temporary.name, dir_fd=folder)
        except FileNotFoundError:
            pass
        else:
            if not (stat.S_ISREG(stale.st_mode) or stat.S_ISLNK(stale.st_mode)):
                raise refusal(temporary, stale.st_mode)
            os.unlink(temporary.name, dir_fd=folder)  # a link itself, never what it names
        try:
            yield stage
            _regular_mode(path, path.name, folder, advice)  # still nothing else there
            os.replace(temporary.name, path.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary.name, dir_fd=folder)
            raise


def _created(stage: _Stage) -> int:
    """The temporary file of `stage`, created exclusively, with the replaced file's mode."""
    try:
        fd = os.open(stage.temporary.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOT_FOLLOWED,
                     0o644, dir_fd=stage.folder)
    except FileExistsError:  # made again since it was removed: a writer outside the lock
        raise UserError(f"{stage.temporary} appeared while writing {stage.path.name}: is "
                        "another process writing the same folder?") from None
    os.set_blocking(fd, True)
    if stage.mode is not None:
        os.fchmod(fd, stage.mode)
    return fd


@contextlib.contextmanager
def _said(path: Path, advice: str) -> Iterator[None]:
    """An OSError (disk full, no such folder, not allowed) as one line ending with `advice`."""
    try:
        yield
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror or exc}): {advice}") from None


def replace_atomically(path: Path | str, data: bytes) -> None:
    """Make `path` (a file of a run folder) hold `data`, or leave it as it was; what is not a
    regular file there is refused; an OSError of the disk is raised as it is."""
    with _staged(Path(path), "remove it") as stage:
        fd = _created(stage)
        try:
            write_all(fd, data)
        finally:
            os.close(fd)


def write_file(path: Path | str, data: bytes | str, advice: str) -> Path:
    """Make `path` hold `data` (text as UTF-8) whole, or leave it as it was: the one line of a
    refusal or a disk error ends with `advice` (what the user should do); `path`."""
    path = Path(path)
    with writing(path, advice) as handle:
        handle.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


@contextlib.contextmanager
def writing(path: Path | str, advice: str) -> Iterator[io.BufferedWriter]:
    """A binary file object whose bytes become `path` when the block ends without an error
    (a failed block leaves `path` as it was); `advice` as for `write_file`, an OSError in the
    block being taken for the disk's."""
    path = Path(path)
    with _said(path, advice), _staged(path, advice) as stage, \
            open(_created(stage), "wb") as handle:
        yield handle


@contextlib.contextmanager
def writing_text(path: Path | str, advice: str) -> Iterator[io.TextIOWrapper]:
    """`writing` as UTF-8 text, newlines written as given (what the csv module wants)."""
    with writing(path, advice) as raw, io.TextIOWrapper(raw, encoding="utf-8",
                                                        newline="") as text:
        yield text


@contextlib.contextmanager
def temporary_path(path: Path | str, advice: str) -> Iterator[Path]:
    """A path beside `path` for a library that writes its file by name (Inspect's
    `write_eval_log`): the regular file it leaves there is renamed over `path` when the
    block ends without an error; `advice` as for `writing`."""
    path = Path(path)
    with _said(path, advice), _staged(path, advice) as stage:
        yield stage.temporary
        fd = open_regular(stage.temporary, folder=stage.folder)
        try:
            if stage.mode is not None:
                os.fchmod(fd, stage.mode)
        finally:
            os.close(fd)

