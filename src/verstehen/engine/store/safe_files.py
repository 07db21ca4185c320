"""Opening the files of a folder someone else may have written (a run folder from a shared
drive or a tarball): symbolic links are never followed, only regular files are read or
written (a FIFO or a device is refused at once, never waited on), temporary files are created
exclusively, and a write cut short (disk full, out of descriptors) leaves the file as it was.

Refusals are a `UserError` in one line naming the file; an `OSError` of the disk itself
(ENOSPC, EMFILE, EIO) is raised as it is, after the files were put back.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from verstehen.errors import UserError

# O_NONBLOCK: opening a FIFO must not wait for a writer (its type is checked right after)
_NOT_FOLLOWED = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def kind_of_file(mode: int) -> str:
    """What an lstat mode says a path is, in words."""
    kinds = ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISDIR, "a folder"),
             (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))
    return next((words for test, words in kinds if test(mode)), "not a regular file")


def refusal(path: Path, mode: int) -> UserError:
    """The one line that refuses a path that is not a regular file."""
    return UserError(f"{path} is {kind_of_file(mode)}, not a regular file: verstehen reads "
                     "and writes only regular files there (never through a link); remove it")


def open_regular(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o644) -> int:
    """A descriptor of the regular file `path`, opened with `flags` (O_CREAT may be among
    them) without following a symbolic link or waiting on a FIFO; UserError otherwise."""
    path = Path(path)
    try:
        fd = os.open(path, flags | _NOT_FOLLOWED, mode)
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


def remove_stale(path: Path) -> None:
    """Remove what a crashed writer may have left at `path` (a regular file, or a link, which
    is removed itself, never followed); anything else there is refused."""
    mode = _lstat_mode(path)
    if mode == 0:
        return
    if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise refusal(path, mode)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)


def replace_atomically(path: Path | str, data: bytes) -> None:
    """Make `path` hold `data`, or leave it as it was: the bytes go to `.NAME.tmp` beside it,
    created exclusively, which then replaces it (a link at `path` is replaced, never written
    through). On any failure the temporary file is removed and the error re-raised."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    remove_stale(tmp)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOT_FOLLOWED, 0o644)
    except FileExistsError:  # made again since remove_stale: another writer is at it
        raise UserError(f"{tmp} appeared while writing {path.name}: is another process "
                        "writing the same folder?") from None
    try:
        try:
            write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
