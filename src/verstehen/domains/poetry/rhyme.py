"""Perfect, slant and loose rhymes between words, and the rhyme scheme of a poem.

Definitions (over every pair of pronunciation variants; stress digits are ignored in
comparisons, and a word without known phones rhymes with nothing):
- rhyme part (tail): the phones from the word's last stressed vowel (primary or secondary
  stress; the last vowel when none is stressed) to the end: "leather" -> EH DH ER.
- onset: the consonants just before the tail, back to the previous vowel ("brain" B R, "rain"
  R, "eye" none, "sky" S K); after the r-coloured vowel ER, its R too ("arise" R).
- perfect rhyme: identical tails and different onsets. So identical words and identical
  pronunciations ("air"/"heir", "day"/"today") are not rhymes; "eye"/"sky" and "brain"/"rain"
  are.
- slant rhyme: the words differ, no variant pair rhymes perfectly or is pronounced the same,
  and for some variant pair the tails have the same number of syllables and either
  (assonance) the same vowels with different consonants after them, or (consonance) the same
  consonants after each vowel (the final ones not empty), with different vowels. The
  r-colored vowel ER counts as a vowel followed by R, so "worm"/"swarm" (ER M / AO R M) are
  consonant; "mellow"/"lily" (no final consonant) are not.
  "shape"/"keep" is consonance; "glow"/"leather" (one-syllable tail vs two) is no rhyme.
- loose rhyme (what a sonnet may use in place of a perfect rhyme, see `checks`), of two
  different words not pronounced the same, the first kind that applies: the historical kinds
  (`HISTORICAL`), which Early Modern verse used as rhymes: an identical rhyme (rime riche, the
  same rhyme part and onset: "mend"/"commend", "day"/"today"); a -y rhyme (a final unstressed
  -y against a stressed "ee" or "eye", as -y was said both ways then: "memory"/"die",
  "heavenly"/"tree"); an eye rhyme (spelled the same from their last vowel letters, a silent
  final e aside and a doubled letter read as one: "temperate"/"date", "love"/"prove",
  "glass"/"was"), as historical pronunciations survive in spelling; then a slant rhyme; then a
  light rhyme (the final syllables' vowel and following consonants are the same, with
  different onsets, and at most one of the two final vowels stressed: "go"/"window").
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from verstehen.domains.poetry.pronounce import VOWELS, is_vowel, pronounce

Tail = tuple[str, ...]


def _bare(phones: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p.rstrip("012") for p in phones)


def tail_of(phones: tuple[str, ...]) -> tuple[Tail, Tail]:
    """(rhyme part, onset) of one pronunciation, without stress digits."""
    vowels = [i for i, p in enumerate(phones) if is_vowel(p)]
    if not vowels:
        return _bare(phones), ()
    stressed = [i for i in vowels if phones[i][-1] in "12"]
    start = stressed[-1] if stressed else vowels[-1]
    before = [i for i in vowels if i < start]
    onset = _bare(phones[before[-1] + 1 if before else 0:start])
    if before and phones[before[-1]][:2] == "ER":  # "arise" (ER AY Z): the R is its onset
        onset = ("R", *onset)
    return _bare(phones[start:]), onset


@cache
def rhyme_keys(word: str) -> frozenset[tuple[Tail, Tail]]:
    """The (tail, onset) pairs of a normalized word's variants with known phones."""
    return frozenset(tail_of(p.phones) for p in pronounce(word) if p.phones)


@cache
def _sounds(word: str) -> frozenset[tuple[str, ...]]:
    return frozenset(_bare(p.phones) for p in pronounce(word) if p.phones)


def _same_sound(a: str, b: str) -> bool:
    return a == b or not _sounds(a).isdisjoint(_sounds(b))


@lru_cache(maxsize=1 << 16)
def is_perfect_rhyme(a: str, b: str) -> bool:
    """Perfect rhyme of two normalized words (module doc)."""
    if _same_sound(a, b):
        return False
    kb = rhyme_keys(b)
    return any(t == u and o != p for t, o in rhyme_keys(a) for u, p in kb)


def skeleton(tail: Tail) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(vowels, consonants after each vowel) of a tail; ER is a vowel followed by R."""
    vowels: list[str] = []
    codas: list[list[str]] = []
    for p in tail:
        if p in VOWELS:
            vowels.append(p)
            codas.append(["R"] if p == "ER" else [])
        elif codas:
            codas[-1].append(p)
    return tuple(vowels), tuple(tuple(c) for c in codas)


def slant_kind(ta: Tail, tb: Tail) -> str | None:
    """"assonance", "consonance" or None for two tails (module doc); identical tails -> None."""
    va, ca = skeleton(ta)
    vb, cb = skeleton(tb)
    if len(va) != len(vb) or ta == tb:
        return None
    if va == vb and ca != cb:
        return "assonance"
    if ca == cb and va != vb and ca[-1]:
        return "consonance"
    return None


@lru_cache(maxsize=1 << 16)
def slant_rhyme(a: str, b: str) -> str | None:
    """The kind of slant rhyme ("assonance"/"consonance") of two words, or None (module doc)."""
    if _same_sound(a, b) or is_perfect_rhyme(a, b):
        return None
    kb = rhyme_keys(b)
    for ta, _ in rhyme_keys(a):
        for tb, _ in kb:
            if kind := slant_kind(ta, tb):
                return kind
    return None


_EYE_RE = re.compile(r"[aeiouy]+[^aeiouy]*$")


def _eye_part(word: str) -> str:
    w = word[:-1] if len(word) > 2 and word.endswith("e") and not word.endswith("ee") else word
    m = _EYE_RE.search(w)
    part = (m.group(0) if m else w) + word[len(w):]
    return re.sub(r"(.)\1", r"\1", part)  # a doubled letter spells one sound: "glass"/"was"


@lru_cache(maxsize=1 << 16)
def loose_rhyme(a: str, b: str) -> str | None:
    """The kind of loose rhyme of two different words (module doc), or None; the historical
    kinds (`HISTORICAL`) are tried first."""
    if _same_sound(a, b):
        return None
    if not rhyme_keys(a).isdisjoint(rhyme_keys(b)):
        return "identical"  # rime riche, the same rhyme part and onset: "mend"/"commend"
    if _y_rhyme(a, b) or _y_rhyme(b, a):
        return "-y"
    if _eye_part(a) == _eye_part(b):
        return "eye"
    if slant_rhyme(a, b):
        return "slant"
    for pa in pronounce(a):
        for pb in pronounce(b):
            if pa.phones and pb.phones and _light(pa.phones, pb.phones):
                return "light"
    return None


HISTORICAL = frozenset(("identical", "-y", "eye"))


def _y_rhyme(a: str, b: str) -> bool:
    """A final unstressed -y ("memory") against a stressed "ee" or "eye" ("thee", "die")."""
    return a.endswith("y") and any(
        pa.phones[-1] == "IY0" and pb.phones and pb.phones[-1] in ("AY1", "IY1")
        for pa in pronounce(a) if pa.phones for pb in pronounce(b))


def _final_syllable(phones: tuple[str, ...]) -> tuple[Tail, Tail, str]:
    vowels = [i for i, p in enumerate(phones) if is_vowel(p)] or [0]
    start = vowels[-1] + 1 if len(vowels) > 1 else 0
    return _bare(phones[vowels[-1]:]), _bare(phones[start:vowels[-1]]), phones[vowels[-1]][-1]


def _light(pa: tuple[str, ...], pb: tuple[str, ...]) -> bool:
    ta, oa, sa = _final_syllable(pa)
    tb, ob, sb = _final_syllable(pb)
    return ta == tb and oa != ob and not (sa in "12" and sb in "12")


def rhyme_scheme(final_words: list[str]) -> str:
    """Letters for line-final words: a word gets the letter of the first earlier group whose
    first word it rhymes with perfectly (or is), else the next new letter ("ABAB...")."""
    firsts: list[str] = []
    letters = []
    for w in final_words:
        for i, f in enumerate(firsts):
            if w == f or is_perfect_rhyme(w, f):
                letters.append(_letter(i))
                break
        else:
            firsts.append(w)
            letters.append(_letter(len(firsts) - 1))
    return "".join(letters)


def _letter(i: int) -> str:
    return chr(ord("A") + i) if i < 26 else f"[{i}]"
