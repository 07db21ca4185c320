"""Reading a poem, a word, or a blank's replacement out of a model's reply.

All three first drop a leading `<think>...</think>` block (`parse.answer_text`), then keep only
what follows the last flag line that introduces a final answer ("Final answer:", "**Answer:**",
"Final poem:", "Output:", "<OUTPUT>", and for a word or a blank also "Word:", "Replacement:";
text after the flag on its line counts), then take the inside of the last ``` code fence when
there is one. So a reply that reasons or drafts first is read at its final answer.
- `extract_poem`: lines are stripped of blockquote ">", list bullets, emphasis (* and _ at both
  ends), wrapping quotes (on the whole text, or on a line that has one at both ends) and a
  trailing syllable annotation ("(5)", "(5 syllables)", "- 7 syllables"). Leading lines are
  dropped while they look like a preamble: ending in ":", starting "here is"/"here's"/"sure"/
  "certainly", over 100 characters (a paragraph of reasoning: no line of verse is that long),
  a markdown heading, or a line that is wholly bold or wholly quoted-and-bold (a
  title) followed by a blank line. The poem then runs through blank-line-separated blocks and
  stops before the first later block that looks like commentary: one with a line over 100
  characters, or starting "This ", "Note", "Explanation", "In this", "The poem", "Syllable",
  "Rhyme scheme" or "---".
- `extract_word`: the first non-empty line, after an optional "Answer:"/"Word:" label (leading
  lines dropped, while another follows, that end in ":", start "here is"/"sure"/..., or are
  over 100 characters); the first quoted or bold span in it when there is one, else the line
  itself when it is one word.
- `extract_fill`: the whole reply when it is one line (an optional "Answer:" label and wrapping
  quotes removed), leading lines dropped as for a word; a reply of several lines otherwise is
  not a blank's replacement (None).
"""

from __future__ import annotations

import re

from verstehen.parse import answer_text

_FENCE_RE = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)", re.S)
_STRAY_FENCE_RE = re.compile(r"^[ \t]*```[^\n]*$", re.M)
_QUOTES = "\"'“”‘’"
_ANNOT_RE = re.compile(r"\s*(?:\(\s*\d+(?:\s*syllables?)?\s*\)|[-–—]\s*\d+\s*syllables?)\s*$", re.I)
_PREAMBLE_RE = re.compile(r"^(?:here is|here's|here are|sure|certainly|of course)\b", re.I)
_COMMENT_RE = re.compile(
    r"^(?:this |note|explanation|in this|the poem|syllable|rhyme scheme|---)", re.I)
_LABEL_RE = re.compile(r"^(?:final answer|answer|word|replacement|fill)\s*[:\-]\s*", re.I)


_FINAL = r"final\s+(?:answer|output|poem|version|haiku|sonnet|line|phrase|text)|final|answer|output"
# a flag line that introduces the final answer: "Final answer:", "**Answer:**", "<OUTPUT>"; the
# emphasis right after the colon closes the label's ("**Answer:** glow", not "**glow**")
_CLOSE_FLAG = r"(?:[*_]+(?=\s|$))?[ \t]*"
_POEM_FLAG_RE = re.compile(
    rf"^[ \t>#*_]*(?:<\s*output\s*>|(?:{_FINAL})[ \t*_]*:){_CLOSE_FLAG}", re.I | re.M)
_WORD_FLAG_RE = re.compile(
    rf"^[ \t>#*_]*(?:<\s*output\s*>|(?:{_FINAL}|final word|word|replacement|fill)[ \t*_]*:)"
    rf"{_CLOSE_FLAG}", re.I | re.M)


def _body(reply: str, flag: re.Pattern[str]) -> str:
    """The reply without its think block, after its last flag line, inside its last fence."""
    text = answer_text(reply)
    flags = list(flag.finditer(text))
    if flags:
        text = text[flags[-1].end():]
    fences = list(_FENCE_RE.finditer(text))
    if fences:
        return fences[-1].group(1)
    return _STRAY_FENCE_RE.sub("", text)  # the close of a fence the flag was inside


def _is_prose(line: str) -> bool:
    """A line no verse has: over 100 characters (a paragraph of reasoning)."""
    return len(line.strip()) > 100


def _is_lead_in(line: str) -> bool:
    s = line.strip()
    return not s or s.endswith(":") or bool(_PREAMBLE_RE.match(s)) or _is_prose(s)


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
    raw = _body(reply, _POEM_FLAG_RE).strip()
    if len(raw) > 1 and raw[0] in _QUOTES and raw[-1] in _QUOTES:
        raw = raw[1:-1]
    lines = raw.splitlines()
    while lines and (_is_lead_in(lines[0])
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
    lines = [x.strip() for x in _body(reply, _WORD_FLAG_RE).splitlines() if x.strip()]
    while len(lines) > 1 and _is_lead_in(lines[0]):
        lines.pop(0)
    first = _LABEL_RE.sub("", lines[0] if lines else "")
    m = re.search(r"\*\*([^*]+)\*\*|[\"“]([^\"”]+)[\"”]", first)
    cand = next(g for g in m.groups() if g) if m else first
    cand = cand.strip().strip(_QUOTES + ".,;:!?*_ ").strip()
    return cand if re.fullmatch(r"[A-Za-z][A-Za-z'’-]*", cand) else None


def extract_fill(reply: str) -> str | None:
    """A blank's replacement: a one-line reply without label or wrapping quotes, else None."""
    lines = [x.strip() for x in _body(reply, _WORD_FLAG_RE).splitlines() if x.strip()]
    while len(lines) > 1 and _is_lead_in(lines[0]):
        lines.pop(0)
    if len(lines) != 1:
        return None
    s = _LABEL_RE.sub("", lines[0]).strip()
    while len(s) > 1 and s[0] == s[-1] and s[0] in "*_`":
        s = s.strip(s[0]).strip()
    if len(s) > 1 and s[0] in _QUOTES and s[-1] in _QUOTES:
        s = s[1:-1].strip()
    return s or None


_PAIR = r'["“]([^"“”\n]+)["”]\s+and\s+["“]([^"“”\n]+)["”]'
_PAIR_RE = re.compile(_PAIR)
_PAIR_LINE_RE = re.compile(r"[\s>*_`•\-\d.)]*" + _PAIR + r"[\s*_`.!,;:]*")


def extract_pair(reply: str) -> tuple[str, str] | str:
    """The word pair a reply gives, or why there is none: among the distinct pairs written
    "a" and "b" (straight or curly quotes), the one standing on a line of its own, else the
    only one."""
    body = answer_text(reply)

    def distinct(found: list[tuple[str, str]]) -> list[tuple[str, str]]:
        return list({(a.strip().lower(), b.strip().lower()): (a.strip(), b.strip())
                     for a, b in found}.values())
    alone = distinct([(m.group(1), m.group(2)) for line in body.splitlines()
                      if (m := _PAIR_LINE_RE.fullmatch(line))])
    pairs = distinct(_PAIR_RE.findall(body))
    for got in (alone, pairs):
        if len(got) == 1:
            return got[0]
    if not pairs:
        return 'no word pair written "a" and "b" found in the reply'
    shown = ", ".join(f'"{a}"/"{b}"' for a, b in pairs)
    return f"several word pairs in the reply ({shown}): cannot tell which is the example"
