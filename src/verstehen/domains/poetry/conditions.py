"""The conditions a prompt sets beside the form: a word to use, a word to end on, and the
Potemkin benchmark's form conditions that code can check.

A word is used as a person grading "include the word father" accepts it (`is_word`): the word
itself in any case, its possessive ("father's", "Father’s"; "fathers'" is the plural's), or the
word as a part of a hyphenated compound ("father-like": `pronounce.words` splits at hyphens).
Any other word that holds its letters is a different word: inflections ("fathers", "fathered",
"fathering") and derivations ("fatherly", "grandfather") are not the word asked for.

`form_condition` checks the benchmark's conditions on a text's first or last word ("Start with
a word that begins with the letter "M".", "End with a one-vowel word.", "Start with a
monosyllabic word.", "End with a two-syllable word."), and returns None for every other one
(theme, dialogue, perspective, adverbs, alliteration, a repeated phrase): those need a reader.
A one-vowel word has one vowel letter (a, e, i, o, u; "y" counts only in a word with none of
them: "sky"); a word's syllables are those of any of its pronunciations (`pronounce`).
"""

from __future__ import annotations

import re

from verstehen.domains.poetry.checks import Verdict
from verstehen.domains.poetry.pronounce import syllable_counts, words


def is_word(token: str, word: str) -> bool:
    """Whether a normalized token (`pronounce.words`) is `word` or its possessive."""
    w = word.lower().replace("’", "'")
    return token in (w, f"{w}'s")


def uses_word(text: str, word: str) -> bool:
    """Whether the text uses `word` (itself, its possessive, or in a hyphenated compound)."""
    return any(is_word(t, word) for t in words(text))


def ends_with_word(text: str, word: str) -> bool:
    """Whether the text's last word is `word` (or its possessive)."""
    ws = words(text)
    return bool(ws) and is_word(ws[-1], word)


_NUMBERS = {"one": 1, "single": 1, "mono": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_PLACE = r"(?P<place>start|begin|end|finish)s?\s+with\s+an?\s+"
_LETTER_RE = re.compile(
    _PLACE + r"word\s+that\s+(?P<side>begins|starts|ends)\s+with\s+(?:the\s+)?letter\s+"
    r"[\"'“‘]?(?P<letter>[a-z])[\"'”’]?", re.I)
_SYLLABLES_RE = re.compile(
    _PLACE + r"(?P<n>one|single|two|three|four|five|mono)[\s-]*syllab(?:le|ic)\s+word", re.I)
_VOWELS_RE = re.compile(_PLACE + r"(?P<n>one|single|two|three)[\s-]*vowel\s+word", re.I)


def vowel_letters(word: str) -> int:
    """The vowel letters of a word: a, e, i, o, u, and "y" in a word without them."""
    n = sum(c in "aeiou" for c in word.lower())
    return n or word.lower().count("y")


def form_condition(condition: str, text: str) -> Verdict | None:
    """Whether the text meets a benchmark form condition on its first or last word, or None
    when code cannot check the condition (module doc)."""
    found = next((m for r in (_LETTER_RE, _SYLLABLES_RE, _VOWELS_RE)
                  if (m := r.search(condition))), None)
    if found is None:
        return None
    ws = [w.lstrip("#'") for w in words(text)]
    if not ws:
        return Verdict(False, "no word to check")
    first = found.group("place").lower() in ("start", "begin")
    word, where = (ws[0], "first") if first else (ws[-1], "last")
    if found.re is _LETTER_RE:
        letter = found.group("letter").lower()
        starts = found.group("side").lower() != "ends"
        bare = word[:-2] if word.endswith("'s") else word
        ok = bare.startswith(letter) if starts else bare.endswith(letter)
        side = "begins" if starts else "ends"
        return Verdict(ok, f'the {where} word "{word}" {side if ok else "does not " + side[:-1]}'
                           f' with "{letter}"')
    n = _NUMBERS[found.group("n").lower()]
    if found.re is _SYLLABLES_RE:
        counts = syllable_counts(word)
        shown = "/".join(map(str, sorted(counts)))
        return Verdict(n in counts, f'the {where} word "{word}" has {shown} syllable(s), '
                                    f"{'as asked' if n in counts else f'not {n}'}")
    k = vowel_letters(word)
    return Verdict(k == n, f'the {where} word "{word}" has {k} vowel letter(s)'
                           f"{'' if k == n else f', not {n}'}")
