"""Shared machinery of the poetry concepts: prompts, classify items, edit grading.

Prompts. Phrasing 0 follows the Potemkin benchmark's published prompts (PotemkinBenchmark
`classify/questions.csv`, `generate/questions.csv`, `edit/questions.csv`), without the theme and
form constraints of its generate prompts, which no program can check; phrasing 1 is ours. Both
phrasings of an item carry the same example, constraint and blank.

Grading. Classify: `grade_yes_no`. Generate: the poem, line or word is read from the reply
(`extract`); nothing readable -> 0 "unparsed"; a missed constraint or a failed check -> 0
"wrong"; else 1 "correct". Edit: the reply is the blank's replacement (`extract.extract_fill`),
put in place of the "_" and checked; the result must be (or not be) an instance. Scores are 1 or
0. A reason says when the verdict relied on estimated pronunciations.

Conditions. Every condition a prompt states is graded, each wrong answer's reason names it, and
nothing else is: haiku and sonnet, the form and the asked word (`conditions.uses_word`: the
word, its possessive, or in a hyphenated compound); iambic pentameter, the form, one line, and
its last word; anapest, the meter, exactly k feet, one line (a word or phrase); perfect and slant
rhyme, one word (two or three words are "wrong", more is no answer) other than the given one,
standing in the relation to it; edit, that the filled text is (or is not) an instance. "Reply
with only ..." and "Include only the text that should replace the blank" say what to write, not
what the answer must be: a reply is read at its answer, and commentary around it costs nothing.
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Mapping, Sequence
from typing import Generic, TypedDict, TypeVar, cast

import numpy as np

from verstehen.domains.base import (
    LONG_ANSWER_TOKENS,
    SHORT_ANSWER_TOKENS,
    InstanceCheck,
    Item,
    grade_yes_no,
    unreadable,
    yes_no_reference,
)
from verstehen.domains.poetry.checks import Verdict
from verstehen.domains.poetry.extract import extract_fill, extract_poem, why_no_fill
from verstehen.grading import Graded
from verstehen.parse import is_idk

_WORD_SPAN_RE = re.compile(r"[A-Za-z][A-Za-z']*")
TRIES = 200


def estimate_note(verdict: Verdict) -> str:
    """ " (estimated pronunciation: w1, w2)" when the verdict relied on estimates, else ""."""
    if not verdict.estimated_words:
        return ""
    return f" (estimated pronunciation: {', '.join(verdict.estimated_words)})"


def verdict_grade(verdict: Verdict, parsed: str, want: bool = True) -> Graded:
    """1 "correct" when the checker's verdict is `want`, else 0 "wrong"; the reason explains."""
    note = estimate_note(verdict)
    if verdict.ok == want:
        return Graded(1.0, "correct", parsed, verdict.reason + note)
    prefix = "" if want else "still an instance: "
    return Graded(0.0, "wrong", parsed, prefix + verdict.reason + note)


class ExampleData(TypedDict):
    """A classify item's data: the example whose instancehood is the answer."""

    example: str


class WordConstraint(TypedDict):
    """A generate item's data when it names a word the reply must use (or end with, or rhyme
    with)."""

    word: str


class MaskedExample(TypedDict):
    """An example with one blank "_", and a replacement for it that is known to work."""

    masked: str
    solution: str


class MaskedEditData(MaskedExample):
    """An edit item's data: the masked example, and whether the filled text is to be an
    instance."""

    make_instance: bool


# a concept's generate-item data (JSON): `WordConstraint`, `tasks_forms.FeetConstraint`
GenerateT = TypeVar("GenerateT", bound=Mapping[str, object])


def word_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word in a text."""
    return [m.span() for m in _WORD_SPAN_RE.finditer(text)]


class PoetryConcept(Generic[GenerateT]):
    """Shared machinery of the poetry concepts: rendering, classify items, edit grading.

    A subclass sets `key`, `name`, `title` (the benchmark's name), `noun_phrase`, and
    implements `positive`, `negative`, `check`, `generate_data`,
    `generate_prompt`, `grade_generate`, `generate_reference` and `edit_data`, typed by the
    data of its generate items (`GenerateT`).
    """

    key: str
    name: str
    title: str
    noun_phrase: str
    phrasings = 2
    instance_request = "Write only the poem."  # what a prompt for an instance appends
    instance_tested = True

    # ------------------------------------------------------------ to implement
    def positive(self, rng: np.random.Generator) -> str:
        """A random instance."""
        raise NotImplementedError

    def negative(self, rng: np.random.Generator) -> str:
        """A random near miss."""
        raise NotImplementedError

    def check(self, text: str) -> Verdict:
        """The checker applied to a whole example text."""
        raise NotImplementedError

    def generate_data(self, rng: np.random.Generator) -> GenerateT:
        """The constraints of a generate item."""
        raise NotImplementedError

    def generate_prompt(self, data: GenerateT, phrasing: int) -> str:
        """The generate prompt in one phrasing."""
        raise NotImplementedError

    def grade_generate(self, data: GenerateT, reply: str) -> Graded:
        """Score a generate reply."""
        raise NotImplementedError

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """A masked example with a solution that is guaranteed to work."""
        raise NotImplementedError

    def generate_reference(self, data: GenerateT, rng: np.random.Generator) -> str:
        """A reply `grade_generate` scores 1, built from the lexicon under the constraints."""
        raise NotImplementedError

    def fill_problem(self, fill: str) -> str | None:
        """Why a blank's replacement cannot be read (None when it can)."""
        return None if re.search(r"[A-Za-z0-9]", fill) else "the replacement has no word"

    def read_instance(self, reply: str) -> tuple[str | None, str]:
        """The example a reply gives as an instance (`extract_poem`: a poem, line or phrase),
        or None and why there is none."""
        return extract_poem(reply), "no poem, line or phrase in the reply"

    def instance_check(self, text: str) -> InstanceCheck:
        """Whether a reply's example is an instance (the concept's own `check`); None when no
        example can be read, or when it fails and the reply professes not to know."""
        example, why_not = self.read_instance(text)
        if example is None:
            return unreadable(text, why_not)
        verdict = self.check(example)
        if not verdict.ok and is_idk(text):
            return InstanceCheck(None, "the reply professes not to know")
        return InstanceCheck(verdict.ok, verdict.reason + estimate_note(verdict))

    # ------------------------------------------------------------ the protocol
    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        """A yes/no item whose true answer is `positive`."""
        data: ExampleData = {"example": self.positive(rng) if positive else self.negative(rng)}
        return Item("classify", positive, dict(data))

    def generate_item(self, rng: np.random.Generator) -> Item:
        """Ask for a new instance under constraints drawn from rng."""
        return Item("generate", None, dict(self.generate_data(rng)))

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        """A masked example whose blank is to be filled to make (or unmake) an instance."""
        data: MaskedEditData = {**self.edit_data(rng, make_instance),
                                "make_instance": make_instance}
        return Item("edit", None, dict(data))

    # `Item.data` is the JSON one of the three methods above wrote, read back by its kind
    def _classify_data(self, item: Item) -> ExampleData:
        return cast(ExampleData, item.data)

    def _generate_data(self, item: Item) -> GenerateT:
        return cast(GenerateT, item.data)

    def _edit_data(self, item: Item) -> MaskedEditData:
        return cast(MaskedEditData, item.data)

    def render(self, item: Item, phrasing: int) -> str:
        """The prompt text of `item` in one phrasing; phrasings never change the content."""
        if not 0 <= phrasing < self.phrasings:
            raise ValueError(f"phrasing {phrasing} not in 0..{self.phrasings - 1}")
        if item.kind == "classify":
            example = self._classify_data(item)["example"]
            if phrasing == 0:  # the Potemkin benchmark's classify prompt
                return (f"Is the following example an instance of the concept {self.title}? "
                        f"Please answer with either 'ANSWER: Yes' or 'ANSWER: No'.\n\n"
                        f"{example}")
            return (f"Consider this example:\n\n{example}\n\n"
                    f"Is it {self.noun_phrase}? Reply with Yes or No.")
        if item.kind == "generate":
            return self.generate_prompt(self._generate_data(item), phrasing)
        d = self._edit_data(item)
        make = d["make_instance"]
        if phrasing == 0:  # the Potemkin benchmark's edit prompt
            goal = "a true instance" if make else "not an instance"
            return (f"In the following text, what could fill in the blank in so that the "
                    f"resultant text is {goal} of the following concept: {self.title}? "
                    f"Include only the text that should replace the blank.\n\n {d['masked']}")
        return (f"Fill in the blank (_) below so that the result {'is' if make else 'is not'} "
                f"{self.noun_phrase}. Include only the text that should replace the blank."
                f"\n\n{d['masked']}")

    def max_tokens(self, item: Item) -> int:
        """Enough answer tokens for the reply the prompt asks for."""
        return LONG_ANSWER_TOKENS if item.kind == "generate" else SHORT_ANSWER_TOKENS

    def grade(self, item: Item, reply: str) -> Graded:
        """Score a reply: 1 right, 0 wrong; unreadable replies are "unparsed" with a reason.

        A reply that professes not to know is "idk" when it fails, and also when it "succeeds"
        at breaking an instance (any words break a haiku, "I have no idea" included); a reply
        that makes an instance counts as one whatever words it starts with ("Unknown boat...").
        """
        if item.kind == "classify":
            return grade_yes_no(item, reply)
        graded = self._grade_use(item, reply)
        breaking = item.kind == "edit" and not self._edit_data(item)["make_instance"]
        if (graded.score == 0.0 or breaking) and is_idk(reply):
            return Graded(0.0, "idk", graded.parsed, "the reply professes not to know")
        return graded

    def _grade_use(self, item: Item, reply: str) -> Graded:
        if item.kind == "generate":
            return self.grade_generate(self._generate_data(item), reply)
        fill = extract_fill(reply)
        if fill is None:
            return Graded(0.0, "unparsed", None, why_no_fill(reply))
        if why := self.fill_problem(fill):
            return Graded(0.0, "unparsed", fill, why)
        d = self._edit_data(item)
        filled = d["masked"].replace("_", fill, 1)
        return verdict_grade(self.check(filled), fill, d["make_instance"])

    def reference(self, item: Item) -> str:
        """The right Yes/No, an instance built for a generate item (`generate_reference`, drawn
        from a generator seeded by the item), or an edit item's stored solution."""
        if item.kind == "classify":
            return yes_no_reference(item)
        if item.kind == "generate":
            seed = zlib.crc32(json.dumps(item.data, sort_keys=True).encode())
            return self.generate_reference(self._generate_data(item), np.random.default_rng(seed))
        return str(self._edit_data(item)["solution"])

    # ------------------------------------------------------------ helpers for subclasses
    def mask_word(self, rng: np.random.Generator, text: str, make_instance: bool,
                  candidates: Sequence[str], spans: list[tuple[int, int]] | None = None
                  ) -> MaskedExample | None:
        """Blank one word of a positive text; for `make_instance` False, find a candidate
        replacement that makes it fail. None when no candidate breaks it."""
        spans = spans or word_spans(text)
        s, e = spans[int(rng.random() * len(spans))]
        masked = text[:s] + "_" + text[e:]
        if make_instance:
            return {"masked": masked, "solution": text[s:e]}
        for _ in range(TRIES):
            cand = candidates[int(rng.random() * len(candidates))]
            if not self.check(masked.replace("_", cand, 1)).ok:
                return {"masked": masked, "solution": cand}
        return None
