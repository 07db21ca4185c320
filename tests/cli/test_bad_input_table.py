"""Every numeric flag of every subcommand refuses values out of range before anything runs.

The flags are found by walking the parser, so a flag added later is covered or fails the
table test for lack of a row. Each command line is otherwise complete and points at a
counting stub server: had the value been taken, the command would have paid for calls.
"""

from __future__ import annotations

import argparse
import json
import math
import sqlite3
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from verstehen.cli import flags
from verstehen.cli.main import build_parser
from verstehen.cli.options import NumberReader
from verstehen.testing.ports import free_port

from conftest import Cli, Server, cli_error

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


def declared_bad_values(reader: NumberReader) -> list[str]:
    """The values a declared parameter's reader must refuse: just outside each end of its
    range (at an open end, the end itself), nan, inf, a huge number."""
    assert reader.bounds is not None
    low, high = reader.bounds.low, reader.bounds.high
    step = 1 if reader.kind is int else 0.5
    below = [] if low == -math.inf else [str(low if reader.bounds.low_open else low - step)]
    above = [] if high == math.inf else [str(high if reader.bounds.high_open else high + step)]
    return [_number(v, reader.kind) for v in below + above] + ["nan", "inf", HUGE_INT]


def _number(text: str, kind: type) -> str:
    """A bound as the kind's text ("1", not "1.0", for an int flag)."""
    return str(int(float(text))) if kind is int else text


def bad_values(kind: Callable[[str], Any]) -> list[str]:
    """The values a flag's type must refuse."""
    return declared_bad_values(kind) if isinstance(kind, NumberReader) else BAD_VALUES[kind]


def numeric_flags() -> Iterator[tuple[tuple[str, ...], str, Callable[[str], Any]]]:
    """(subcommand path, flag, type) for every flag whose value is a number."""
    def walk(parser: argparse.ArgumentParser, path: tuple[str, ...]) -> Iterator[Any]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))
            elif action.option_strings and (action.type in BAD_VALUES
                                            or isinstance(action.type, NumberReader)
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


def takes_model(path: tuple[str, ...]) -> bool:
    """True when the command at `path` has a --model flag."""
    parser: argparse.ArgumentParser = build_parser()
    for word in path:
        [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        parser = sub.choices[word]
    return any("--model" in action.option_strings for action in parser._actions)


def complete_command(path: tuple[str, ...], url: str, work: Path) -> list[str]:
    """A command line that would call the stub's model if its flags were accepted: the general
    commands' by hand, every command with --model (each method's, from the registry's
    declarations) with the stub's model and URL."""
    prompts = work / "prompts.txt"
    prompts.write_text("What is 2 + 2?\n", encoding="utf-8")
    remote = ["--base-url", url]
    model = "openai/stub"
    general = {
        ("ask",): ["ask", model, "hi", *remote],
        ("batch",): ["batch", model, str(prompts), *remote],
    }
    if path in general:
        return general[path]
    if takes_model(path):
        return [*path, "--model", model, *remote]
    return list(path)


def test_every_numeric_flag_has_a_checked_type() -> None:
    """No flag reads a bare int or float: each has a type that knows its range."""
    raw = [(path, flag) for path, flag, kind in ROWS if kind in (int, float)
           or (isinstance(kind, NumberReader) and kind.bounds is None)]
    assert raw == []
    assert len(ROWS) > 100  # the walk found the flags (about 150 today)


@pytest.mark.parametrize(("path", "flag", "kind"), ROWS,
                         ids=[f"{' '.join(p)} {f}" for p, f, _ in ROWS])
def test_out_of_range_value_is_refused_before_any_call(
        cli: Cli, stub: Server, tmp_path: Path, path: tuple[str, ...], flag: str,
        kind: Callable[[str], Any]) -> None:
    """Each bad value: exit 2, one line naming the flag, no traceback, no call, no run folder."""
    before = paid(stub)
    for bad in bad_values(kind):
        cli_error(cli, [*complete_command(path, stub.url, tmp_path), f"{flag}={bad}"], flag)
    assert paid(stub) == before
    assert not (tmp_path / "runs").exists()


def test_the_table_would_catch_a_taken_value(cli: Cli, stub: Server, tmp_path: Path) -> None:
    """The same command line with a good value does reach the stub (the table can fail)."""
    before = paid(stub)
    done = cli([*complete_command(("ask",), stub.url, tmp_path), "--seed=3"])
    assert done.returncode == 0, done.stderr
    assert paid(stub) == before + 1


# ---- file arguments -------------------------------------------------------------------------

def write_variant(path: Path, variant: str, wrong_schema: str) -> None:
    """Make `path` one kind of bad file (or leave it missing)."""
    if variant == "directory":
        path.mkdir(parents=True)
        return
    if variant == "missing":
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes({
        "empty": b"",
        "binary": b"\x00\x01\x02\xff\xfe\x00binary\x00",
        "latin-1": "caf\xe9 cr\xe8me, 2 + 2?\n".encode("latin-1"),
        "UTF-16": "what is 2 + 2?\n".encode("utf-16"),
        "wrong schema": wrong_schema.encode(),
    }[variant])


VARIANTS = ("missing", "directory", "empty", "binary", "latin-1", "UTF-16", "wrong schema")
CSQA_LINE = json.dumps({"id": "q1", "answerKey": "A", "question": {
    "stem": "Where do dogs live?", "choices": [{"label": "A", "text": "house"},
                                               {"label": "B", "text": "moon"}]}})
KB = "IsA\tdog\tanimal\nAtLocation\tdog\thouse\n"


def file_commands(url: str, work: Path) -> dict[str, tuple[list[str], str, str]]:
    """name -> (command line with {F} for the file, the file's name, its wrong-schema text)."""
    good_q, good_kb = work / "good-q.jsonl", work / "good-kb.tsv"
    good_q.write_text(CSQA_LINE + "\n")
    good_kb.write_text(KB)
    remote = ["--model", "openai/stub", "--base-url", url]
    return {
        "batch prompts": (["batch", "openai/stub", "{F}", "--base-url", url], "p.jsonl",
                          '{"foo": 1}\n'),
        "batch --resume": (["batch", "--resume", "{F}"], "run/run.json", "[1, 2]"),
        "certify --scores": (["certify", "--scores", "{F}"], "scores.txt", "high\nlow\n"),
        "certify mcq:": (["certify", "--scope", "mcq:{F}", "--questions", "8",
                                  "--pg", "0.6", "--rid", "0.4", *remote],
                         "q.jsonl", '{"question": 3}\n'),
        "potemkin --benchmark-dir": (["potemkin", "run", "--benchmark-dir", "{F}", *remote],
                                     "bench/define/definition_questions.json", '{"x": 1}'),
        "potemkin score": (["potemkin", "score", "{F}"], "records.jsonl", '{"id": 1}\n'),
        "consistency --questions": (["consistency", "--questions", "{F}", "--kb",
                                     str(good_kb), *remote], "q.jsonl", '{"stem": 1}\n'),
        "consistency --kb": (["consistency", "--questions", str(good_q), "--kb", "{F}",
                              *remote], "kb.tsv", "just,one,column\n"),
        "imagine answer --questions": (["imagine", "answer", "--questions", "{F}", *remote],
                                       "run/run.json", '{"command": 5}'),
        "imagine matrix": (["imagine", "matrix", "{F}"], "run/run.json", "null"),
        "report": (["report", "{F}"], "run/run.json", '{"command": "nothing-known"}'),
    }


def target(path_in_case: str, work: Path) -> tuple[Path, Path]:
    """The file to spoil, and what the command line names (a run folder names its folder;
    the benchmark names its checkout)."""
    spoiled = work / "case" / path_in_case
    if path_in_case.startswith("run/"):
        return spoiled, spoiled.parent
    if path_in_case.startswith("bench/"):
        return spoiled, work / "case" / "bench"
    return spoiled, spoiled


FILE_CASES = ["batch prompts", "batch --resume", "certify --scores", "certify mcq:",
              "potemkin --benchmark-dir", "potemkin score", "consistency --questions",
              "consistency --kb", "imagine answer --questions", "imagine matrix", "report"]


@pytest.mark.parametrize("case", FILE_CASES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_bad_file_is_one_line_before_any_call(cli: Cli, stub: Server, tmp_path: Path,
                                              case: str, variant: str) -> None:
    """Missing, a folder, empty, binary, latin-1, UTF-16 or of the wrong shape: exit 2, one
    line, no traceback, no call paid, no run folder made."""
    line, name, wrong = file_commands(stub.url, tmp_path)[case]
    spoiled, named = target(name, tmp_path)
    if named != spoiled and variant != "missing":
        named.mkdir(parents=True, exist_ok=True)  # the folder exists; its file is the bad part
    write_variant(spoiled, variant, wrong)
    before = paid(stub)
    cli_error(cli, [part.replace("{F}", str(named)) for part in line])
    assert paid(stub) == before
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def foreign_database(path: Path) -> None:
    """A SQLite file whose `calls` table belongs to some other program."""
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE calls (a INTEGER)")


@pytest.mark.parametrize("variant", ["directory", "binary", "latin-1", "UTF-16", "wrong schema"])
@pytest.mark.parametrize("command", ["ask", "certify", "cache stats"])
def test_bad_cache_file_is_one_line_before_any_call(cli: Cli, stub: Server, tmp_path: Path,
                                                    variant: str, command: str) -> None:
    """--cache naming something that is not a cache: one line, exit 2, nothing paid or made
    (a missing or empty file is a new cache, so those two are not bad)."""
    cache = tmp_path / "bad" / "calls.sqlite"
    if variant == "wrong schema":
        cache.parent.mkdir()
        foreign_database(cache)
    else:
        write_variant(cache, variant, "")
    line = {"ask": complete_command(("ask",), stub.url, tmp_path),
            "certify": [*complete_command(("certify",), stub.url, tmp_path), "--scope",
                        "arithmetic", "--questions", "8", "--pg", "0.6", "--rid", "0.4"],
            "cache stats": ["cache", "stats"]}[command]
    before = paid(stub)
    cli_error(cli, [*line, "--cache", str(cache)], str(cache))
    assert paid(stub) == before
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
