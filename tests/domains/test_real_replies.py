"""The readers on replies real frontier models wrote for the Potemkin benchmark (the half in
`../shared/data/RealReplies/`), checked against readings made without the project's readers:
Python's own `ast.literal_eval` for every matrix written as a literal, and the benchmark
authors' reading of every classify reply."""

from __future__ import annotations

import ast
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.parse import parse_yes_no
from verstehen.reading import ends_inside_reasoning

from conftest import SHARED_DATA, needs_shared

DATA = SHARED_DATA / "RealReplies"
pytestmark = needs_shared("RealReplies/matrices.jsonl", "RealReplies/classify.jsonl")


def lines(name: str) -> list[dict]:
    """The rows of one file of the data set."""
    path: Path = DATA / f"{name}.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x]


def _game(value: object) -> Game | None:
    """A game when `value` is a list of equal rows of (number, number) cells."""
    if not isinstance(value, (list, tuple)) or not value:
        return None
    if not all(isinstance(r, (list, tuple)) and r and len(r) == len(value[0]) for r in value):
        return None
    cells = [[c for c in r] for r in value]
    if not all(isinstance(c, (list, tuple)) and len(c) == 2 and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in c)
            for r in cells for c in r):
        return None
    return Game.of([[(Fraction(str(a)), Fraction(str(b))) for a, b in r] for r in cells])


def literal_games(reply: str) -> list[Game]:
    """Every outermost bracket span Python reads as a game (lists of games count each)."""
    text = re.sub(r"^\s*<think>.*?</think>", "", reply, flags=re.S)
    found, pos = [], 0
    while (start := text.find("[", pos)) != -1:
        depth, end = 0, None
        for i in range(start, len(text)):
            depth += {"[": 1, "]": -1}.get(text[i], 0)
            if depth == 0:
                end = i + 1
                break
        if end is None:
            break
        try:
            value = ast.literal_eval(text[start:end])
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            pos = start + 1
            continue
        games = [g for v in value if (g := _game(v))] if _game(value) is None and isinstance(
            value, list) else [g for g in [_game(value)] if g]
        found += games
        pos = end if games else start + 1
    return found


def test_every_matrix_written_as_a_literal_is_read() -> None:
    """A reply holding a payoff matrix Python can read is read, as that matrix when it holds
    only one; the readers refuse it only with a reason a person accepts."""
    checked = 0
    for r in lines("matrices"):
        games = literal_games(r["reply"])
        if not games:
            continue
        got = parse_game(r["reply"])
        if isinstance(got, ParseFailure):
            assert got.cut_off or "alternatives" in got.reason or "row 2 has" in got.reason, (
                r["key"], got.reason)
            continue
        checked += 1
        if len(set(games)) == 1:
            assert got == games[0], r["key"]
    assert checked >= 200


def test_no_reply_is_unread_for_its_format() -> None:
    """Every unread reply is cut off, has no two-player matrix, or a malformed one."""
    for r in lines("matrices"):
        got = parse_game(r["reply"])
        if isinstance(got, ParseFailure):
            assert (got.cut_off or got.reason.startswith("no payoff matrix found")
                    or re.match(r"row \d+ has \d+ cells?, row 1 has \d+", got.reason)), (
                r["key"], got.reason)
            if ends_inside_reasoning(r["reply"]):
                assert got.cut_off


def test_yes_no_is_read_as_the_benchmark_authors_read_it() -> None:
    """Where the authors read a final Yes or No, the reader reads the same; where it reads
    none, the reply was cut off (inside its reasoning, or before a final answer)."""
    agreed = 0
    for r in lines("classify"):
        said = parse_yes_no(r["reply"])
        if r["upstream_reading"] is not None:
            assert said is (r["upstream_reading"] == "yes"), r["key"]
            agreed += 1
        elif said is None:
            cut = ends_inside_reasoning(r["reply"]) or not r["reply"].rstrip().endswith(
                (".", "!", "?", "*"))
            assert cut, r["key"]
    assert agreed >= 900


@pytest.mark.parametrize("cut", [0.3, 0.6, 0.9])
def test_a_stored_reply_cut_inside_its_reasoning_gives_no_answer(cut: float) -> None:
    """The drafts in a reasoning block cut short are never read as the answer."""
    for r in lines("classify"):
        reply = r["reply"]
        if "</think>" in reply:
            assert parse_yes_no(reply[:int(reply.index("</think>") * cut)]) is None, r["key"]
