"""How an imaginary question is shown to an answer model: choice order, fifth choice, prompts.

The shuffle of a question depends only on the id its generate run stored and the seed, so every
answer model sees the same order, a rerun sees it again (and hits the cache), and the designated
answer stays attached to its text: `correct` is where the designated choice landed. The stored
id is the content id (`generate.question_id`) for runs of this version; for older runs it is
the slot's id, so their questions are shown as they were then.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from verstehen.methods.imagination.records import UsableQuestion
from verstehen.prompts import prompt, template

LETTERS = "ABCDE"
METHODS = ("generate", "letter", "perplexity", "free")
VARIANTS = ("1", "2", "3", "4", "cot")


@dataclass(frozen=True)
class Shown:
    """A question as presented: stem, choices in shown order, index of the designated one."""

    stem: str
    choices: tuple[str, ...]
    correct: int
    order: tuple[int, ...]  # order[k] = index in the QM's native order of shown choice k

    @property
    def letters(self) -> list[str]:
        """The labels of the shown choices."""
        return list(LETTERS[: len(self.choices)])


def shuffle_order(question_id: str, seed: int) -> list[int]:
    """The seeded permutation of the four choices of one question."""
    key = int(hashlib.sha256(question_id.encode()).hexdigest()[:12], 16)
    return [int(i) for i in np.random.default_rng([seed, key]).permutation(4)]


def present(question: UsableQuestion, *, shuffle: bool, choice_e: bool, seed: int) -> Shown:
    """Shuffle (or not) the four choices and add the fifth "cannot be answered" one if asked."""
    key = question.get("stored_id", question["id"])
    order = shuffle_order(key, seed) if shuffle else [0, 1, 2, 3]
    choices = [question["choices"][i] for i in order]
    if choice_e:
        choices.append(template("imagination/choice_e"))
    return Shown(question["stem"], tuple(choices), order.index(question["answer"]),
                 tuple(order))


def choice_lines(shown: Shown, sep: str = ".") -> str:
    """One "A. text" line per shown choice."""
    return "\n".join(f"{label}{sep} {text}" for label, text in zip(shown.letters, shown.choices,
                                                                  strict=True))


def answer_prompt(shown: Shown, variant: str) -> str:
    """Table 4 with one of the Table 14 wordings."""
    letters = ", ".join(shown.letters[:-1]) + f" or {shown.letters[-1]}"
    return prompt("imagination/answer", instruction=template(f"imagination/answer_wording_"
                                                              f"{variant}"),
                  question=f"{shown.stem}\n{choice_lines(shown)}", letters=letters)


def letter_prompt(shown: Shown) -> str:
    """Section 3.5's plain prompt, scored by the next token after "Answer:"."""
    return prompt("imagination/letter", stem=shown.stem, choices=choice_lines(shown, ":"))


def judge_prompt(question: UsableQuestion, response: str) -> str:
    """Figure 21's judge prompt, with the choices in the QM's own order."""
    a, b, c, d = question["choices"]
    answer = question["answer"]
    return prompt("imagination/judge_free", stem=question["stem"], a=a, b=b, c=c, d=d,
                  letter=LETTERS[answer], correct=question["choices"][answer],
                  response=response.strip())


def am_label(model: str, *, method: str, variant: str, shuffle: bool, choice_e: bool) -> str:
    """The answer model's name with its configuration when it is not the paper's default."""
    tags = [method] if method != "generate" else []
    tags += [f"wording {variant}" if variant != "cot" else "cot"] if variant != "1" else []
    tags += [] if shuffle else ["native order"]
    tags += ["choice E"] if choice_e else []
    return f"{model} [{', '.join(tags)}]" if tags else model
