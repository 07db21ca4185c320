"""Reading a poem, a word, or a blank's replacement out of a model's reply.

All three first drop a leading `<think>...</think>` block (`parse.answer_text`) and take the
inside of the first ``` code fence when there is one.
- `extract_poem`: lines are stripped of blockquote ">", list bullets, emphasis (* and _ at both
  ends), wrapping quotes (on the whole text, or on a line that has one at both ends) and a
  trailing syllable annotation ("(5)", "(5 syllables)", "- 7 syllables"). Leading lines are
  dropped while they look like a preamble: ending in ":", starting "here is"/"here's"/"sure"/
  "certainly", a markdown heading, or a line that is wholly bold or wholly quoted-and-bold (a
  title) followed by a blank line. The poem then runs through blank-line-separated blocks and
  stops before the first later block that looks like commentary: one with a line over 100
  characters, or starting "This ", "Note", "Explanation", "In this", "The poem", "Syllable",
  "Rhyme scheme" or "---".
- `extract_word`: the first non-empty line, after an optional "Answer:"/"Word:" label; the first
  quoted or bold span in it when there is one, else the line itself when it is one word.
- `extract_fill`: the whole reply when it is one line (an optional "Answer:" label and wrapping
  quotes removed); a reply of several lines is not a blank's replacement (None).
"""

from __future__ import annotations

import re

from verstehen.parse import answer_text

_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_QUOTES = "\"'“”‘’"
_ANNOT_RE = re.compile(r"\s*(?:\(\s*\d+(?:\s*syllables?)?\s*\)|[-–—]\s*\d+\s*syllables?)\s*$", re.I)
_PREAMBLE_RE = re.compile(r"^(?:here is|here's|here are|sure|certainly|of course)\b", re.I)
_COMMENT_RE = re.compile(
    r"^(?:this |note|explanation|in this|the poem|syllable|rhyme scheme|---)", re.I)
_LABEL_RE = re.compile(r"^(?:final answer|answer|word|replacement|fill)\s*[:\-]\s*", re.I)


def _body(reply: str) -> str:
    text = answer_text(reply)
    m = _FENCE_RE.search(text)
    return m.group(1) if m else text


def _clean_line(line: str) -> str:
    s = line.strip().lstrip(">").strip()
    s = re.sub(r"^(?:[-*•]\s+|\d+[.)]\s+)", "", s)
    while len(s) > 1 and s[0] == s[-1] and s[0] in "*_":
        s = s.strip(s[0]).strip()
    s = _ANNOT_RE.sub("", s)
    if len(s) > 1 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s


def _is_title(line: str) -> bool:
    s = line.strip()
    return s.startswith("#") or (len(s) > 4 and s.startswith("**") and s.endswith("**"))


def extract_poem(reply: str) -> str | None:
    """The poem in a reply, one line per line, or None when nothing is left (rules above)."""
    raw = _body(reply).strip()
    if len(raw) > 1 and raw[0] in _QUOTES and raw[-1] in _QUOTES:
        raw = raw[1:-1]
    lines = raw.splitlines()
    while lines and (not lines[0].strip() or lines[0].strip().endswith(":")
                     or _PREAMBLE_RE.match(lines[0].strip())
                     or (_is_title(lines[0]) and len(lines) > 1 and not lines[1].strip())):
        lines.pop(0)
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    kept: list[str] = []
    for i, block in enumerate(b for b in blocks if b):
        if i and (any(len(x) > 100 for x in block) or _COMMENT_RE.match(block[0].strip())):
            break
        kept += [c for x in block if (c := _clean_line(x))]
    return "\n".join(kept) or None


def extract_word(reply: str) -> str | None:
    """The single word a reply gives, or None (rules above)."""
    first = next((x.strip() for x in _body(reply).splitlines() if x.strip()), "")
    first = _LABEL_RE.sub("", first)
    m = re.search(r"\*\*([^*]+)\*\*|[\"“]([^\"”]+)[\"”]", first)
    cand = next(g for g in m.groups() if g) if m else first
    cand = cand.strip().strip(_QUOTES + ".,;:!?*_ ").strip()
    return cand if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*", cand) else None


def extract_fill(reply: str) -> str | None:
    """A blank's replacement: a one-line reply without label or wrapping quotes, else None."""
    lines = [x.strip() for x in _body(reply).splitlines() if x.strip()]
    if len(lines) != 1:
        return None
    s = _LABEL_RE.sub("", lines[0]).strip()
    while len(s) > 1 and s[0] == s[-1] and s[0] in "*_`":
        s = s.strip(s[0]).strip()
    if len(s) > 1 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s or None
