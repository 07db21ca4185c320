"""Scansion: each syllable's stress class, and how well a line fits a metrical template.

Stress classes, per pronunciation variant of a word:
- polysyllables: primary stress (1) is S (must be stressed), secondary stress (2) is F (either),
  unstressed (0) is U (must be unstressed);
- monosyllables: F for the closed-class words in `FUNCTION_WORDS` (the determiners, pronouns,
  prepositions, conjunctions and auxiliaries of Quirk et al.'s grammar: "through", "like",
  "down", "hath" among them) and for words cmudict never marks with primary stress; S for every
  other (content) word. A homograph ("like", "round", "might") is F: either stress.
A template marks each position weak or strong. A syllable mismatches when it is S in a weak
position or, in the anapestic template only, U in a strong one; F never mismatches. A text's
mismatch count is the minimum over its variant choices.
- iambic pentameter: weak-strong x5; 10 syllables, or 11 when the 11th (a feminine ending) is U
  or a function monosyllable. Following Halle & Keyser's account of English iambic verse, every
  monosyllable is free here (takes the stress the meter gives it), and so is every closed-class
  polysyllable (`CLOSED_POLYSYLLABLES`: "upon", "into", "whether"; Kiparsky 1975: only the
  stress of lexical words is metrical), and an unstressed syllable may take a beat
  ("pos-TER-i-TY"), so only the lexical stresses of polysyllables off the beat are counted:
  "Rough winds do shake" scans. An inverted foot at the start of a phrase is regular
  (Kiparsky 1977, "The rhythmic structure of English verse"): a stressed syllable that begins
  the line or follows a pause (punctuation or a dash) costs nothing, so "CO-ral is far..." and
  "HAP-py to have thy love, HAP-py to die" have no mismatch. At most `max_mismatches` others
  (default 1: one inversion inside a phrase). Words may be read with the compressions of
  everyday speech (Wells, "Longman Pronunciation Dictionary", 2008; `licences.verse_pronounce(word,
  early_modern=False)`): an unstressed IY, IH or UW before another unstressed vowel as a glide
  ("glo-ryous", "hap-pyer", "vir-twous"), an unstressed vowel merged across a glide ("sen-swal")
  or into a diphthong before it ("moi'ty", "ru'nous"), syncope of ER before a vowel
  ("dang'rous", "wat'ry"), of a vowel between V and N ("heav'nly") and of a weak vowel before
  L, N or R and a weak vowel ("lum'nous"), smoothing ("fire", "pow'rs"). With
  `licences` (the sonnet checker) a line may also be read with the licences of Early Modern
  verse (as described in E. A. Abbott's "A Shakespearian Grammar", 1870): a sounded -ed
  ("fix-ed", "bur-i-ed", "re-mem-ber-ed"; of an estimated word too, "impannel-ed"); an unsounded
  -est/-eth ("lov'st"); -tion, -cious, -tial in two syllables ("na-ti-on"); -ing after a vowel
  in one ("being"); th or v dropped between vowels ("whe'r", "e'er"); "spirit" in one syllable;
  and elision of a final unstressed vowel before a word that starts with a vowel ("th'expense",
  "man-y a").
- anapestic: weak-weak-strong repeated, 3n syllables (n >= 1), at most `max_mismatches`
  mismatches (default 0), with the compressions of speech ("op'ning"); content monosyllables
  stay S, since a triple meter is heard in them ("test test test" is not anapestic), and a beat
  must hold a stressed syllable (S): a line of closed-class words only ("of the a") has no
  stress, so no beat. So "interrupt" (2 0 1), "in the night" and "I just went to the store" are
  anapestic; "wonderboy", "furthermore" (1 0 2), "practice test" and "and the of the" are not.
In `Fit.classes`, "f" marks a content monosyllable that iambic scansion left free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache

from verstehen.domains.poetry.licences import verse_pronounce
from verstehen.domains.poetry.pronounce import is_vowel, pronounce, read_line

# The closed word classes of Quirk, Greenbaum, Leech & Svartvik, "A Comprehensive Grammar of the
# English Language" (1985), one class a line: determiners, pronouns, prepositions, conjunctions
# and wh-adverbs, primary and modal auxiliaries; then the pro-forms "then", "there" and the light
# adverb "just", and contractions. Only monosyllables are read here, so only they are listed,
# with the Early Modern forms verse uses (thy, hath, doth, canst, o'er, 'gainst, ere, whilst).
FUNCTION_WORDS = frozenset(str.split("""
a an the this that these those my your his her its our their thy thine mine
all both each some no such much more most few less least what which whose
i me we us you he him she it they them thou thee ye who whom yours hers ours theirs
as at but by down for from in into like near of off on onto out over past per plus round
since than through thro till to up upon via with o'er 'gainst 'twixt 'mongst 'mid 'tween ere
and or nor so yet for if though lest that till when where while whilst whence how why
am is are was were be been have has had do does did art wert wast hast hadst hath doth dost didst
can could may might must shall should will would ought canst couldst mayst mightst shalt
shouldst wilt wouldst
then there just
i'm you're we're they're he's she's it's that's there's what's who's i'll you'll he'll
she'll we'll they'll i've you've we've they've i'd you'd he'd she'd we'd they'd 'tis 'twas
'twere 'twill
"""))

# Closed-class words of more than one syllable (the same grammar): in iambic verse their stress
# is as free as a monosyllable's (Kiparsky 1975: only the stress of lexical words is metrical).
CLOSED_POLYSYLLABLES = frozenset(str.split("""
about above across after against along amid amidst among amongst around before behind below
beneath beside besides between betwixt beyond despite during except inside into onto outside
over toward towards under underneath unlike until unto upon within without
although because unless whether whereas whenever wherever whatever whichever whoever
any many every other either neither ever never something nothing anything everything
itself himself herself myself yourself ourselves themselves yourselves thyself oneself
cannot only even very
"""))

BIG = 99  # the cost of a syllable a template forbids outright


@cache
def word_classes(word: str, verse: bool = False, compress: bool = False) -> frozenset[str]:
    """The stress-class strings ("S", "F", "US", ...) of a normalized word's variants; with
    `compress`, also of its compressions, and with `verse` of the variants Early Modern verse
    licenses too (`licences.verse_pronounce`)."""
    prons = verse_pronounce(word, verse) if verse or compress else pronounce(word)
    monos = [p for p in prons if p.syllables == 1]
    if monos and (word.lstrip("#") in FUNCTION_WORDS
                  or all(p.stresses in ((0,), (2,)) for p in monos)):
        mono = "F"
    else:
        mono = "S"
    return frozenset(
        mono if p.syllables == 1 else "".join("USF"[s] for s in p.stresses) for p in prons
    )


@dataclass(frozen=True)
class Fit:
    """The best reading of a text against a template: its classes and mismatched positions."""

    syllables: int
    classes: str
    mismatches: tuple[int, ...]  # 1-based syllable positions

    @property
    def cost(self) -> int:
        """The number of mismatched syllables."""
        return len(self.mismatches)


def best_fits(ws: tuple[str, ...], strong: Callable[[int], bool], max_len: int,
              free_monosyllables: bool = False, unstressed_end: int | None = None,
              lengths: frozenset[int] | None = None, verse: bool = False,
              compress: bool = False) -> dict[int, Fit]:
    """For each reachable syllable count <= max_len, the reading with the fewest mismatches.

    `strong(i)` says whether 0-based position i is strong. With `free_monosyllables` every
    monosyllable counts as F. A reading of exactly `unstressed_end` syllables must end in U or
    in a function monosyllable (F before freeing). `lengths`, when given, keeps only those counts.
    `verse` adds the licensed variants and elisions of Early Modern verse (module doc).
    """
    states: dict[int, tuple[int, str]] = {0: (0, "")}
    for k, w in enumerate(ws):
        nxt: dict[int, tuple[int, str]] = {}
        elide = verse and k + 1 < len(ws) and _starts_with_vowel(ws[k + 1])
        options = _options(w, free_monosyllables, verse, elide, compress)
        for pos, (cost, seq) in states.items():
            for cls, size, free, label in options:
                end = pos + size
                if end > max_len:
                    continue
                c = cost if free else cost + _placement_cost(strong, cls, pos)
                if end == unstressed_end and cls and cls[-1] == "S":
                    c += BIG
                best = nxt.get(end)
                if best is None or c < best[0]:
                    nxt[end] = (c, seq + label)
        states = nxt
    out = {}
    for n, (c, seq) in states.items():
        if c >= BIG or (lengths is not None and n not in lengths):
            continue
        miss = tuple(i + 1 for i, ch in enumerate(seq) if _miss(ch, strong(i), strong))
        out[n] = Fit(n, seq, miss)
    return out


@cache
def _options(word: str, free_monosyllables: bool, verse: bool = False, elide: bool = False,
             compress: bool = False) -> tuple[tuple[str, int, bool, str], ...]:
    """A word's readings for `best_fits`: (class string, syllables, costs nothing, label).

    With `elide` (the next word starts with a vowel) a final unstressed vowel may be elided
    into it: "th'expense", "t'inherit", "man-y a" as two syllables.
    """
    classes = set(word_classes(word, verse, compress))
    if elide and _ends_in_weak_vowel(word):
        classes |= {c[:-1] for c in classes if c[-1] in "UF"}
    return tuple((cls, len(cls), free_monosyllables and len(cls) <= 1,
                  "f" if free_monosyllables and cls == "S" else cls)
                 for cls in sorted(classes))


_ELIDABLE = frozenset(("the", "to", "i", "thou", "thee", "me", "be", "he", "she", "we", "ye"))


@cache
def _ends_in_weak_vowel(word: str) -> bool:
    """A word whose last sound is an unstressed vowel (or a function word ending in a vowel)."""
    return any(p.phones and is_vowel(p.phones[-1])
               and (p.phones[-1][-1] == "0" or word in _ELIDABLE) for p in pronounce(word))


@cache
def _starts_with_vowel(word: str) -> bool:
    return any(p.phones and is_vowel(p.phones[0]) for p in pronounce(word))


@lru_cache(maxsize=65536)  # the DP above asks the same few (class string, position) pairs
def _placement_cost(strong: Callable[[int], bool], cls: str, pos: int) -> int:
    return sum(_miss(ch, strong(pos + i), strong) for i, ch in enumerate(cls))


def _miss(cls: str, strong: bool, template: Callable[[int], bool] | None = None) -> int:
    if template is _iambic:  # Halle & Keyser: an unstressed syllable may take a beat
        return cls == "S" and not strong
    return (cls == "S" and not strong) or (cls == "U" and strong)


def _iambic(i: int) -> bool:
    return i % 2 == 1


def _anapestic(i: int) -> bool:
    return i % 3 == 2


@dataclass(frozen=True)
class MeterResult:
    """Whether a line fits a meter, the best reading, and why."""

    ok: bool
    reason: str
    fit: Fit | None
    counts: frozenset[int]
    estimated_words: tuple[str, ...]


@lru_cache(maxsize=8192)  # sonnet checks and edits re-read the same lines many times
def iambic_pentameter(line: str, max_mismatches: int = 1, licences: bool = False
                      ) -> MeterResult:
    """Whether a line is iambic pentameter within `max_mismatches`; `licences` admits the
    readings Early Modern verse licenses (module doc)."""
    reading = read_line(line)
    cands = list(iambic_fits(reading.words, reading.pauses, licences).values())
    if not cands:
        counts = sorted(reading.counts)
        if licences:
            counts = sorted(best_fits(reading.words, _iambic, 4 * max(counts, default=1),
                                      free_monosyllables=True, verse=True))
        why = (f"has {_counts_text(counts)} syllables"
               + (", licences included" if licences else "")
               + " (needs 10, or 11 with an unstressed ending)")
        return MeterResult(False, why, None, reading.counts, reading.estimated)
    best = min(cands, key=lambda f: f.cost)
    ok = best.cost <= max_mismatches
    why = (f"{best.syllables} syllables, {best.cost} stress mismatch(es) against da-DUM x5"
           + (f" at syllable(s) {', '.join(map(str, best.mismatches))}" if best.cost else "")
           + ("" if ok else f" (at most {max_mismatches} allowed)"))
    return MeterResult(ok, why, best, reading.counts, reading.estimated)


def anapestic(text: str, max_mismatches: int = 0, feet: int | None = None) -> MeterResult:
    """Whether a text reads as anapests (x x /), `feet` of them when given (module doc)."""
    reading = read_line(text)
    max_len = 3 * feet if feet else max(reading.counts, default=0)
    fits = best_fits(reading.words, _anapestic, max_len, compress=True)
    wanted = [3 * feet] if feet else [n for n in fits if n and n % 3 == 0]
    cands = [fits[n] for n in wanted if n in fits]
    if not cands:
        need = f"{3 * feet}" if feet else "a multiple of 3"
        why = f"has {_counts_text(sorted(reading.counts))} syllables (needs {need})"
        return MeterResult(False, why, None, reading.counts, reading.estimated)
    best = min(cands, key=lambda f: f.cost)
    if not any(ch == "S" and _anapestic(i) for i, ch in enumerate(best.classes)):
        why = (f"{best.syllables} syllables read {best.classes}: no beat holds a stressed "
               "syllable (only closed-class words, which take a beat only beside a stress)")
        return MeterResult(False, why, best, reading.counts, reading.estimated)
    ok = best.cost <= max_mismatches
    why = (f"{best.syllables} syllables read {best.classes}; "
           + (f"stress mismatch(es) against da-da-DUM at syllable(s) "
              f"{', '.join(map(str, best.mismatches))}" if best.cost else "fits da-da-DUM"))
    return MeterResult(ok, why, best, reading.counts, reading.estimated)


def iambic_fits(ws: tuple[str, ...], pauses: frozenset[int], verse: bool = False
                ) -> dict[int, Fit]:
    """For 10 and 11 syllables, the iambic reading with the fewest stresses off the beat.

    A mismatch is the stressed syllable of a polysyllabic lexical word in a weak position,
    unless it begins a phrase: the line, or a word after a pause (`pauses`: indexes of words
    that follow punctuation), where an inverted foot is regular (Kiparsky 1977).
    """
    states: dict[int, tuple[int, str, tuple[int, ...]]] = {0: (0, "", ())}
    for k, w in enumerate(ws):
        nxt: dict[int, tuple[int, str, tuple[int, ...]]] = {}
        elide = verse and k + 1 < len(ws) and _starts_with_vowel(ws[k + 1])
        phrase_start = k == 0 or k in pauses
        for pos, (cost, seq, miss) in states.items():
            for label in _iambic_labels(w, verse, elide):
                end = pos + len(label)
                if end > 11 or (end == 11 and label[-1:] in ("S", "f")):
                    continue  # an 11th syllable must be unstressed (a feminine ending)
                off = tuple(pos + i + 1 for i, ch in enumerate(label) if ch == "S"
                            and not _iambic(pos + i) and not (i == 0 and phrase_start))
                if end not in nxt or cost + len(off) < nxt[end][0]:
                    nxt[end] = (cost + len(off), seq + label, miss + off)
        states = nxt
    return {n: Fit(n, seq, miss) for n, (_, seq, miss) in states.items() if n in (10, 11)}


@cache
def _iambic_labels(word: str, verse: bool, elide: bool) -> tuple[str, ...]:
    """A word's class strings for iambic scansion: a monosyllable is "f" (a content word, free
    but stressed) or "F"; a closed-class polysyllable has no S; elided forms as in `_options`."""
    closed = word.lstrip("#") in CLOSED_POLYSYLLABLES
    out = set()
    for cls, size, _, _ in _options(word, False, verse, elide, compress=True):
        if size == 1 and cls != "U":
            out.add("F" if cls == "F" or closed else "f")
        else:
            out.add(cls.replace("S", "F") if closed else cls)
    return tuple(sorted(out))


def _counts_text(counts: list[int]) -> str:
    return " or ".join(map(str, counts)) if counts else "no"
