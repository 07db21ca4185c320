"""One word, a few words, or a word pair out of a reply (`extract_word`, `extract_words`,
`extract_pair`; the rules are the package docstring's)."""

from __future__ import annotations

import re

from verstehen.domains.poetry.extract.common import (
    LABEL_RE,
    QUOTES,
    WORD_FLAG_RE,
    first_read,
    is_lead_in,
    unemphasized,
)
from verstehen.reading import ends_inside_reasoning

_SPAN_RE = re.compile(r"\*\*([^*]+)\*\*|[\"“]([^\"”]+)[\"”]")


_ONE_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_FEW_WORDS_RE = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:[ ,/]+[A-Za-z][A-Za-z'’-]*){1,2}")


def _word_span(text: str, anchored: bool) -> str | None:
    """The text a word answer stands in: the first quoted or bold span of the first line after
    the lead-ins, else that line (module doc)."""
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if anchored:
        lines = lines[-1:]
    while len(lines) > 1 and is_lead_in(lines[0]):
        lines.pop(0)
    first = LABEL_RE.sub("", lines[0].lstrip(">").strip() if lines else "")
    m = _SPAN_RE.search(first)
    cand = next(g for g in m.groups() if g) if m else first
    cand = cand.strip().strip(QUOTES + ".,;:!?*_ ").strip()
    if anchored and unemphasized(first).strip(QUOTES + ".,;:!?`_ ") != cand:
        return None  # other words stand between the word and the flag
    return cand or None


def _word(text: str, anchored: bool) -> str | None:
    cand = _word_span(text, anchored)
    return cand if cand and _ONE_WORD_RE.fullmatch(cand) else None


def _words(text: str, anchored: bool) -> str | None:
    cand = _word_span(text, anchored)
    return cand if cand and _FEW_WORDS_RE.fullmatch(cand) else None


def extract_word(reply: str) -> str | None:
    """The single word a reply gives, or None (rules above)."""
    return first_read(reply, WORD_FLAG_RE, _word)


def extract_words(reply: str) -> str | None:
    """Two or three words where a word answer stands ("ice cream", "keep or sleep"), or None:
    an answer, but not one word."""
    return first_read(reply, WORD_FLAG_RE, _words)

_PAIR = r'["“]([^"“”\n]+)["”]\s+and\s+["“]([^"“”\n]+)["”]'
_PAIR_RE = re.compile(_PAIR)
_PAIR_LINE_RE = re.compile(r"[\s>*_`•\-\d.)]*" + _PAIR + r"[\s*_`.!,;:]*")
_W = r"[A-Za-z][A-Za-z'’-]*"
_BARE_PAIR_LINE_RE = re.compile(
    rf"[\s>`•\-\d.)]*(?:[A-Za-z][A-Za-z ]{{0,20}}:\s*)?[\"“]?({_W})[\"”]?"
    rf"(?:\s+(?:and|&|[-–—])\s+|\s*(?:/|→|->|=>|↔)\s*)[\"“]?({_W})[\"”]?[\s`.!,;:]*")
_Pair = tuple[str, str]


def _distinct(found: list[_Pair]) -> list[_Pair]:
    return list({(a.strip().lower(), b.strip().lower()): (a.strip(), b.strip())
                 for a, b in found}.values())


def _pairs(text: str, anchored: bool) -> tuple[_Pair | None, str] | None:
    """The pair in one region (with ""), or None and why the region holds no single one; None
    when it holds no pair at all."""
    body = unemphasized(text)
    lines = [x for x in body.splitlines() if x.strip()]
    if anchored:
        lines = lines[-1:]
        body = "\n".join(lines)
    alone = _distinct([(m.group(1), m.group(2)) for line in lines
                       if (m := _PAIR_LINE_RE.fullmatch(line))])
    pairs = _distinct(_PAIR_RE.findall(body))
    for got in (alone, pairs):
        if len(got) == 1:
            return got[0], ""
    if pairs:
        shown = ", ".join(f'"{a}"/"{b}"' for a, b in pairs)
        return None, f"several word pairs in the reply ({shown}): cannot tell which is the example"
    bare = _distinct([(m.group(1), m.group(2)) for line in lines
                      if (m := _BARE_PAIR_LINE_RE.fullmatch(line))])
    return (bare[0], "") if len(bare) == 1 else None


def extract_pair(reply: str) -> tuple[str, str] | str:
    """The word pair a reply gives, or why there is none (rules above)."""
    if ends_inside_reasoning(reply):
        return "the reply ends inside its reasoning block (<think> is never closed)"
    found = first_read(reply, WORD_FLAG_RE, _pairs)
    if found is None:
        return 'no word pair written "a" and "b" found in the reply'
    pair, why = found
    return pair if pair is not None else why
