"""Where a reply's final answer stands: the one rule every reader follows.

A reader takes the answer a person reading the reply would take, and says why when a person
would not take one. The rule, in the order a reader applies it:

1. Reasoning is not the answer. A leading `<think>...</think>` block is dropped. A reply that
   ends inside its reasoning block (no `</think>`) was cut off before it answered: it has no
   answer, and grading calls it `truncated` (`ends_inside_reasoning`).
2. Flags set the answer apart. When the reply writes a flag that introduces its answer
   (`<OUTPUT>`, "ANSWER:", "Final answer:", ...; each reader names its flags), the answer is
   looked for in `answer_regions`, the first that holds one (a remark about the answer,
   "This satisfies every condition.", is not one):
   a. after the last flag, up to a closing tag (`</OUTPUT>`) when there is one;
   b. between the last two flags, when the last one closes a pair (`<OUTPUT> ... <OUTPUT>`,
      the second written as a closing tag) and nothing after it is an answer;
   c. right before the last flag, when the flag follows the answer with nothing but space
      between them (a flag written after the answer, "matrix, then <OUTPUT>").
   An answer that stands only before the flags, with text between it and them, is a draft.
   Without a flag the whole reply (after its reasoning) is the region.
3. The last answer in the region counts: a draft, then a correction, is read as the
   correction. Answers written as alternatives ("either 'ANSWER: Yes' or 'ANSWER: No'",
   "Yes/No") are an echo of the instructions, never an answer.
4. Cut off is cut off. A reply the provider says it cut at the token cap, or that ends inside
   its reasoning, is `truncated` whatever it holds (`grading.grade_reply`): a reply that did
   not end may still have changed its answer, so no draft and no words that only look like an
   answer are graded. A matrix whose brackets are never closed at the end of the reply is cut
   off too.
5. Refuse with a reason where a person would be unsure (two different final answers, a cut
   matrix): the reader returns no answer and says which.

Pure functions, no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_THINK_RE = re.compile(r"^\s*<think>(?P<inside>.*?)(?P<close></think>|\Z)", re.S | re.I)


def answer_text(text: str) -> str:
    """The reply without a leading `<think>...</think>` reasoning block, stripped; "" when the
    reply ends inside that block."""
    return _THINK_RE.sub("", text, count=1).strip()


def ends_inside_reasoning(text: str) -> bool:
    """Whether the reply opens a `<think>` block and ends before closing it (cut off while it
    was still reasoning)."""
    m = _THINK_RE.match(text)
    return m is not None and not m.group("close")


@dataclass(frozen=True)
class Region:
    """A span of the reply where its answer may stand; `anchored`: the answer must end at `end`
    (only space may come between: rule 2c)."""

    start: int
    end: int
    anchored: bool = False


def answer_regions(text: str, flag: re.Pattern[str],
                   closer: re.Pattern[str] | None = None) -> list[Region]:
    """The regions of `text` where its answer may stand, in the order rule 2 tries them; the
    whole text when it has no flag."""
    flags = list(flag.finditer(text))
    if not flags:
        return [Region(0, len(text))]
    closes = [c.start() for c in closer.finditer(text)] if closer is not None else []

    def closed_at(start: int, limit: int) -> int:
        return min((c for c in closes if start <= c < limit), default=limit)

    last = flags[-1]
    regions = [Region(last.end(), closed_at(last.end(), len(text)))]
    previous = flags[-2].end() if len(flags) > 1 else 0
    if len(flags) > 1:
        regions.append(Region(previous, closed_at(previous, last.start())))
    regions.append(Region(previous, last.start(), anchored=True))
    return regions


_ALTERNATIVE_RE = re.compile(r"^[\s'\"`*_)\]]*(?:or\s|/)", re.I)


def offered_as_alternative(text: str, start: int, end: int) -> bool:
    """Whether the answer at text[start:end] is one of several offered as alternatives: it is
    followed by "or"/"/" and another option, or preceded by "either"/"or"/"/"."""
    after = text[end:end + 12]
    before = text[max(0, start - 16):start]
    return bool(_ALTERNATIVE_RE.match(after) or re.search(
        r"(?:\beither|\bor|/)[\s'\"`*_(\[]*$", before, re.I))
