"""Reading shared-imagination run folders: which command made them, their questions and their
answers, each counted once when runs are pooled.

A question's id is a hash of its content (`generate.question_id`), recomputed here from the
stored fields of every question read, so runs written before ids hashed the content (their
ids hashed the slot, and two seeds' runs shared them) pool like new ones. An answer run records
the question ids it answered; an older one (no `question_ids` in its run.json config) is read
through its question runs, its stored ids mapped to content ids as it answered them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.imagination.generate import question_id

GENERATE, ANSWER = "imagine-generate", "imagine-answer"
# the value of "question_ids" in the config of an answer run whose ids hash the content
CONTENT_IDS = "content"


@dataclass(frozen=True)
class Once:
    """Records of pooled runs, each counted once; how many were read; and how many answers of
    older runs could not be matched to their questions (kept under their stored ids)."""

    records: list[dict[str, Any]]
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


def once_each(records: list[dict[str, Any]]) -> Once:
    """Each question once (by its content id), and each (question, AM) answer once: the last
    record wins, in the place of the first."""
    last: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in records:
        key = (r["kind"], r["id"]) if r["kind"] == "question" else (
            r["kind"], r.get("question_id"), r.get("am"))
        last[key] = r
    return Once(list(last.values()), len(records))


def usable_questions(folder: Path) -> list[dict[str, Any]]:
    """The questions of one generate run that parsed (status "ok"), each with its content id
    as "id" and the id the run stored as "stored_id" (for older runs, a slot's id)."""
    return [{**r, "id": question_id(r), "stored_id": r["id"]}
            for r in RunStore(folder).records()
            if r["kind"] == "question" and r["status"] == "ok"]


def load_questions(paths: Sequence[Path]) -> Once:
    """The usable questions of `imagine generate` runs, each question once, or a UserError when
    there are none."""
    questions: list[dict[str, Any]] = []
    for store, _ in read_runs(paths, (GENERATE,)):
        questions += usable_questions(store.path)
    if not questions:
        raise UserError("no usable questions in " + ", ".join(map(str, paths)) + ": every "
                        "reply was dropped (see the run's summary); generate more")
    return once_each(questions)


def _question_folders(store: RunStore) -> list[Path]:
    return [Path(p) for p in store.info().get("config", {}).get("questions", [])]


def questions_of(runs: list[tuple[RunStore, str]]) -> Once:
    """Questions of the generate runs given and of those the answer runs answered, each once
    (a question run that is no longer there is left out; one named twice is read once)."""
    folders = [store.path for store, command in runs if command == GENERATE]
    for store, command in runs:
        if command == ANSWER:
            folders += _question_folders(store)
    seen: set[Path] = set()
    out: list[dict[str, Any]] = []
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


def run_answers(store: RunStore) -> Once:
    """Every record of one answer run, in file order, with its question's content id as
    "question_id"; `unmatched` counts the records of an older run whose question is not in its
    question runs any more (they keep the stored id)."""
    records = list(store.records())
    if store.info().get("config", {}).get("question_ids") == CONTENT_IDS:
        return Once(records, len(records))
    ids = _stored_to_content(store)
    out, unmatched = [], 0
    for r in records:
        if r.get("question_id") in ids:
            r = {**r, "question_id": ids[r["question_id"]]}
        elif r.get("kind") in ("answer", "fiction"):
            unmatched += 1
        out.append(r)
    return Once(out, len(out), unmatched)


def answer_records(runs: list[tuple[RunStore, str]]) -> Once:
    """The answer and fictionality records of the answer runs, each (question, AM) once."""
    read = [run_answers(store) for store, command in runs if command == ANSWER]
    pooled = once_each([r for one in read for r in one.records])
    return Once(pooled.records, pooled.read, sum(one.unmatched for one in read))
