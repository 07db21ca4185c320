"""Every numeric flag of every subcommand refuses values out of range before anything runs.

The flags are found by walking the parser, so a flag added later is covered or fails the
table test for lack of a row. Each command line is otherwise complete and points at a
counting stub server: had the value been taken, the command would have paid for calls.
"""

from __future__ import annotations

import argparse
import json
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import Cli, Server

from verstehen.cli import flags
from verstehen.cli.main import build_parser
from verstehen.testing.ports import free_port

HUGE_INT = str(10**22)
# the values each checked type must refuse (0 is fine for some: a seed, a temperature)
BAD_VALUES: dict[Callable[[str], Any], list[str]] = {
    flags.positive_int: ["0", "-1", "nan", "inf", HUGE_INT],
    flags.nonnegative_int: ["-1", "nan", "inf", HUGE_INT],
    flags.seed: ["-1", "nan", "inf", str(2**32)],
    flags.thread_count: ["0", "-1", "nan", "inf", HUGE_INT],
    flags.temperature: ["-1", "nan", "inf", "1e300"],
    flags.probability: ["0", "1", "-1", "nan", "inf", "1e300"],
    flags.unit_interval: ["-1", "nan", "inf", "1e300"],
    flags.positive_seconds: ["0", "-1", "nan", "inf", "1e300"],
}


def numeric_flags() -> Iterator[tuple[tuple[str, ...], str, Callable[[str], Any]]]:
    """(subcommand path, flag, type) for every flag whose value is a number."""
    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> Iterator[Any]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))
            elif action.option_strings and (action.type in BAD_VALUES
                                            or action.type in (int, float)):
                yield path, action.option_strings[-1], action.type
    yield from walk(build_parser(), ())


ROWS = sorted(numeric_flags(), key=lambda row: (row[0], row[1]))


@pytest.fixture(scope="module")
def stub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One counting stub server for the whole table."""
    port = free_port()
    server = Server(["verstehen.testing.stub_server", "--port", str(port)], port,
                    tmp_path_factory.mktemp("stub") / "stub.log")
    yield server
    server.stop()


def paid(server: Server) -> int:
    """Chat requests the stub has served."""
    with urllib.request.urlopen(server.url.removesuffix("/v1") + "/stats") as reply:
        return int(json.load(reply)["chat"])


def complete_command(path: tuple[str, ...], url: str, work: Path) -> list[str]:
    """A command line that would call the stub's model if its flags were accepted."""
    prompts = work / "prompts.txt"
    prompts.write_text("What is 2 + 2?\n", encoding="utf-8")
    remote = ["--base-url", url]
    model = "openai/stub"
    lines = {
        ("ask",): ["ask", model, "hi", *remote],
        ("batch",): ["batch", model, str(prompts), *remote],
        ("certify",): ["certify", "--model", model, "--scope", "arithmetic", *remote],
        ("audit",): ["audit", "--model", model, *remote],
        ("potemkin", "run"): ["potemkin", "run", "--model", model, *remote],
        ("potemkin", "incoherence"): ["potemkin", "incoherence", "--model", model, *remote],
        ("potemkin", "selfjudge"): ["potemkin", "selfjudge", "--model", model, *remote],
        ("imagine", "generate"): ["imagine", "generate", "--model", model, *remote],
        ("consistency",): ["consistency", "--model", model, *remote],
    }
    return lines.get(path, list(path))


def test_every_numeric_flag_has_a_checked_type() -> None:
    """No flag reads a bare int or float: each has a type that knows its range."""
    raw = [(path, flag) for path, flag, kind in ROWS if kind in (int, float)]
    assert raw == []
    assert len(ROWS) > 100  # the walk found the flags (about 150 today)


@pytest.mark.parametrize(("path", "flag", "kind"), ROWS,
                         ids=[f"{' '.join(p)} {f}" for p, f, _ in ROWS])
def test_out_of_range_value_is_refused_before_any_call(
        cli: Cli, stub: Server, tmp_path: Path, path: tuple[str, ...], flag: str,
        kind: Callable[[str], Any]) -> None:
    """Each bad value: exit 2, one line naming the flag, no traceback, no call, no run folder."""
    before = paid(stub)
    for bad in BAD_VALUES[kind]:
        done = cli([*complete_command(path, stub.url, tmp_path), f"{flag}={bad}"])
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, (bad, done.stderr)
        assert len(lines) == 1 and "Traceback" not in done.stderr, (bad, done.stderr)
        assert f"argument {flag}" in lines[0] or flag in lines[0], (bad, lines[0])
    assert paid(stub) == before
    assert not (tmp_path / "runs").exists()


def test_the_table_would_catch_a_taken_value(cli: Cli, stub: Server, tmp_path: Path) -> None:
    """The same command line with a good value does reach the stub (the table can fail)."""
    before = paid(stub)
    done = cli([*complete_command(("ask",), stub.url, tmp_path), "--seed=3"])
    assert done.returncode == 0, done.stderr
    assert paid(stub) == before + 1
