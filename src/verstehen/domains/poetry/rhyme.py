"""Perfect, slant and loose rhymes between words, and the rhyme scheme of a poem.

Definitions (over every pair of pronunciation variants; stress digits are ignored in
comparisons, and a word without known phones rhymes with nothing). Phones are compared as
heard: before R the vowels cmudict writes two ways are one (IY/IH, EY/EH, UW/UH, OW/AO: Wells,
"Accents of English", 1982, the NEAR, SQUARE, CURE and FORCE sets: "here"/"rear"), and so are
the weak vowels IH0 and AH0 (Wells's weak vowel merger: "iniquity"/"antiquity").
- rhyme part (tail): the phones from the word's last stressed vowel (primary or secondary
  stress; the last vowel when none is stressed) to the end: "leather" -> EH DH ER.
- onset: the consonants just before the tail, back to the previous vowel ("brain" B R, "rain"
  R, "eye" none, "sky" S K); after the r-coloured vowel ER, its R too ("arise" R).
- perfect rhyme: identical tails and different onsets. So identical words and identical
  pronunciations ("air"/"heir", "day"/"today") are not rhymes; "eye"/"sky" and "brain"/"rain"
  are.
- slant rhyme: the words differ, no variant pair rhymes perfectly or is pronounced the same,
  and for some variant pair the tails have the same number of syllables and either
  (assonance) the same vowels with different consonants after them, or (consonance) different
  vowels with the same consonants after each, the last cluster not empty and only ending in
  the same consonant ("rides"/"is"). The r-coloured vowel ER counts as a vowel followed by R
  or as a vowel alone, so "worm"/"swarm" (ER M / AO R M) and "death"/"earth" (EH TH / ER TH)
  are consonant; "mellow"/"lily" (no final consonant) are not.
  "shape"/"keep" is consonance; "glow"/"leather" (one-syllable tail vs two) is no rhyme.
- loose rhyme (what a sonnet may use in place of a perfect rhyme, see `checks`), of two
  different words not pronounced the same, the first kind that applies: the historical kinds
  (`HISTORICAL`), which Early Modern verse used as rhymes: an identical rhyme (rime riche, the
  same rhyme part and onset: "mend"/"commend", "day"/"today"); a -y rhyme (a final unstressed
  -y, also of -ies and -ied, against a stressed "ee" or "eye" with the same consonants after
  it, as -y was said both ways then: "memory"/"die", "heavenly"/"tree", "prophecies"/"eyes");
  an eye rhyme (spelled the same from their last vowel letters, a silent final e aside, a
  doubled letter read as one and a silent -ue after g dropped: "temperate"/"date",
  "love"/"prove", "glass"/"was", "tongue"/"song"), as historical pronunciations survive in
  spelling; a promoted rhyme (the unstressed last syllable of one word, which the line's last
  beat stresses, said with the full vowel its spelling shows, as unstressed vowels were then
  (Cercignani, "Shakespeare's Works and Elizabethan Pronunciation", 1981), against the stressed
  last syllable of the other: the same consonants after the vowel, different onsets, and the
  vowel letter one that spells the other's vowel: "eloquence"/"recompense",
  "excellence"/"expense", "perpetual"/"thrall", and with the -ed sounded, "buried"/"dead");
  then a slant rhyme; then a light rhyme (the final syllables' vowel and following consonants
  are the same, with different onsets, and at most one of the two final vowels stressed:
  "go"/"window").
"""

from __future__ import annotations

import re
from functools import cache, lru_cache

from verstehen.domains.poetry.licences import verse_pronounce
from verstehen.domains.poetry.pronounce import VOWELS, is_vowel, pronounce

Tail = tuple[str, ...]


# Before R, cmudict writes one vowel two ways ("here" IY R, "rear" IH R; "there" EH R,
# "prayer" EY R; "poor" UH R, "tour" UW R; "more" AO R, "door" OW R): the vowels are neutralized
# there (Wells, "Accents of English", 1982: the NEAR, SQUARE, CURE and FORCE sets), so they are
# read as one. So are the weak vowels IH0 and AH0 (Wells's weak vowel merger: "iniquity" and
# "antiquity", "acquainted" and "attainted" end alike).
_BEFORE_R = {"IY": "IH", "EY": "EH", "UW": "UH", "OW": "AO"}


def _bare(phones: tuple[str, ...]) -> tuple[str, ...]:
    bare = ["AH" if p == "IH0" else p.rstrip("012") for p in phones]
    return tuple(_BEFORE_R.get(p, p) if bare[i + 1:i + 2] == ["R"] else p
                 for i, p in enumerate(bare))


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


def skeleton(tail: Tail, r_coloured: bool = True
             ) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """(vowels, consonants after each vowel) of a tail; ER is a vowel followed by R, or with
    `r_coloured=False` a vowel alone."""
    vowels: list[str] = []
    codas: list[list[str]] = []
    for p in tail:
        if p in VOWELS:
            vowels.append(p)
            codas.append(["R"] if p == "ER" and r_coloured else [])
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
    if va != vb and any(_consonant(x, y) for x, y in (
            (ca, cb), (skeleton(ta, False)[1], skeleton(tb, False)[1]))):
        return "consonance"  # "worm"/"swarm" (ER as ER R), "death"/"earth" (ER as a vowel)
    return None


def _consonant(ca: tuple[tuple[str, ...], ...], cb: tuple[tuple[str, ...], ...]) -> bool:
    """The same consonants after each vowel, the last cluster only ending alike ("rides"/"is")."""
    return ca[:-1] == cb[:-1] and bool(ca[-1]) and bool(cb[-1]) and ca[-1][-1] == cb[-1][-1]


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
    if word.endswith("gue") and len(word) > 4:  # a silent -ue: "tongue" is spelled as "tong"
        word = word[:-2]
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
    if _promoted(a, b) or _promoted(b, a):
        return "promoted"
    if slant_rhyme(a, b):
        return "slant"
    for pa in pronounce(a):
        for pb in pronounce(b):
            if pa.phones and pb.phones and _light(pa.phones, pb.phones):
                return "light"
    return None


HISTORICAL = frozenset(("identical", "-y", "eye", "promoted"))


def _y_rhyme(a: str, b: str) -> bool:
    """A final unstressed -y ("memory", "prophecies") against a stressed "ee" or "eye" with the
    same consonants after it ("thee", "die", "eyes")."""
    if not a.endswith(("y", "ies", "ied")):
        return False
    for pa in pronounce(a):
        for pb in pronounce(b):
            (va, ca), (vb, cb) = _last_vowel(pa.phones), _last_vowel(pb.phones)
            if va == "IY0" and vb in ("AY1", "IY1") and ca == cb:
                return True
    return False


def _last_vowel(phones: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The last vowel of a pronunciation (with its stress digit) and the consonants after it."""
    at = max((i for i, p in enumerate(phones) if is_vowel(p)), default=None)
    return ("", ()) if at is None else (phones[at], _bare(phones[at + 1:]))


# the stressed vowels a vowel letter of an unstressed final syllable can spell
_SPELLS = {"a": ("AE", "AA", "AO"), "e": ("EH",), "i": ("IH",), "o": ("AA", "AO", "OW"),
           "u": ("AH", "UH"), "y": ("IH",)}


@lru_cache(maxsize=1 << 16)
def _promoted(a: str, b: str) -> bool:
    """Whether the unstressed last syllable of `a` rhymes with the stressed last syllable of `b`
    when said with the full vowel its spelling shows (module doc): "excellence"/"expense",
    "buried" (with its -ed sounded)/"dead"."""
    letters = re.findall(r"[aeiouy]", a[:-1] if a.endswith("e") and len(a) > 3 else a)
    if len(letters) < 2:
        return False
    spelled = _SPELLS.get(letters[-1], ())
    for pa in verse_pronounce(a):
        (va, ca), onset_a = _last_vowel(pa.phones), _final_syllable(pa.phones)[1]
        if va[-1:] != "0" or va in ("IY0", "ER0") or not ca:
            continue
        for pb in pronounce(b):
            (vb, cb), onset_b = _last_vowel(pb.phones), _final_syllable(pb.phones)[1]
            if vb[-1:] in ("1", "2") and vb[:-1] in spelled and cb == ca and onset_a != onset_b:
                return True
    return False


def _final_syllable(phones: tuple[str, ...]) -> tuple[Tail, Tail, str]:
    vowels = [i for i, p in enumerate(phones) if is_vowel(p)] or [0]
    start = vowels[-2] + 1 if len(vowels) > 1 else 0
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
