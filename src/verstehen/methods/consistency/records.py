"""The lines of a conceptual-consistency run's records.jsonl, one TypedDict per kind."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict, cast


class ConsistencyConfig(TypedDict, total=False):
    """run.json's config of a consistency run: what the report and `verstehen runs` read of
    it (the plan's settings follow, free-form; a key an older version did not write may be
    missing)."""

    model: str
    questions: str | None
    kb: str | None
    limit: int | None
    base_url: str | Sequence[str] | None


class FactReply(TypedDict):
    """How a background fact was answered: yes (True), no (False) or not at all (None, with
    the error); `combos` the likelihood votes per prompt combination, `votes` the parsed
    replies when answered by generation."""

    said_yes: bool | None
    combos: list[bool] | None
    error: str | None
    votes: NotRequired[list[bool | None]]


class FactRecord(FactReply):
    """A background fact asked: its relation, concepts, truth, question and method."""

    kind: Literal["fact"]
    key: str
    relation: str
    c1: str
    c2: str
    positive: bool
    question: str
    method: str


class AnchorReply(TypedDict):
    """An anchor question's chosen label (None: unanswered, with the error); the choices'
    log-probabilities, or the reply it was read from."""

    chosen: str | None
    error: str | None
    logprobs: NotRequired[list[float]]
    reply: NotRequired[str]


class AnchorRecord(AnchorReply):
    """An anchor question asked: the question, its right label, its concepts and facts, and
    whether the chosen label is right (None: unanswered)."""

    kind: Literal["anchor"]
    id: str
    stem: str
    answer: str
    concepts: list[str]
    facts: list[str]
    method: str
    correct: bool | None
    choices: NotRequired[list[str]]  # the report shows them where a record has them
    labels: NotRequired[list[str]]


Record = FactRecord | AnchorRecord


def typed(line: Mapping[str, Any]) -> Record | None:
    """A line of records.jsonl as its kind's record (None: no fact or anchor line)."""
    return cast(Record, line) if line.get("kind") in ("fact", "anchor") else None


def read_records(lines: Iterable[Mapping[str, Any]]) -> list[Record]:
    """The fact and anchor lines of a run's records (other lines left out), as typed."""
    return [record for line in lines if (record := typed(line)) is not None]
