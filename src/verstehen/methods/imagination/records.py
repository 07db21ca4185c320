"""The records of shared-imagination run folders, as records.jsonl holds them: a generate run's
`question` records, an answer run's `answer` and `fiction` records; written and read here.

The keys are those this version writes. A key marked NotRequired is written only by some
methods (`logprobs`, `framing`, `judge_reply`) or was not written by older versions (`slot`,
`try`); readers of older runs reach such keys with `.get`.
"""

# no `from __future__ import annotations`: the TypedDicts' annotations are evaluated, so that
# `__required_keys__` knows the NotRequired ones at run time too
from typing import Literal, NotRequired, TypedDict, cast

from verstehen.engine.store import RunStore


class GenerateConfig(TypedDict, total=False):
    """run.json's config of an `imagine generate` run: the question model (the plan's settings
    follow, free-form)."""

    model: str
    base_url: str | list[str] | None


class AnswerConfig(TypedDict, total=False):
    """run.json's config of an `imagine answer` run: what the report and the readers of its
    question runs read of it (the plan's settings follow, free-form)."""

    questions: list[str]
    models: list[str]
    judge: str | None
    question_ids: str


class Context(TypedDict):
    """What a context question was asked about: the made-up concept ("" for a story) and the
    paragraph (or story) the question model wrote about it."""

    concept: str
    paragraph: str


# a functional TypedDict: "try" is a Python keyword
QuestionRecord = TypedDict("QuestionRecord", {
    "kind": Literal["question"],
    "id": str,  # the content id of a usable question, else the slot's id
    "qm": str,
    "qtype": str,  # DQ, CQ or SQ
    "content": str,  # knowledge or story
    "topic": str,
    "index": int,  # the sample index drawn
    "position": int | None,  # 1..5 in a sequential reply
    "context": Context | None,
    "reply": str | None,  # None when the call failed
    "status": str,  # ok, dropped or error
    "reason": str | None,  # why dropped, or the call's error
    "stem": str | None,  # these three are set when status is ok
    "choices": list[str] | None,
    "answer": int | None,
    "slot": NotRequired[int],
    "try": NotRequired[int],
})
QuestionRecord.__doc__ = """One reply of the question model (one of five for a sequential reply):
what was asked, the reply, whether it gave a usable question, and that question."""


class UsableQuestion(TypedDict):
    """A question that parsed, as answering reads it: its content id, the id its run stored
    (which the choices' shuffle hashes) and what the question is."""

    kind: Literal["question"]
    id: str
    stored_id: str
    qm: str
    content: str
    qtype: str
    topic: str
    position: int | None
    context: Context | None
    stem: str
    choices: list[str]
    answer: int


class AnswerRecord(TypedDict):
    """One answer model's answer to one question: how it was shown and asked, the reply, the
    choice read from it and its outcome (correct, wrong, refused, choice_e, unparsed, error)."""

    kind: Literal["answer"]
    question_id: str
    qm: str
    am: str  # the answer model's label, with its configuration
    am_model: str
    method: str
    variant: str
    qtype: str
    content: str
    topic: str
    position: int | None
    question_chars: int
    correct_rank: int
    order: list[int]
    correct_letter: str
    prompt: str | None
    reply: str | None
    chosen: str | None
    outcome: str
    score: float | None  # the judge's 0-100 score (method free)
    error: str | None
    framing: NotRequired[str]  # method perplexity: chat template or plain text
    logprobs: NotRequired[list[float]]  # methods letter and perplexity
    judge_reply: NotRequired[str]  # method free


class FictionRecord(TypedDict):
    """One answer model's verdict on one context paragraph: real, fictional, unparsed or
    error."""

    kind: Literal["fiction"]
    question_id: str
    qm: str
    am: str
    topic: str
    prompt: str
    reply: str | None
    verdict: str
    error: str | None


AnswerRunRecord = AnswerRecord | FictionRecord
ImaginationRecord = QuestionRecord | AnswerRecord | FictionRecord


def read_records(store: RunStore) -> list[ImaginationRecord]:
    """Every record of an imagination run folder, in file order, as the kinds above."""
    return cast(list[ImaginationRecord], list(store.records()))


def read_answer_run(store: RunStore) -> list[AnswerRunRecord]:
    """Every record of an `imagine answer` run folder, in file order."""
    return cast(list[AnswerRunRecord], list(store.records()))


def read_question_run(store: RunStore) -> list[QuestionRecord]:
    """Every record of an `imagine generate` run folder, in file order."""
    return cast(list[QuestionRecord], list(store.records()))


def write_record(store: RunStore, record: ImaginationRecord) -> None:
    """Append one record to the run folder's records.jsonl."""
    store.append(dict(record))
