"""Random positive and negative instances of the poetic forms, from a numpy Generator.

Lines are random walks through a small part-of-speech grammar (`lexicon.GRAMMAR`) that take
only words fitting the target (a syllable count, or a meter with no stress mismatch), so they
read as natural-ish phrases ("the quiet river sleeps beneath the moon"). Positives fit by
construction; every negative is checked to fail its checker (and redrawn when it does not).
Negatives are near misses: one line a syllable off, a fourth line, one broken rhyme, one line
out of meter, a perfect rhyme offered as a slant rhyme, and so on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import cache
from typing import TypeVar

import numpy as np

from verstehen.domains.poetry.checks import (
    is_anapestic,
    is_haiku,
    is_iambic_pentameter,
    is_shakespearean_sonnet,
)
from verstehen.domains.poetry.lexicon import (
    AMPHIBRACHIC,
    ANAPESTIC,
    GRAMMAR,
    IAMBIC,
    METERS,
    TROCHAIC,
    Entry,
    Meter,
    lexicon,
)
from verstehen.domains.poetry.pronounce import words
from verstehen.domains.poetry.rhyme import is_perfect_rhyme, skeleton, slant_rhyme

T = TypeVar("T")
TRIES = 500


def pick(rng: np.random.Generator, seq: Sequence[T]) -> T:
    """A uniformly random element of a non-empty sequence."""
    return seq[int(rng.random() * len(seq))]


def make_line(rng: np.random.Generator, length: int, meter: Meter | None = None,
              end: Entry | None = None, state: str = "start", offset: int = 0) -> list[str]:
    """Words of a grammatical line of `length` syllables, fitting `meter` when given, and
    ending with `end` when given (the caller makes sure `end` fits there). `state` and
    `offset` continue a line: the tag of the word before and the syllables before it."""
    body = length - (len(end.cls) if end else 0)
    end_tag = end.tag if end else None
    mname, period = (meter.name, meter.period) if meter else ("", 1)
    pos = 0
    out: list[str] = []
    draws = rng.random(2 * length + 2).tolist()  # one batch: a tag and a word per step
    for step in range(length + 1):
        opts = _options(mname, state, (offset + pos) % period, body - pos, end_tag)
        if not opts:
            break
        tag, ws, sizes = opts[int(draws[2 * step] * len(opts))]  # repeated tags weigh more
        if tag == "end":
            return out
        if tag == "final":
            return [*out, end.word] if end else out
        k = int(draws[2 * step + 1] * len(ws))
        out.append(ws[k])
        pos, state = pos + sizes[k], tag
    raise RuntimeError(f"no line of {length} syllables found")


Option = tuple[str, tuple[str, ...], tuple[int, ...]]


@cache
def _options(meter: str, state: str, phase: int, rem: int, end_tag: str | None
             ) -> tuple[Option, ...]:
    """The next steps from a walk state that can still finish: (tag, words, their syllables)."""
    if rem == 0:
        if end_tag is None:
            return (("end", (), ()),) if "end" in GRAMMAR[state] else ()
        return (("final", (), ()),) if end_tag in GRAMMAR[state] else ()
    period = {m.name: m.period for m in METERS}.get(meter, 1)
    out = []
    for tag in GRAMMAR[state]:
        if tag == "end":
            continue
        ws: list[str] = []
        sizes: list[int] = []
        for n in range(1, min(4, rem) + 1):
            found = _words(meter, tag, phase, n)
            if found and _options(meter, tag, (phase + n) % period, rem - n, end_tag):
                ws += found
                sizes += [n] * len(found)
        if ws:
            out.append((tag, tuple(ws), tuple(sizes)))
    return tuple(out)


def _words(meter: str, tag: str, phase: int, n: int) -> tuple[str, ...]:
    lex = lexicon()
    if not meter:
        return lex.by_syllables.get((tag, n), ())
    return lex.by_meter.get((meter, tag, phase, n), ())


def line_with(rng: np.random.Generator, length: int, word: Entry, meter: Meter | None = None,
              end: Entry | None = None) -> list[str]:
    """Words of a line like `make_line`'s that has `word` in it, where the grammar lets it
    stand and (given a meter) where it fits with no stress mismatch, or failing that, in the
    iambic meter, with only an unstressed syllable on a beat ("a VI-o-LIN", which iambic
    scansion allows); RuntimeError if nowhere."""
    tail = len(end.cls) if end else 0
    size = len(word.cls)
    places = range(size, length - tail + 1)
    fits = [k for k in places if meter is None or meter.fits(word.cls, k - size)]
    loose = [k for k in places if meter is IAMBIC and k not in fits
             and _stresses_on_beats(word.cls, k - size)]
    for k in [*rng.permutation(fits).tolist(), *rng.permutation(loose).tolist()]:
        try:
            if k == length:
                return make_line(rng, length, meter, word)
            head = make_line(rng, k, meter, word)
            return head + make_line(rng, length - k, meter, end, state=word.tag, offset=k)
        except RuntimeError:
            continue
    raise RuntimeError(f'no line of {length} syllables has "{word.word}" in it')


def _stresses_on_beats(cls: str, start: int) -> bool:
    """Whether every stressed syllable of a word starting at `start` falls on an iambic beat."""
    return all(ch != "S" or (start + i) % 2 == 1 for i, ch in enumerate(cls))


def _text(line: list[str]) -> str:
    s = " ".join(line)
    return s[:1].upper() + s[1:]


def until(rng: np.random.Generator, make: Callable[[np.random.Generator], T],
          good: Callable[[T], bool]) -> T:
    """Draw from `make` until `good` holds (a bounded number of tries)."""
    for _ in range(TRIES):
        x = make(rng)
        if good(x):
            return x
    raise RuntimeError("no instance satisfied the condition")


# ---------------------------------------------------------------- haiku


def haiku(rng: np.random.Generator, counts: Sequence[int] = (5, 7, 5)) -> str:
    """A poem with lines of the given syllable counts (a haiku by default)."""
    return "\n".join(_text(make_line(rng, n)) for n in counts)


def haiku_with(rng: np.random.Generator, word: Entry) -> str:
    """A haiku with `word` in one of its lines."""
    counts = (5, 7, 5)
    for k in rng.permutation(3).tolist():
        try:
            line = line_with(rng, counts[k], word)
        except RuntimeError:
            continue
        return "\n".join(_text(line if i == k else make_line(rng, n))
                         for i, n in enumerate(counts))
    raise RuntimeError(f'no haiku line has "{word.word}" in it')


def haiku_negative(rng: np.random.Generator) -> str:
    """A near-miss haiku: one line a syllable short or long, or 2 or 4 lines."""
    kind = pick(rng, ("off", "off", "off", "lines"))
    counts = [5, 7, 5]
    if kind == "off":
        counts[int(rng.random() * 3)] += pick(rng, (-1, 1))
    elif rng.random() < 0.5:
        counts.insert(int(rng.random() * 4), pick(rng, (5, 7)))
    else:
        del counts[int(rng.random() * 3)]
    text = haiku(rng, counts)
    assert not is_haiku(text).ok
    return text


# ---------------------------------------------------------------- rhymes and slant rhymes


@cache
def _end_groups() -> tuple[tuple[Entry, ...], ...]:
    """Rhyme groups of words that may end an iambic line (nouns, verbs, adverbs)."""
    return tuple(g for g in (
        tuple(e for e in group if e.tag != "adj" and IAMBIC.fits(e.cls, 10 - len(e.cls)))
        for group in lexicon().rhyme_groups.values()) if _pairs_of(g))


@cache
def _pairs_of(group: tuple[Entry, ...]) -> tuple[tuple[Entry, Entry], ...]:
    """The ordered pairs of different words of a group that rhyme perfectly."""
    return tuple((a, b) for a in group for b in group if is_perfect_rhyme(a.word, b.word))


@cache
def _all_groups() -> tuple[tuple[Entry, ...], ...]:
    return tuple(g for g in lexicon().rhyme_groups.values() if _pairs_of(g))


def rhyme_pair(rng: np.random.Generator, groups: Sequence[tuple[Entry, ...]] | None = None
               ) -> tuple[Entry, Entry]:
    """Two different words that rhyme perfectly (from one of `groups`, all groups by default)."""
    return pick(rng, _pairs_of(pick(rng, groups or _all_groups())))


@cache
def _slant_groups() -> tuple[tuple[str, ...], ...]:
    by: dict[object, list[str]] = defaultdict(list)
    for e in lexicon().entries:
        if e.tail and e.tag in ("noun", "adj", "verb", "adv"):
            vowels, codas = skeleton(e.tail)
            by["v", vowels].append(e.word)
            if codas[-1]:
                by["c", codas].append(e.word)
    return tuple(tuple(ws) for ws in by.values() if len(ws) >= 2)


def slant_pair(rng: np.random.Generator) -> tuple[str, str]:
    """Two words that form a slant rhyme (assonance or consonance)."""
    groups = _slant_groups()
    for _ in range(TRIES):
        g = pick(rng, groups)
        a, b = pick(rng, g), pick(rng, g)
        if slant_rhyme(a, b):
            return a, b
    raise RuntimeError("no slant pair found")


def unrelated_pair(rng: np.random.Generator) -> tuple[str, str]:
    """Two content words that neither rhyme perfectly nor slant-rhyme."""
    words = [e.word for e in lexicon().entries if e.tail and e.tag in ("noun", "adj", "verb")]
    return until(rng, lambda r: (pick(r, words), pick(r, words)),
                 lambda p: p[0] != p[1] and not is_perfect_rhyme(*p) and not slant_rhyme(*p))


@cache
def content_words() -> tuple[str, ...]:
    """The vocabulary's nouns, adjectives, verbs and adverbs with a known rhyme part."""
    return tuple(dict.fromkeys(e.word for e in lexicon().entries
                               if e.tail and e.tag in ("noun", "adj", "verb", "adv")))


def partner(rng: np.random.Generator, word: str, related: Callable[[str, str], bool]
            ) -> str | None:
    """A vocabulary word w other than `word` with `related(word, w)`, or None if there is none."""
    pool = content_words()
    order: list[int] = rng.permutation(len(pool)).tolist()
    for k in order:  # the first in a random order: uniform
        if pool[k] != word and related(word, pool[k]):
            return pool[k]
    return None


def pair_text(a: str, b: str) -> str:
    """A word pair as the benchmark writes it: '"Glow" and "leather"'."""
    return f'"{a.capitalize()}" and "{b}"'


# ---------------------------------------------------------------- iambic pentameter, sonnets


def iambic_line(rng: np.random.Generator, end: Entry | None = None) -> str:
    """A line of iambic pentameter with no stress mismatch."""
    return _text(make_line(rng, 10, IAMBIC, end))


def iambic_negative(rng: np.random.Generator, end: Entry | None = None) -> str:
    """A near miss: 9 or 11 syllables, or trochaic stresses, otherwise like `iambic_line`."""
    def make(r: np.random.Generator) -> str:
        if r.random() < 0.5:
            return _text(make_line(r, pick(r, (9, 11)), IAMBIC, end))
        return _text(make_line(r, 10, TROCHAIC, end))
    return until(rng, make, lambda s: not is_iambic_pentameter(s).ok)


def sonnet(rng: np.random.Generator, word: Entry | None = None) -> str:
    """A Shakespearean sonnet: 14 iambic lines rhyming ABAB CDCD EFEF GG on 7 distinct sounds,
    one of them with `word` in it when given."""
    ends = _sonnet_ends(rng)
    lines = [iambic_line(rng, e) for e in ends]
    if word is not None:
        for k in rng.permutation(14).tolist():
            try:
                lines[k] = _text(line_with(rng, 10, word, IAMBIC, ends[k]))
                break
            except RuntimeError:
                continue
        else:
            raise RuntimeError(f'no sonnet line has "{word.word}" in it')
    return "\n".join(lines)


def _sonnet_ends(rng: np.random.Generator) -> list[Entry]:
    groups = _end_groups()
    chosen = rng.choice(len(groups), size=7, replace=False)
    pairs = [rhyme_pair(rng, [groups[int(i)]]) for i in chosen]
    ends: list[Entry] = [pairs[0][0]] * 14
    order = "ABABCDCDEFEFGG"
    used: dict[str, int] = defaultdict(int)
    for k, letter in enumerate(order):
        p = pairs[ord(letter) - ord("A")]
        ends[k] = p[used[letter]]
        used[letter] += 1
    return ends


def sonnet_negative(rng: np.random.Generator) -> str:
    """A sonnet with one defect: a broken rhyme, a line out of meter, or 13 or 15 lines."""
    def make(r: np.random.Generator) -> str:
        lines = sonnet(r).split("\n")
        kind = pick(r, ("rhyme", "meter", "lines"))
        k = int(r.random() * 14)
        if kind == "rhyme":
            lines[k] = iambic_line(r, pick(r, pick(r, _end_groups())))
        elif kind == "meter":
            lines[k] = iambic_negative(r, lexicon().by_word[words(lines[k])[-1]])
        elif r.random() < 0.5:
            del lines[k]
        else:
            lines.insert(k, iambic_line(r))
        return "\n".join(lines)
    return until(rng, make, lambda s: not is_shakespearean_sonnet(s).ok)


# ---------------------------------------------------------------- anapests


def anapestic_phrase(rng: np.random.Generator, feet: int) -> str:
    """A phrase of `feet` anapests (da-da-DUM) with no stress mismatch."""
    return _text(make_line(rng, 3 * feet, ANAPESTIC))


def anapest_negative(rng: np.random.Generator, feet: int) -> str:
    """A near miss: an extra final syllable, a missing first one, or da-DUM-da stresses."""
    def make(r: np.random.Generator) -> str:
        meter, n = pick(r, ((ANAPESTIC, 3 * feet + 1), (AMPHIBRACHIC, 3 * feet - 1),
                            (AMPHIBRACHIC, 3 * feet)))
        return _text(make_line(r, n, meter))
    return until(rng, make, lambda s: not is_anapestic(s).ok)
