"""A scope made of a multiple-choice file (CSQA, ARC, MMLU): `mcq:<path>`, or of a Hugging Face
dataset in the local cache: `mcq:hf:DATASET[:CONFIG][@REVISION][#SPLIT]`, named after the
config, revision and split it read (`mcq:hf:tau/commonsense_qa:default@<commit>#validation`),
so that run.json records them; or of one on disk, `mcq:hf:./FOLDER[#SPLIT]`, named after its
content hash and split (`mcq:hf:./FOLDER@sha256:<hash>#validation`).

Sampling: each question is one item drawn uniformly WITH replacement (so draws are i.i.d.,
as the paper's sampling theorems assume; an item can come up twice), in a phrasing drawn
uniformly from `TEMPLATES`.

Scoring a reply: the correct choice scores 1.0 ("correct"); "I don't know" scores `idk_score`
("idk"); another choice scores `wrong_score` ("wrong"); a reply from which no single choice can
be read (`verstehen.parse.parse_choice`) also scores `wrong_score`: an unreadable answer counts
as a wrong one, but its outcome is "unparsed" so that it is counted separately. With the
default wrong_score 0 every wrong or unreadable answer is ridiculous. The choice is read
first: a reply that is a choice's text ("unknown" is a choice of some MMLU questions) or that
professes ignorance yet names one choice ("Not sure. (B)") is graded as that choice.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from verstehen.data.mcq import MCQItem, mcq_files, read_mcq
from verstehen.engine.store.inputs import Reads
from verstehen.errors import UserError
from verstehen.grading import Graded
from verstehen.parse import is_idk, parse_choice
from verstehen.scopes.base import Question

TEMPLATES = (
    "Question: {stem}\n{lettered}",
    "{stem}\n\n{parenthesized}",
    "Which option answers the question below?\n{stem}\nOptions:\n{closed}",
)


def _or_list(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} or {labels[-1]}"


def mcq_prompt(item: MCQItem, phrasing: int) -> str:
    """The question of one item in one of the TEMPLATES, choices lettered."""
    pairs = list(zip(item.labels, item.choices, strict=True))
    body = TEMPLATES[phrasing].format(
        stem=item.stem.strip(),
        lettered="\n".join(f"{lab}. {text}" for lab, text in pairs),
        parenthesized="\n".join(f"({lab}) {text}" for lab, text in pairs),
        closed="\n".join(f"{lab}) {text}" for lab, text in pairs),
    )
    instruction = (f"Answer with the letter of the correct choice only ({_or_list(item.labels)}),"
                   ' or say "I don\'t know".')
    return f"{body}\n{instruction}"


class MCQScope:
    """The questions of a multiple-choice file or `hf:` dataset, drawn uniformly with
    replacement."""

    phrasings = len(TEMPLATES)
    answer_tokens = 1024  # room to reason before the choice

    def __init__(self, path: str | Path, idk_score: float = 0.0, wrong_score: float = 0.0) -> None:
        if not (0.0 <= idk_score <= 1.0 and 0.0 <= wrong_score <= 1.0):
            raise ValueError("idk_score and wrong_score must be in [0, 1]")
        self.path = str(path)
        self.idk_score, self.wrong_score = idk_score, wrong_score
        questions = read_mcq(path)
        self.source = questions.source  # an hf: spec pinned to what was read; a path as given
        self.name = f"mcq:{self.source}"
        self.items = questions.items
        self._by_id = {item.id: item for item in self.items}
        self.description = (f"{len(self.items)} multiple-choice questions from {self.source}, "
                            "drawn uniformly with replacement")

    def sample(self, rng: np.random.Generator) -> Question:
        """Draw an item uniformly (with replacement), then a phrasing."""
        item = self.items[int(rng.integers(len(self.items)))]
        return self._question(item, int(rng.integers(self.phrasings)))

    def question_for(self, item: MCQItem, phrasing: int = 0) -> Question:
        """The question of one item in one phrasing."""
        return self._question(item, phrasing)

    def _question(self, item: MCQItem, phrasing: int) -> Question:
        return Question(id=item.id, prompt=mcq_prompt(item, phrasing), answer=item.answer,
                        phrasing=phrasing,
                        data={"labels": list(item.labels), "choices": list(item.choices)})

    def rephrase(self, question: Question, phrasing: int) -> Question:
        """The same item in phrasing `phrasing`."""
        if not 0 <= phrasing < self.phrasings:
            raise ValueError(f"phrasing must be in [0, {self.phrasings}); got {phrasing}")
        return replace(question, prompt=mcq_prompt(self._by_id[question.id], phrasing),
                       phrasing=phrasing)

    def grade(self, question: Question, answer: str) -> Graded:
        """Read and score a reply (rules in the module docstring)."""
        labels = question.data["labels"]
        choice = parse_choice(answer, labels, question.data["choices"])
        if choice is None and is_idk(answer):
            return Graded(self.idk_score, "idk", reason="I don't know")
        if choice is None:
            return Graded(self.wrong_score, "unparsed",
                          reason=f"no single choice among {', '.join(labels)} could be read")
        if choice == question.answer:
            return Graded(1.0, "correct", choice)
        return Graded(self.wrong_score, "wrong", choice)

    def reference(self, question: Question) -> str:
        """The right choice's label, the reply `grade` scores 1 (for tests and benchmarks)."""
        return str(question.answer)

    def score(self, question: Question, answer: str) -> float:
        """The score in [0, 1] of a reply; 0 is ridiculous."""
        return self.grade(question, answer).score


def mcq_spec_files(spec: str) -> tuple[Path, list[Path]] | None:
    """The files a spec `mcq:<path>` or `mcq:hf:<folder>` names (as `mcq_files` reads them);
    None for another spec (a scope's name, `mcq:hf:` of the cache)."""
    prefix, colon, source = spec.partition(":")
    return mcq_files(source) if colon and prefix == "mcq" and source else None


# a scope or benchmark given as mcq:<path>, as an input of a run
MCQ_SPEC = Reads("multiple-choice file", mcq_spec_files)


def mcq_scope(spec: str) -> MCQScope | None:
    """The scope `mcq:<path>` or `mcq:hf:...` names (read now), or None when `spec` is not of
    that form."""
    prefix, colon, path = spec.partition(":")
    if not colon or prefix != "mcq":
        return None
    if not path:
        raise UserError("scope 'mcq:' needs a path: mcq:<path>")
    return MCQScope(path)
