"""One multiple-choice question (`MCQItem`) and the readers of one row of each shape, which
the files (`verstehen.data.mcq`) and the Hugging Face datasets (`verstehen.data.hf`) share.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import TypeGuard

from verstehen.errors import UserError

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class MCQItem:
    """One multiple-choice question: its stem, labelled choices and the correct label."""

    id: str
    stem: str
    labels: list[str]
    choices: list[str]
    answer: str
    subject: str | None = None


@dataclass(frozen=True)
class MCQSource:
    """The questions of a file or dataset, and the source as a run records it."""

    items: list[MCQItem]
    source: str  # the path as given, or the hf: spec pinned to its config, revision and split


def _letter(label: str, numeric: bool) -> str:
    return LETTERS[int(label) - 1] if numeric else label.upper()


def csqa_item(row: dict[str, object], where: str, unanswered: str) -> MCQItem:
    """A CSQA or ARC row ({"id", "question": {"stem", "choices"}, "answerKey"}); ARC's numeric
    labels 1..n become A.. (the answer key with them). `where` starts each error line;
    `unanswered` says what to do about a row with no answer key."""
    q = row.get("question")
    if not isinstance(q, dict) or not _text(q.get("stem")):
        raise UserError(f"{where}: missing question.stem")
    raw = q.get("choices")
    if not isinstance(raw, list) or len(raw) < 2 or not all(
        isinstance(c, dict) and _text(c.get("label")) and isinstance(c.get("text"), str)
        for c in raw
    ):
        raise UserError(f"{where}: question.choices must be a list of 2 or more "
                        '{"label", "text"} objects')
    labels = [c["label"].strip() for c in raw]
    numeric = all(lab.isdigit() for lab in labels)
    if numeric and not all(1 <= int(lab) <= len(LETTERS) for lab in labels):
        raise UserError(f"{where}: numeric labels must be 1 to {len(LETTERS)}: {labels}")
    if not numeric and not all(len(lab) == 1 and lab.isalpha() for lab in labels):
        raise UserError(f"{where}: labels must be all letters or all numbers: {labels}")
    letters = [_letter(lab, numeric) for lab in labels]
    if len(set(letters)) != len(letters):
        raise UserError(f"{where}: repeated choice labels: {labels}")
    key = row.get("answerKey")
    if key is None or key == "":
        raise UserError(f"{where}: {unanswered}")
    key = str(key).strip()
    if key not in labels and key.upper() not in letters:
        raise UserError(f"{where}: answerKey {key!r} is not one of the labels {labels}")
    answer = letters[labels.index(key)] if key in labels else key.upper()
    ident = row.get("id")
    if not isinstance(ident, (str, int)) or ident == "":
        raise UserError(f"{where}: missing id")
    return MCQItem(str(ident), q["stem"], letters, [c["text"] for c in raw], answer)


def mmlu_item(row: dict[str, object], where: str, default_id: str) -> MCQItem:
    """A normalized MMLU row {"subject", "split", "idx", "question", "choices", "answer"}; its
    id is subject_split:idx, else its "id", else `default_id`."""
    question = row.get("question")
    if not _text(question):
        raise UserError(f"{where}: missing question")
    choices = row.get("choices")
    if not isinstance(choices, list) or len(choices) < 2 or len(choices) > len(LETTERS) or \
            not all(isinstance(c, str) for c in choices):
        raise UserError(f"{where}: choices must be a list of 2 to 26 strings")
    labels = list(LETTERS[: len(choices)])
    answer = row.get("answer")
    if isinstance(answer, int) and not isinstance(answer, bool) and 0 <= answer < len(labels):
        answer = labels[answer]
    if not isinstance(answer, str) or answer.strip().upper() not in labels:
        raise UserError(f"{where}: answer {answer!r} is not one of {', '.join(labels)}")
    named = row.get("subject")
    subject = named if isinstance(named, str) else None
    if subject and isinstance(row.get("split"), str) and isinstance(row.get("idx"), int):
        ident = f"{subject}_{row['split']}:{row['idx']}"  # the id of the same row read from csv
    else:
        ident = str(row.get("id", default_id))
    return MCQItem(ident, question, labels, choices, answer.strip().upper(), subject)


def _text(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and bool(value.strip())
