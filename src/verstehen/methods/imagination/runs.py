"""Reading shared-imagination run folders: which command made them, their questions and their
answers, each counted once when runs are pooled."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore
from verstehen.errors import UserError

GENERATE, ANSWER = "imagine-generate", "imagine-answer"


def read_runs(paths: Sequence[Path], commands: tuple[str, ...]) -> list[tuple[RunStore, str]]:
    """Open run folders, each made by one of `commands`, or say which one is not."""
    out = []
    for path in paths:
        store = RunStore.existing(Path(path))
        command = store.info().get("command")
        if command not in commands:
            want = " or ".join(f"`{c.replace('-', ' ', 1)}`" for c in commands)
            raise UserError(f"{path} is a {command!r} run, not one of {want}")
        out.append((store, command))
    return out


def once_each(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pooled runs count each question once, and each (question, AM) answer once: the last
    record wins (two runs of one command draw the same samples, so they share ids)."""
    last: dict[tuple[Any, ...], dict[str, Any]] = {}
    for r in records:
        key = (r["kind"], r["id"]) if r["kind"] == "question" else (
            r["kind"], r.get("question_id"), r.get("am"))
        last[key] = r
    return list(last.values())


def usable_questions(folder: Path) -> list[dict[str, Any]]:
    """The questions of one generate run that parsed (status "ok")."""
    return [r for r in RunStore(folder).records()
            if r["kind"] == "question" and r["status"] == "ok"]


def load_questions(paths: Sequence[Path]) -> list[dict[str, Any]]:
    """The usable questions of `imagine generate` runs, or a UserError when there are none."""
    questions: list[dict[str, Any]] = []
    for store, _ in read_runs(paths, (GENERATE,)):
        questions += usable_questions(store.path)
    questions = once_each(questions)
    if not questions:
        raise UserError("no usable questions in " + ", ".join(map(str, paths)) + ": every "
                        "reply was dropped (see the run's summary); generate more")
    return questions


def questions_of(runs: list[tuple[RunStore, str]]) -> list[dict[str, Any]]:
    """Questions of the generate runs given and of those the answer runs answered, once each
    (a question run that is no longer there is left out)."""
    folders = [store.path for store, command in runs if command == GENERATE]
    for store, command in runs:
        if command == ANSWER:
            folders += [Path(p) for p in store.info()["config"]["questions"]]
    seen: set[Path] = set()
    out: list[dict[str, Any]] = []
    for folder in folders:
        if folder.resolve() in seen or not (folder / "run.json").is_file():
            continue
        seen.add(folder.resolve())
        out += usable_questions(folder)
    return once_each(out)


def answer_records(runs: list[tuple[RunStore, str]]) -> list[dict[str, Any]]:
    """The answer and fictionality records of the answer runs, once each."""
    return once_each([r for store, command in runs if command == ANSWER
                      for r in store.records()])
