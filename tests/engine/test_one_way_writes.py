"""The one way verstehen writes a file (`safe_files`, issue 43): a whole file is its previous
version or the new one, never a part; a link, FIFO or folder at the path is refused in one line
ending with what to do; a dead writer's temporary file is removed by the next write; writers of
one folder take turns, so two processes writing the same file leave one of their files whole."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from verstehen.engine.store.safe_files import (
    temporary_path,
    write_file,
    writing_text,
)
from verstehen.errors import UserError

from conftest import Cli, cli_error

ADVICE = "remove it, or pass -o with another path"


def victim_link(tmp_path: Path) -> tuple[Path, Path]:
    """A link at out.txt to a file elsewhere; (link, target)."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    out = tmp_path / "out.txt"
    out.symlink_to(target)
    return out, target


@pytest.mark.parametrize("kind", ["link", "dangling link", "fifo", "folder"])
def test_what_is_not_a_regular_file_is_refused_in_one_line(tmp_path: Path, kind: str):
    """Each refused at once, in one line naming the path, its kind and the advice; nothing
    written anywhere, no temporary file left."""
    out = tmp_path / "out.txt"
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    {"link": lambda: out.symlink_to(target),
     "dangling link": lambda: out.symlink_to(tmp_path / "nothing"),
     "fifo": lambda: os.mkfifo(out), "folder": out.mkdir}[kind]()
    start = time.monotonic()
    with pytest.raises(UserError) as refused:
        write_file(out, "new\n", ADVICE)
    assert time.monotonic() - start < 2
    line = str(refused.value)
    assert "\n" not in line and line.startswith(f"{out} is a ") and line.endswith(ADVICE)
    assert target.read_text() == "keep me\n"
    assert not (tmp_path / "nothing").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere.txt", "out.txt"]


def test_a_failed_block_leaves_the_previous_file(tmp_path: Path):
    """An error half-way through a `writing` block: the file as it was, no temporary file."""
    out = tmp_path / "table.csv"
    out.write_text("a,b\n1,2\n")
    with pytest.raises(ZeroDivisionError), writing_text(out, ADVICE) as handle:
        handle.write("a,b\n" * 100_000)
        handle.flush()
        assert (tmp_path / ".table.csv.tmp").stat().st_size > 0  # it was being written
        _ = 1 / 0
    assert out.read_text() == "a,b\n1,2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["table.csv"]


@pytest.mark.parametrize("stale", ["file", "link"])
def test_a_dead_writers_temporary_file_is_removed(tmp_path: Path, stale: str):
    """`.NAME.tmp` left by a killed writer (or a link planted there): removed, never written
    through, and the file written."""
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep me\n")
    temporary = tmp_path / ".out.txt.tmp"
    if stale == "file":
        temporary.write_text("half a fi")
    else:
        temporary.symlink_to(target)
    write_file(tmp_path / "out.txt", b"whole\n", ADVICE)
    assert (tmp_path / "out.txt").read_text() == "whole\n"
    assert target.read_text() == "keep me\n"
    assert not temporary.exists() and not temporary.is_symlink()


def test_the_replaced_files_permissions_are_kept(tmp_path: Path):
    """A report a user made private stays private when it is written again."""
    out = tmp_path / "report.html"
    out.write_text("old")
    out.chmod(0o600)
    write_file(out, "new", ADVICE)
    assert out.read_text() == "new" and stat.S_IMODE(out.stat().st_mode) == 0o600


def test_a_disk_error_is_one_line_with_the_advice(tmp_path: Path):
    """No such folder: `cannot write PATH (reason): ADVICE`."""
    out = tmp_path / "missing" / "x.csv"
    with pytest.raises(UserError, match=r"^cannot write .*x\.csv \(No such file or directory"
                       r"\): remove it, or pass -o with another path$"):
        write_file(out, "x", ADVICE)


def test_a_library_writing_by_name_through_its_own_rename(tmp_path: Path):
    """`temporary_path`: a library that writes a file of its own and renames it over the path
    it was given (as Inspect does) ends with the file in place; one that writes nothing is
    one line, the previous file kept."""
    out = tmp_path / "log.eval"
    out.write_bytes(b"previous")
    with temporary_path(out, ADVICE) as partial:
        mine = partial.with_name(".library.writing")
        mine.write_bytes(b"the log")
        os.replace(mine, partial)
    assert out.read_bytes() == b"the log"
    with pytest.raises(UserError, match="cannot write"), temporary_path(out, ADVICE):
        pass
    assert out.read_bytes() == b"the log"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log.eval"]


def test_two_processes_writing_one_file_leave_one_of_them_whole(tmp_path: Path):
    """Two processes each write the same path 40 times, a megabyte of its own letter each
    time, while this one reads it: every read finds one whole version, never a mix or a
    part, and no temporary file is left."""
    out = tmp_path / "shared.txt"
    size = 1 << 20
    children = []
    for letter in b"ab":
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                for _ in range(40):
                    write_file(out, bytes([letter]) * size, ADVICE)
                code = 0
            finally:
                os._exit(code)
        children.append(pid)
    seen = set()
    running, codes = set(children), []
    while running:
        for pid in list(running):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                running.discard(pid)
                codes.append(os.waitstatus_to_exitcode(status))
        if out.exists():
            data = out.read_bytes()
            assert len(data) == size and len(set(data)) == 1, (len(data), set(data))
            seen.add(data[:1])
    assert codes == [0, 0]
    assert seen <= {b"a", b"b"}
    assert [p.name for p in tmp_path.iterdir()] == ["shared.txt"]


def test_schema_and_a_figure_refuse_a_link(cli: Cli, tmp_path: Path):
    """`verstehen schema -o` and a PNG figure, through the same module: a link planted at
    one of their files is refused, its target kept."""
    from verstehen.report.figures import new_figure, save_png

    out, target = victim_link(tmp_path)
    written = cli(["schema", "certify", "-o", str(tmp_path / "schemas")])
    assert written.returncode == 0, written.stderr
    first = Path(written.stdout.split()[0])
    first.unlink()
    first.symlink_to(target)
    cli_error(cli, ["schema", "certify", "-o", str(tmp_path / "schemas")], str(first),
              "is a symbolic link")
    with pytest.raises(UserError, match="is a symbolic link"):
        save_png(new_figure(2.0, 2.0), out)
    assert target.read_text() == "keep me\n"
