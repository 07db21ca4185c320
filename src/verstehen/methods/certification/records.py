"""The record kinds a certification run writes to records.jsonl, and how they are read back.

An `AnswerRecord` is one question asked (kind "answer") or asked again in another phrasing
("rephrase"); an `ExplanationRecord` is one family's program (Procedure 5.1). `expected` and
`parsed` hold a scope's answers, whose kind each scope chooses (a number, a word, a list).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Literal, NotRequired, TypedDict, TypeGuard


class CertifyConfig(TypedDict, total=False):
    """run.json's config of a certify run, as `certify_scopes` writes it (a key an older
    version did not write may be missing): `model` for a run of one model, `models` for a run
    of several."""

    model: str
    models: list[str]
    scopes: list[str]
    pg: float
    rid: float
    delta: float
    questions: int
    sequential: bool
    first_look: int
    sequential_test: str  # the betting test; a config without it: the doubling test
    rephrase: int
    max_tokens: int | None
    phrasings: str
    draw: str
    explanations: bool
    base_url: str | Sequence[str] | None


class AnswerRecord(TypedDict):
    """One question asked and graded (text and grade None when the call failed)."""

    kind: Literal["answer", "rephrase"]
    scope: str
    model: str
    index: int
    question_id: str
    family: str | None
    phrasing: int
    prompt: str
    expected: Any  # the scope's own kind of answer
    text: str | None
    parsed: Any  # the answer read from the text, of the scope's kind
    outcome: str | None
    score: float | None
    reason: str | None
    truncated: bool | None
    cached: bool
    error: str | None


class ReadAnswer(AnswerRecord):
    """An answer record read back from records.jsonl with its line there (0-based)."""

    _line: int


class ProgramExample(TypedDict):
    """One of the first questions a program answered: its arguments and their grade."""

    args: Any  # the scope's program arguments
    score: float
    parsed: Any
    reason: str | None


class ExplanationRecord(TypedDict):
    """One family's program: asked for, offered or not, and how it fared in the sandbox
    (the keys after `reason` are there once a program was offered)."""

    kind: Literal["explanation"]
    scope: str
    model: str
    family: str
    prompt: str
    text: str | None
    error: str | None
    offered: bool
    reason: str | None
    code: NotRequired[str]
    program_ok: NotRequired[bool]
    program_error: NotRequired[str | None]
    sandbox_limit: NotRequired[bool]
    seconds: NotRequired[float | None]
    questions: NotRequired[int]
    mean_score: NotRequired[float | None]
    ridiculous: NotRequired[int | None]
    examples: NotRequired[list[ProgramExample]]


def is_answer(record: dict[str, Any]) -> TypeGuard[AnswerRecord]:
    """True for an answer or rephrase record (of the keys AnswerRecord names)."""
    return record.get("kind") in ("answer", "rephrase")


def read_answers(records: Iterable[dict[str, Any]]) -> Iterator[ReadAnswer]:
    """The answer and rephrase records of a run's records (`RunStore.records()`), each with
    its line number; the other kinds are left out."""
    for line, record in enumerate(records):
        if is_answer(record):
            yield ReadAnswer(**record, _line=line)
