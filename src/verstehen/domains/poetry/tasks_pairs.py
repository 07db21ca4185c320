"""The word-pair concepts: perfect rhyme and slant rhyme, shown as '"Glow" and "leather"'."""

from __future__ import annotations

import re

import numpy as np

from verstehen.domains.poetry import generate as gen
from verstehen.domains.poetry.checks import Verdict, perfect_rhyme, slant
from verstehen.domains.poetry.extract import extract_pair, extract_word, extract_words
from verstehen.domains.poetry.pronounce import words
from verstehen.domains.poetry.task_base import (
    MaskedExample,
    PoetryConcept,
    WordConstraint,
    verdict_grade,
)
from verstehen.grading import Graded

_PAIR_RE = re.compile(r'^\s*"([^"]*)"\s+and\s+"([^"]*)"\s*$')
_ONE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")


def read_pair(text: str) -> tuple[str, str] | None:
    """The two words of '"a" and "b"', or None when the text is not such a pair of words."""
    m = _PAIR_RE.match(text)
    if not m or not all(len(words(g)) == 1 for g in m.groups()):
        return None
    return m.group(1), m.group(2)


class PairConcept(PoetryConcept[WordConstraint]):
    """Shared: a word pair checked by `relation`; generate asks for a partner of a word."""

    instance_request = ('Write only the pair of words, on one line, as two single words in '
                        'double quotes joined by "and", like "word1" and "word2".')

    def read_instance(self, reply: str) -> tuple[str | None, str]:
        """The word pair a reply gives (`extract_pair`), written "a" and "b", or why none."""
        pair = extract_pair(reply)
        if isinstance(pair, str):
            return None, pair
        return f'"{pair[0]}" and "{pair[1]}"', ""

    def relation(self, a: str, b: str) -> Verdict:
        """The checker on two words."""
        raise NotImplementedError

    def pair(self, rng: np.random.Generator) -> tuple[str, str]:
        """A positive pair."""
        raise NotImplementedError

    def non_partner(self, rng: np.random.Generator, word: str) -> str:
        """A word that does not stand in the relation to `word`."""
        raise NotImplementedError

    def positive(self, rng: np.random.Generator) -> str:
        """A positive pair as text."""
        return gen.pair_text(*self.pair(rng))

    def check(self, text: str) -> Verdict:
        """The relation on the two quoted words of the text."""
        p = read_pair(text)
        if p is None:
            return Verdict(False, 'not a pair of single words written "a" and "b"')
        return self.relation(*p)

    def fill_problem(self, fill: str) -> str | None:
        """A blank in a word pair takes exactly one word."""
        return None if _ONE_WORD_RE.fullmatch(fill) else "the replacement is not one word"

    def generate_data(self, rng: np.random.Generator) -> WordConstraint:
        """A word that has a partner in the vocabulary."""
        return {"word": self.pair(rng)[0]}

    def grade_generate(self, data: WordConstraint, reply: str) -> Graded:
        """One word, other than the given one, standing in the relation to it."""
        w = extract_word(reply)
        if w is None:
            words_given = extract_words(reply)
            if words_given is not None:
                return Graded(0.0, "wrong", words_given,
                              f"{len(words(words_given))} words, where one word was asked for")
            return Graded(0.0, "unparsed", None, "no single word found in the reply")
        if words(w) == words(data["word"]):
            return Graded(0.0, "wrong", w, f'the given word "{data["word"]}" itself, not '
                                           "another word")
        return verdict_grade(self.relation(data["word"], w), w)

    def generate_reference(self, data: WordConstraint, rng: np.random.Generator) -> str:
        """A vocabulary word standing in the relation to the given word."""
        found = gen.partner(rng, data["word"], lambda a, b: self.relation(a, b).ok)
        if found is None:
            raise ValueError(f'no word in the vocabulary is {self.noun_phrase} of "{data["word"]}"')
        return found

    def edit_data(self, rng: np.random.Generator, make_instance: bool) -> MaskedExample:
        """A positive pair with one word blanked."""
        a, b = self.pair(rng)
        first = rng.random() < 0.5
        kept, hidden = (b, a) if first else (a, b)
        solution = hidden if make_instance else self.non_partner(rng, kept)
        masked = gen.pair_text("_", kept) if first else gen.pair_text(kept, "_")
        return {"masked": masked, "solution": solution}


class PerfectRhyme(PairConcept):
    """poetry/rhyme: two words that rhyme perfectly (see `rhyme`)."""

    key, name, title = "poetry/rhyme", "perfect rhyme", "Perfect Rhyme"
    noun_phrase = "a perfect rhyme"

    def relation(self, a: str, b: str) -> Verdict:
        """`perfect_rhyme`."""
        return perfect_rhyme(a.lower(), b.lower())

    def pair(self, rng: np.random.Generator) -> tuple[str, str]:
        """Two words rhyming perfectly."""
        a, b = gen.rhyme_pair(rng)
        return a.word, b.word

    def negative(self, rng: np.random.Generator) -> str:
        """A slant rhyme or an unrelated pair."""
        pair = gen.slant_pair(rng) if rng.random() < 0.5 else gen.unrelated_pair(rng)
        return gen.pair_text(*pair)

    def non_partner(self, rng: np.random.Generator, word: str) -> str:
        """A word that does not rhyme with `word`."""
        return gen.until(rng, lambda r: gen.unrelated_pair(r)[0],
                         lambda w: not perfect_rhyme(word, w).ok)

    def generate_prompt(self, data: WordConstraint, phrasing: int) -> str:
        """Ask for a perfect rhyme of the word."""
        if phrasing == 0:
            return (f"Generate an instance of the concept Perfect Rhyme: a word that rhymes "
                    f'perfectly with "{data["word"]}". Reply with only that word.')
        return (f'Give one word that rhymes perfectly with "{data["word"]}". '
                "Reply with only the word.")


class SlantRhyme(PairConcept):
    """poetry/slant-rhyme: two words that rhyme by assonance or consonance only."""

    key, name, title = "poetry/slant-rhyme", "slant rhyme", "Slant Rhyme"
    noun_phrase = "a slant rhyme"

    def relation(self, a: str, b: str) -> Verdict:
        """`slant`."""
        return slant(a.lower(), b.lower())

    def pair(self, rng: np.random.Generator) -> tuple[str, str]:
        """Two words forming a slant rhyme."""
        return gen.slant_pair(rng)

    def negative(self, rng: np.random.Generator) -> str:
        """A perfect rhyme or an unrelated pair."""
        if rng.random() < 0.5:
            a, b = gen.rhyme_pair(rng)
            return gen.pair_text(a.word, b.word)
        return gen.pair_text(*gen.unrelated_pair(rng))

    def non_partner(self, rng: np.random.Generator, word: str) -> str:
        """A word that is not a slant rhyme of `word`."""
        return gen.until(rng, lambda r: gen.unrelated_pair(r)[0],
                         lambda w: not slant(word, w).ok)

    def generate_prompt(self, data: WordConstraint, phrasing: int) -> str:
        """Ask for a slant rhyme of the word."""
        if phrasing == 0:
            return (f"Generate an instance of the concept Slant Rhyme: a word that forms a slant "
                    f'rhyme with "{data["word"]}". Reply with only that word.')
        return (f'Give one word that is a slant rhyme for "{data["word"]}". '
                "Reply with only the word.")
