"""What the poem, word, pair and fill readers share: the flags, the regions of the rule of
`verstehen.reading` tried in turn (`first_read`), emphasis, and the kinds of lines around an
answer (lead-ins, notes, commentary)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from verstehen.reading import answer_regions, answer_text

_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_STRAY_FENCE_RE = re.compile(r"^[ \t]*```[^\n]*$", re.M)
QUOTES = "\"'“”‘’"
ANNOT_RE = re.compile(r"\s*(?:\(\s*\d+(?:\s*syllables?)?\s*\)|[-–—]\s*\d+\s*syllables?)\s*$", re.I)
_PREAMBLE_RE = re.compile(r"^(?:here is|here['’]s|here are|sure|certainly|of course)\b", re.I)
_COMMENT_RE = re.compile(
    r"^(?:this |note|explanation|in this|the poem|the haiku|the sonnet|syllable|rhyme scheme"
    r"|i hope|---|(?:theme|form|meter|metre|perspective|structure|analysis|breakdown"
    r"|word count|rhyme|syllables?)\s*(?:\([^()]*\))?\s*:)", re.I)
_RULE_RE = re.compile(r"[-*_=~]{3,}")
LABEL_RE = re.compile(r"^(?:final answer|answer|word|replacement|fill)\s*[:\-]\s*", re.I)
BULLET_RE = re.compile(r"^(?:[-*•]\s+|\d+[.)]\s+)")
# emphasis: every "*", and "_"/"__" in pairs around text (a lone "_" is a blank, not markup)
_STARS_RE = re.compile(r"\*+")
_UNDERSCORES_RE = re.compile(r"(?<!\w)(_{1,2})(?=\S)(.+?)(?<=\S)\1(?!\w)")

_FINAL = r"final\s+(?:answer|output|poem|version|haiku|sonnet|line|phrase|text)|final|answer|output"
# a flag line that introduces the final answer: "Final answer:", "**Answer:**", "<OUTPUT>",
# "Final answer (choose one):"; the emphasis right after the colon closes the label's
# ("**Answer:** glow", not "**glow**")
_ASIDE = r"(?:[ \t]*\([^()\n]{0,40}\))?"
_CLOSE_FLAG = r"(?:[*_]+(?=\s|$))?[ \t]*"
POEM_FLAG_RE = re.compile(
    rf"^[ \t>#*_]*(?:<\s*output\s*>|(?:{_FINAL}){_ASIDE}[ \t*_]*:){_CLOSE_FLAG}", re.I | re.M)
WORD_FLAG_RE = re.compile(
    rf"^[ \t>#*_]*(?:<\s*output\s*>|(?:{_FINAL}|final word|word|replacement|fill){_ASIDE}"
    rf"[ \t*_]*:){_CLOSE_FLAG}", re.I | re.M)
_CLOSER_RE = re.compile(r"<\s*/\s*output\s*>", re.I)
_T = TypeVar("_T")


def unemphasized(text: str) -> str:
    """The text without markdown emphasis: every "*", and "_" or "__" around a span."""
    return _UNDERSCORES_RE.sub(r"\2", _STARS_RE.sub("", text))


def regions_of(reply: str, flag: re.Pattern[str]) -> list[tuple[str, bool]]:
    """The texts where the answer may stand, in the order `reading.answer_regions` tries them,
    each inside its last code fence, with whether the answer must end where the text ends."""
    text = answer_text(reply)
    out = []
    for region in answer_regions(text, flag, _CLOSER_RE):
        part = text[region.start:region.end]
        fences = list(_FENCE_RE.finditer(part))
        anchored = region.anchored
        if fences and anchored and part[fences[-1].end():].strip():
            fences = []  # text between the fence and the flag: the fence is no answer here
        if fences:
            part, anchored = fences[-1].group(1), False  # a fence ends where its answer does
        else:
            part = _STRAY_FENCE_RE.sub("", part)  # the close of a fence the flag was inside
        out.append((part, anchored))
    return out


def first_read(reply: str, flag: re.Pattern[str], read: Callable[[str, bool], _T | None]
           ) -> _T | None:
    """What `read` finds in the first region that holds an answer (module doc): the regions
    before the last flag are tried only when nothing follows it, or, when it closes a pair of
    flags, only remarks."""
    parts = regions_of(reply, flag)
    after = parts[0][0]
    blank = not after.strip()
    paired = len(parts) == 3  # two flags or more: the region between the last two is tried
    remarks = paired and not blank and all(is_commentary(b) for b in blocks_of(after.splitlines()))
    for i, (part, anchored) in enumerate(parts):
        if i and not (blank or (remarks and not anchored)):
            break
        if i == 0 and remarks:
            continue
        if (got := read(part, anchored)) is not None:
            return got
    return None


def is_prose(line: str) -> bool:
    """A line no verse has: over 100 characters (a paragraph of reasoning)."""
    return len(line.strip()) > 100


def is_lead_in(line: str) -> bool:
    s = line.strip()
    inner = unemphasized(s).strip()
    return (not s or inner.endswith(":") or bool(_PREAMBLE_RE.match(inner)) or is_prose(s)
            or bool(_RULE_RE.fullmatch(s)))


def is_note(line: str) -> bool:
    """A line wholly in parentheses or brackets (emphasis aside): a remark, not an answer."""
    s = unemphasized(line).strip()
    return len(s) > 1 and (s[0], s[-1]) in (("(", ")"), ("[", "]"))


def is_commentary(block: list[str]) -> bool:
    """A block that follows an answer as a remark on it (module doc)."""
    head = unemphasized(block[0]).strip().lstrip(">").strip()
    return (any(is_prose(x) for x in block) or bool(_COMMENT_RE.match(head))
            or is_note(block[0]) or bool(_RULE_RE.fullmatch(block[0].strip())))


def blocks_of(lines: list[str]) -> list[list[str]]:
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]
