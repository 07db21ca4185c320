"""`verstehen cache`: reading creates nothing; clearing asks first or needs --yes."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache

from conftest import Cli, cli_error


def filled_cache(path: Path) -> Path:
    """A cache with two entries of model a and one of model b."""
    cache = Cache(path)
    for key, model in (("k1", "a"), ("k2", "a"), ("k3", "b")):
        cache.put(key, model, "generate", {"text": key})
    cache.close()
    return path


def entries(path: Path) -> int:
    """Rows in the cache file."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]


class Terminal(io.StringIO):
    """A stdin that says it is a terminal and holds the user's answer."""

    def isatty(self) -> bool:
        return True


def test_stats_of_a_missing_cache_creates_nothing(cli: Cli, tmp_path: Path) -> None:
    """A read-only command leaves a missing path (and its folders) missing."""
    path = tmp_path / "no" / "such" / "dir" / "c.sqlite"
    done = cli(["cache", "stats", "--cache", str(path)])
    assert done.returncode == 0 and "0 entries" in done.stdout
    assert not (tmp_path / "no").exists()
    done = cli(["cache", "clear", "--cache", str(path), "--yes"])
    assert done.returncode == 0 and "nothing to clear" in done.stdout
    assert not (tmp_path / "no").exists()


def test_clear_without_a_terminal_needs_yes(cli: Cli, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """No terminal to ask on: one line, exit 2, nothing deleted; --yes deletes."""
    path = filled_cache(tmp_path / "c.sqlite")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    cli_error(cli, ["cache", "clear", "--cache", str(path)], "--yes", "3 entries")
    assert entries(path) == 3
    done = cli(["cache", "clear", "--cache", str(path), "--model", "a", "--yes"])
    assert done.returncode == 0 and "deleted 2 entries" in done.stdout
    assert entries(path) == 1


@pytest.mark.parametrize(("answer", "left"), [("n\n", 3), ("\n", 3), ("y\n", 0), ("yes\n", 0)])
def test_clear_asks_on_a_terminal(cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  answer: str, left: int) -> None:
    """Only a yes deletes; the question says how many entries would go."""
    path = filled_cache(tmp_path / "c.sqlite")
    monkeypatch.setattr("sys.stdin", Terminal(answer))
    done = cli(["cache", "clear", "--cache", str(path)])
    assert done.returncode == 0
    assert "delete 3 entries" in done.stdout
    assert entries(path) == left
