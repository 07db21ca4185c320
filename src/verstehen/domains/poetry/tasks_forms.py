"""The poem and line concepts: haiku, Shakespearean sonnet, iambic pentameter, anapest."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TypedDict

import numpy as np

from verstehen.domains.poetry import generate as gen
from verstehen.domains.poetry.checks import (
    Verdict,
    is_anapestic,
    is_haiku,
    is_iambic_pentameter,
    is_shakespearean_sonnet,
    poem_lines,
)
from verstehen.domains.poetry.conditions import ends_with_word, uses_word
from verstehen.domains.poetry.extract import extract_poem
from verstehen.domains.poetry.lexicon import Entry, lexicon
from verstehen.domains.poetry.meter import anapestic, word_classes
from verstehen.domains.poetry.pronounce import words
from verstehen.domains.poetry.task_base import (
    GenerateT,
    MaskedExample,
    PoetryConcept,
    WordConstraint,
    estimate_note,
    verdict_grade,
    word_spans,
)
from verstehen.grading import Graded
from verstehen.reading import ends_inside_reasoning
from verstehen.text.tables import plural


class FeetConstraint(TypedDict):
    """An anapest generate item's data: the number of feet asked for."""

    feet: int


@cache
def fill_words() -> tuple[str, ...]:
    """Content words to try as blank replacements that break an instance."""
    return tuple(e.word for e in lexicon().entries if e.tag in ("noun", "adj", "verb", "adv"))


@cache
def _nouns() -> tuple[str, ...]:
    return tuple(e.word for e in lexicon().entries if e.tag == "noun")


@cache
def _end_words() -> tuple[str, ...]:
    return tuple(e.word for g in gen._end_groups() for e in g)


def entry_of(word: str, tags: Sequence[str] = ("noun",)) -> Entry:
    """The lexicon entry of a word, preferring the given parts of speech; a word the lexicon
    lacks gets one from its pronunciation (a noun, when its variants agree on stress)."""
    found = [e for e in lexicon().entries if e.word == word]
    for e in sorted(found, key=lambda e: e.tag not in tags):
        return e
    classes = word_classes(word)
    if len(classes) != 1:
        raise ValueError(f'"{word}" has no single stress pattern to build a line with')
    return Entry(word, tags[0], next(iter(classes)), None)


def _poem_or_unparsed(reply: str) -> str | Graded:
    poem = extract_poem(reply)
    if poem is None:
        why = ("the reply ends inside its reasoning block (<think> is never closed)"
               if ends_inside_reasoning(reply) else "no poem found in the reply")
        return Graded(0.0, "unparsed", None, why)
    return poem


class _Form(PoetryConcept[WordConstraint]):
    """A concept whose generate task asks for a text with a required word."""

    def _grade_with_word(self, data: WordConstraint, reply: str) -> Graded:
        poem = _poem_or_unparsed(reply)
        if isinstance(poem, Graded):
            return poem
        if not uses_word(poem, data["word"]):
            return Graded(0.0, "wrong", poem, f'does not use the word "{data["word"]}"')
        return verdict_grade(self.check(poem), poem)

    def _edit_by_word(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        while True:
            found = self.mask_word(rng, self.positive(rng), make_instance, fill_words())
            if found:
                return found


class Haiku(_Form):
    """poetry/haiku: 3 lines of 5, 7, 5 syllables."""

    key, name, title, noun_phrase = "poetry/haiku", "haiku", "Haiku", "a haiku"

    def positive(self, rng: np.random.Generator) -> str:
        """A random haiku."""
        return gen.haiku(rng)

    def negative(self, rng: np.random.Generator) -> str:
        """A near-miss haiku."""
        return gen.haiku_negative(rng)

    def check(self, text: str) -> Verdict:
        """`is_haiku`."""
        return is_haiku(text)

    def generate_data(self, rng: np.random.Generator) -> WordConstraint:
        """A word the haiku must use."""
        return {"word": gen.pick(rng, _nouns())}

    def generate_prompt(self, data: WordConstraint, phrasing: int) -> str:
        """Ask for a haiku using the word."""
        if phrasing == 0:  # the benchmark's generate prompt, without theme and form
            return ("Generate an instance of the concept Haiku. "
                    f"It must include the word {data['word']}.")
        return f'Write a haiku that uses the word "{data["word"]}". Reply with only the poem.'

    def grade_generate(self, data: WordConstraint, reply: str) -> Graded:
        """A haiku that uses the word."""
        return self._grade_with_word(data, reply)

    def generate_reference(self, data: WordConstraint, rng: np.random.Generator) -> str:
        """A haiku with the word at the end of one of its lines."""
        return gen.haiku_with(rng, entry_of(data["word"]))

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """A haiku with one word blanked."""
        return self._edit_by_word(rng, make_instance)


class ShakespeareanSonnet(_Form):
    """poetry/shakespearean-sonnet: 14 lines, ABAB CDCD EFEF GG, iambic pentameter."""

    key, name, title = "poetry/shakespearean-sonnet", "Shakespearean sonnet", "Shakespearean Sonnet"
    noun_phrase = "a Shakespearean sonnet"

    def positive(self, rng: np.random.Generator) -> str:
        """A random sonnet."""
        return gen.sonnet(rng)

    def negative(self, rng: np.random.Generator) -> str:
        """A sonnet with one defect."""
        return gen.sonnet_negative(rng)

    def check(self, text: str) -> Verdict:
        """`is_shakespearean_sonnet` with its default tolerances."""
        return is_shakespearean_sonnet(text)

    def generate_data(self, rng: np.random.Generator) -> WordConstraint:
        """A word the sonnet must use."""
        return {"word": gen.pick(rng, _nouns())}

    def generate_prompt(self, data: WordConstraint, phrasing: int) -> str:
        """Ask for a sonnet using the word."""
        if phrasing == 0:  # the benchmark's generate prompt, without theme and form
            return ("Generate an instance of the concept Shakespearean Sonnet. "
                    f"It must include the word {data['word']}.")
        return (f'Write a Shakespearean sonnet that uses the word "{data["word"]}". '
                "Reply with only the poem.")

    def grade_generate(self, data: WordConstraint, reply: str) -> Graded:
        """A sonnet that uses the word."""
        return self._grade_with_word(data, reply)

    def generate_reference(self, data: WordConstraint, rng: np.random.Generator) -> str:
        """A sonnet with the word inside one of its lines."""
        return gen.sonnet(rng, entry_of(data["word"]))

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """A sonnet with one line, or one line's last word, blanked."""
        while True:
            text = self.positive(rng)
            lines = text.split("\n")
            k = int(rng.random() * 14)
            if rng.random() < 0.5:
                solution = lines[k]
                if not make_instance:
                    end = lexicon().by_word[words(lines[k])[-1]]
                    solution = gen.iambic_negative(rng, end)
                masked = "\n".join([*lines[:k], "_", *lines[k + 1:]])
                if self.check(masked.replace("_", solution, 1)).ok == make_instance:
                    return {"masked": masked, "solution": solution}
                continue
            start = sum(len(x) + 1 for x in lines[:k])
            span = word_spans(lines[k])[-1]
            spans = [(start + span[0], start + span[1])]
            if found := self.mask_word(rng, text, make_instance, fill_words(), spans):
                return found


class _Line(PoetryConcept[GenerateT]):
    """A one-line concept (meter) whose generate task asks for a single line."""

    instance_request = "Write only the word, phrase or line, on a single line."

    def _single_line(self, reply: str) -> str | Graded:
        poem = _poem_or_unparsed(reply)
        if isinstance(poem, Graded):
            return poem
        lines = poem_lines(poem)
        if len(lines) != 1:
            return Graded(0.0, "wrong", poem, f"{len(lines)} lines, not 1")
        return lines[0]


class IambicPentameter(_Line[WordConstraint]):
    """poetry/iambic-pentameter: one line of da-DUM x5 (see `meter`)."""

    key, name, title = "poetry/iambic-pentameter", "iambic pentameter", "Iambic Pentameter"
    noun_phrase = "a line of iambic pentameter"

    def positive(self, rng: np.random.Generator) -> str:
        """A random iambic line."""
        return gen.iambic_line(rng)

    def negative(self, rng: np.random.Generator) -> str:
        """A near-miss line."""
        return gen.iambic_negative(rng)

    def check(self, text: str) -> Verdict:
        """`is_iambic_pentameter` with its default tolerance."""
        return is_iambic_pentameter(text)

    def generate_data(self, rng: np.random.Generator) -> WordConstraint:
        """The word the line must end with."""
        return {"word": gen.pick(rng, _end_words())}

    def generate_prompt(self, data: WordConstraint, phrasing: int) -> str:
        """Ask for a line ending with the word."""
        w = data["word"]
        if phrasing == 0:
            return (f"Generate an instance of the concept Iambic Pentameter: one line that ends "
                    f'with the word "{w}". Reply with only the line.')
        return (f'Write a single line of iambic pentameter ending in the word "{w}". '
                "Reply with only the line.")

    def grade_generate(self, data: WordConstraint, reply: str) -> Graded:
        """One iambic line ending with the word."""
        line = self._single_line(reply)
        if isinstance(line, Graded):
            return line
        if not ends_with_word(line, data["word"]):
            return Graded(0.0, "wrong", line, f'does not end with the word "{data["word"]}"')
        return verdict_grade(self.check(line), line)

    def generate_reference(self, data: WordConstraint, rng: np.random.Generator) -> str:
        """An iambic line ending with the word."""
        return gen.iambic_line(rng, entry_of(data["word"], ("noun", "verb", "adv")))

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """An iambic line with one word blanked."""
        while True:
            found = self.mask_word(rng, self.positive(rng), make_instance, fill_words())
            if found:
                return found


class Anapest(_Line[FeetConstraint]):
    """poetry/anapest: a word, phrase or line of da-da-DUM feet (see `meter`)."""

    key, name, title = "poetry/anapest", "anapest", "Anapest"
    noun_phrase = "an anapest (a word or phrase in anapestic meter)"

    def positive(self, rng: np.random.Generator) -> str:
        """A random anapestic phrase of 1 to 4 feet."""
        return gen.anapestic_phrase(rng, 1 + int(rng.random() * 4))

    def negative(self, rng: np.random.Generator) -> str:
        """A near-miss phrase of 1 to 4 feet."""
        return gen.anapest_negative(rng, 1 + int(rng.random() * 4))

    def check(self, text: str) -> Verdict:
        """`is_anapestic` (any number of feet)."""
        return is_anapestic(text)

    def generate_data(self, rng: np.random.Generator) -> FeetConstraint:
        """The number of feet."""
        return {"feet": 1 + int(rng.random() * 4)}

    def generate_prompt(self, data: FeetConstraint, phrasing: int) -> str:
        """Ask for a phrase of that many anapests."""
        k = data["feet"]
        feet = f"exactly {k} {'foot' if k == 1 else 'feet'}"
        if phrasing == 0:
            return (f"Generate an instance of the concept Anapest: a word or phrase of {feet}. "
                    "Reply with only the word or phrase.")
        return f"Write a phrase in anapestic meter with {feet}. Reply with only the phrase."

    def grade_generate(self, data: FeetConstraint, reply: str) -> Graded:
        """A one-line phrase of exactly that many anapests."""
        line = self._single_line(reply)
        if isinstance(line, Graded):
            return line
        asked = is_anapestic(line, feet=data["feet"])
        some = anapestic(line)
        if not asked.ok and some.ok and some.fit is not None:
            k, got = data["feet"], some.fit.syllables // 3
            return Graded(0.0, "wrong", line,
                          f"{plural(got, 'anapestic foot', 'anapestic feet')}, not exactly "
                          f"{plural(k, 'foot', 'feet')} ({some.reason})"
                          + estimate_note(asked))
        return verdict_grade(asked, line)

    def generate_reference(self, data: FeetConstraint, rng: np.random.Generator) -> str:
        """An anapestic phrase of that many feet."""
        return gen.anapestic_phrase(rng, data["feet"])

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """An anapestic phrase with one word blanked."""
        while True:
            found = self.mask_word(rng, self.positive(rng), make_instance, fill_words())
            if found:
                return found
