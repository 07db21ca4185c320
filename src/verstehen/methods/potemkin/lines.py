"""The lines of the records.jsonl of `potemkin run`, `potemkin incoherence` and `potemkin
selfjudge` folders, one TypedDict per kind, and the one place each is read back as typed
(`RunStore.records()` knows no method's lines). The keys are in the order they are written."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict, cast


class PotemkinRunConfig(TypedDict, total=False):
    """run.json's config of a `potemkin run` (a key an older version did not write may be
    missing)."""

    model: str
    judge: str | None
    tasks: list[str]
    source: str
    concepts: list[str]
    items: int
    items_per_concept: int | None
    max_tokens: int | None
    benchmark_dir: str | None
    keystone_asked: bool
    base_url: str | Sequence[str] | None
    judge_base_url: str | Sequence[str] | None
    benchmark_skipped: dict[str, int]
    unparsed: str


class IncoherenceConfig(TypedDict, total=False):
    """run.json's config of a `potemkin incoherence` run."""

    model: str
    concepts: list[str]
    per_concept: int
    temperature: float
    max_tokens: int | None
    base_url: str | Sequence[str] | None


class SelfjudgeConfig(TypedDict, total=False):
    """run.json's config of a `potemkin selfjudge` run."""

    model: str
    benchmark: str
    questions: int
    subquestions: int
    max_tokens: int | None
    concept: str
    base_url: str | Sequence[str] | None


class AnswerRecord(TypedDict):
    """A `potemkin run` item asked: the model's reply (`text`, None when the call failed) and
    its grade by the checker or the benchmark's label (`correct` None: unparsed, or left to
    the judge with `outcome` "to judge")."""

    kind: Literal["answer"]
    id: str
    model: str
    concept: str
    domain: str
    task: str
    source: str
    grading: str
    prompt: str
    label: bool | None
    text: str | None
    correct: bool | None
    outcome: str | None
    reason: str | None
    cached: bool
    error: str | None


class JudgeRecord(TypedDict):
    """The judge model's verdict on one answer (None: no Yes/No read, or the call failed)."""

    kind: Literal["judge"]
    id: str
    model: str
    judge: str
    prompt: str
    text: str | None
    verdict: bool | None
    reason: str | None
    cached: bool
    error: str | None


class PairRecord(TypedDict):
    """A `potemkin incoherence` example asked for (`want`: an instance) and the model's own
    classification of it (`said`; `mismatch` None: unreadable or not asked); `is_instance` is
    the checker's view where the concept has one."""

    kind: Literal["pair"]
    model: str
    concept: str
    domain: str
    want: bool
    index: int
    generate_prompt: str
    example: str | None
    classify_prompt: str | None
    classify_text: str | None
    said: bool | None
    mismatch: bool | None
    is_instance: bool | None
    check_reason: str | None
    error: str | None


class StepErrorRecord(TypedDict):
    """A `potemkin selfjudge` call that failed after every retry, at its step."""

    kind: Literal["error"]
    step: str
    question_id: str
    error: str | None


class ConceptRecord(TypedDict):
    """The self-judge's concept step: whether the question relies on a concept (`said`, None:
    unreadable) and its name (None: none named)."""

    kind: Literal["concept"]
    question_id: str
    prompt: str
    text: str
    said: bool | None
    concept: str | None
    relies: bool


class OriginalRecord(TypedDict):
    """The model's answer to a drawn benchmark question, graded (`parsed`: the label read)."""

    kind: Literal["original"]
    question_id: str
    prompt: str
    text: str
    outcome: str
    parsed: str | None


class QuestionsRecord(TypedDict):
    """The related questions the model wrote about a correctly answered question's concept
    (`draw`: the question's place in the draw; absent in runs written before it was kept)."""

    kind: Literal["questions"]
    question_id: str
    draw: NotRequired[int]
    prompt: str
    text: str
    questions: list[str]
    concept: str
    concept_from: str


class RelatedRecord(TypedDict):
    """One related question: the model's answer, its altered version, and the model's
    judgment of each (`judge_texts`: the two judge replies, None where a call failed)."""

    kind: Literal["related"]
    question_id: str
    index: int
    question: str
    answer: str
    answer_tagged: bool
    altered: str
    altered_tagged: bool
    unchanged: bool
    judged_original: bool | None
    judged_altered: bool | None
    judge_texts: list[str | None]


class LabelRecord(TypedDict):
    """A person's label of one answer, a line of a run folder's annotations.jsonl."""

    id: str
    label: bool


class CertifiedAnswer(TypedDict):
    """The keys this method reads of a `certify` answer line (an audit's use answers; the
    certification method declares the whole line, and one method folder imports no other's)."""

    kind: str
    scope: str
    family: str
    score: float
    outcome: str
    error: str | None


RunLine = AnswerRecord | JudgeRecord
SelfJudgeLine = StepErrorRecord | ConceptRecord | OriginalRecord | QuestionsRecord | RelatedRecord
SELFJUDGE_KINDS = ("error", "concept", "original", "questions", "related")


def run_lines(lines: Iterable[Mapping[str, Any]]) -> list[RunLine]:
    """The answer and judge lines of a `potemkin run` folder, as typed (others left out)."""
    return [cast(RunLine, line) for line in lines if line.get("kind") in ("answer", "judge")]


def pair_lines(lines: Iterable[Mapping[str, Any]]) -> list[PairRecord]:
    """The pair lines of a `potemkin incoherence` folder, as typed (others left out)."""
    return [cast(PairRecord, line) for line in lines if line.get("kind") == "pair"]


def certified_answers(lines: Iterable[Mapping[str, Any]]) -> list[CertifiedAnswer]:
    """The answer lines of a `certify` folder, as typed (others left out)."""
    return [cast(CertifiedAnswer, line) for line in lines if line.get("kind") == "answer"]


def numbered_pairs(lines: Iterable[Mapping[str, Any]]) -> list[tuple[int, PairRecord]]:
    """The pair lines of an incoherence folder with their line numbers (from 0), as typed."""
    return [(n, cast(PairRecord, line)) for n, line in enumerate(lines)
            if line.get("kind") == "pair"]


def numbered_related(lines: Iterable[Mapping[str, Any]]) -> list[tuple[int, RelatedRecord]]:
    """The related lines of a selfjudge folder with their line numbers (from 0), as typed."""
    return [(n, cast(RelatedRecord, line)) for n, line in enumerate(lines)
            if line.get("kind") == "related"]


def selfjudge_lines(lines: Iterable[Mapping[str, Any]]) -> list[SelfJudgeLine]:
    """The lines of a `potemkin selfjudge` folder, as typed (lines of no known kind left
    out)."""
    return [cast(SelfJudgeLine, line) for line in lines if line.get("kind") in SELFJUDGE_KINDS]
