"""Reading shared-imagination run folders: which command made them, their questions and their
answers, each counted once when runs are pooled.

A question's id is a hash of its content (`generate.question_id`), recomputed here from the
stored fields of every question read, so runs written before ids hashed the content (their
ids hashed the slot, and two seeds' runs shared them) pool like new ones. An answer run records
the question ids it answered; an older one (no `question_ids` in its run.json config) is read
through its question runs, its stored ids mapped to content ids as it answered them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from verstehen.engine.store import RunStore
from verstehen.engine.store.inputs import Reads
from verstehen.errors import UserError
from verstehen.methods.imagination.generate import question_id
from verstehen.methods.imagination.records import (
    AnswerRunRecord,
    ImaginationRecord,
    QuestionRecord,
    UsableQuestion,
    read_answer_run,
    read_question_run,
)

GENERATE, ANSWER = "imagine-generate", "imagine-answer"
# the value of "question_ids" in the config of an answer run whose ids hash the content
CONTENT_IDS = "content"
R = TypeVar("R", UsableQuestion, AnswerRunRecord)


def question_run_files(value: str) -> tuple[Path, list[Path]]:
    """The run folder an `imagine answer --questions` value names and the file whose questions
    are asked (its records.jsonl; its run.json's status changes as the run goes on)."""
    return Path(value), [Path(value) / "records.jsonl"]


# an `imagine generate` run folder as an input of an answer run
QUESTION_RUNS = Reads("question run", question_run_files)


@dataclass(frozen=True)
class Once(Generic[R]):
    """Records of pooled runs, each counted once; how many were read; and how many answers of
    older runs could not be matched to their questions (kept under their stored ids)."""

    records: list[R]
    read: int
    unmatched: int = 0

    @property
    def repeats(self) -> int:
        """Records read that repeated one already read."""
        return self.read - len(self.records)


def read_runs(paths: Sequence[Path], commands: tuple[str, ...]) -> list[tuple[RunStore, str]]:
    """Open run folders, each made by one of `commands`, or say which one is not; a folder
    given twice is read once."""
    out = []
    seen: set[Path] = set()
    for path in paths:
        store = RunStore.existing(Path(path))
        command = store.info().get("command")
        if command not in commands:
            want = " or ".join(f"`{c.replace('-', ' ', 1)}`" for c in commands)
            raise UserError(f"{path} is a {command!r} run, not one of {want}")
        if store.path.resolve() not in seen:
            seen.add(store.path.resolve())
            out.append((store, command))
    return out


def counted_once_by(record: ImaginationRecord | UsableQuestion) -> Hashable:
    """What two records share when one repeats the other: a question's kind and content id,
    an answer's (or verdict's) kind, question and AM."""
    if record["kind"] == "question":
        return record["kind"], record["id"]
    return record["kind"], record.get("question_id"), record.get("am")


def once_each(records: list[R]) -> Once[R]:
    """Each question once (by its content id), and each (question, AM) answer once: the last
    record wins, in the place of the first."""
    last: dict[Hashable, R] = {}
    for r in records:
        last[counted_once_by(r)] = r
    return Once(list(last.values()), len(records))


def usable(record: QuestionRecord) -> UsableQuestion | None:
    """A question record that parsed (status "ok") as answering reads it, with its content id
    as "id" and the id the run stored as "stored_id" (for older runs, a slot's id); None for
    any other."""
    stem, choices, answer = record["stem"], record["choices"], record["answer"]
    if record["status"] != "ok" or stem is None or choices is None or answer is None:
        return None
    return {"kind": "question", "id": question_id(record), "stored_id": record["id"],
            "qm": record["qm"], "content": record["content"], "qtype": record["qtype"],
            "topic": record["topic"], "position": record["position"],
            "context": record["context"], "stem": stem, "choices": choices, "answer": answer}


def usable_questions(folder: Path) -> list[UsableQuestion]:
    """The questions of one generate run that parsed, as `usable` gives them."""
    return [q for r in read_question_run(RunStore(folder))
            if r["kind"] == "question" and (q := usable(r)) is not None]


def load_questions(paths: Sequence[Path]) -> Once[UsableQuestion]:
    """The usable questions of `imagine generate` runs, each question once, or a UserError when
    there are none."""
    questions: list[UsableQuestion] = []
    for store, _ in read_runs(paths, (GENERATE,)):
        questions += usable_questions(store.path)
    if not questions:
        raise UserError("no usable questions in " + ", ".join(map(str, paths)) + ": every "
                        "reply was dropped (see the run's summary); generate more")
    return once_each(questions)


def _question_folders(store: RunStore) -> list[Path]:
    return [Path(p) for p in store.info().get("config", {}).get("questions", [])]


def questions_of(runs: list[tuple[RunStore, str]]) -> Once[UsableQuestion]:
    """Questions of the generate runs given and of those the answer runs answered, each once
    (a question run that is no longer there is left out; one named twice is read once)."""
    folders = [store.path for store, command in runs if command == GENERATE]
    for store, command in runs:
        if command == ANSWER:
            folders += _question_folders(store)
    seen: set[Path] = set()
    out: list[UsableQuestion] = []
    for folder in folders:
        if folder.resolve() in seen or not (folder / "run.json").is_file():
            continue
        seen.add(folder.resolve())
        out += usable_questions(folder)
    return once_each(out)


def _stored_to_content(store: RunStore) -> dict[str, str]:
    """For an answer run made before content ids: each stored id of its question runs mapped
    to the content id of the question it answered under that id (the last one read, as
    that version's load_questions kept the last)."""
    ids: dict[str, str] = {}
    for folder in _question_folders(store):
        if (folder / "run.json").is_file():
            ids.update((q["stored_id"], q["id"]) for q in usable_questions(folder))
    return ids


def run_answers(store: RunStore) -> Once[AnswerRunRecord]:
    """Every record of one answer run, in file order, with its question's content id as
    "question_id"; `unmatched` counts the records of an older run whose question is not in its
    question runs any more (they keep the stored id)."""
    records = read_answer_run(store)
    if store.info().get("config", {}).get("question_ids") == CONTENT_IDS:
        return Once(records, len(records))
    ids = _stored_to_content(store)
    out: list[AnswerRunRecord] = []
    unmatched = 0
    for r in records:
        if r.get("question_id") in ids:
            r = r.copy()
            r["question_id"] = ids[r["question_id"]]
        elif r.get("kind") in ("answer", "fiction"):
            unmatched += 1
        out.append(r)
    return Once(out, len(out), unmatched)


def answer_records(runs: list[tuple[RunStore, str]]) -> Once[AnswerRunRecord]:
    """The answer and fictionality records of the answer runs, each (question, AM) once."""
    read = [run_answers(store) for store, command in runs if command == ANSWER]
    pooled = once_each([r for one in read for r in one.records])
    return Once(pooled.records, pooled.read, sum(one.unmatched for one in read))
