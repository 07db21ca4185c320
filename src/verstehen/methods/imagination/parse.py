"""Read the multiple-choice questions models invent for the "shared imagination" probe.

Models are asked for ``Question: ...``, four choices ``A.``-``D.`` (one per line or all on one
line) and ``Answer: ...``; context questions follow a ``Concept: ...`` / ``Content: ...`` turn.
Every reply gives a ParsedQuestion or a QuestionFailure with a short, stable reason; nothing raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verstehen.text.tables import plural

_QUESTION = re.compile(r"^(?:question|q)\s*(\d+)?\s*(?:[:.)]\s*(.*))?$", re.I)
_CHOICE = re.compile(r"^(?:\(([A-H])\)|([A-H])([.):]))(?=\s|$)\s*(.*)$")
_OPTIONS = re.compile(r"^(?:options|choices|answer choices)\s*:\s*(?=\(?[A-H][.):)])", re.I)
_ANSWER = re.compile(
    r"^(?:the\s+)?(?:(?:correct|right|final)\s+)?answer\s*(?:is\b:?|[:–-])\s*(.*)$", re.I
)
_ANSWER_LETTER = re.compile(r"^(?:\(([A-Z])\)|([A-Z])(?:[.):,;]|\s+[-–—:]|$))")
_LOOSE_LETTER = re.compile(r"^(?:([A-D])\s|\(?([a-z])\)?[.)]?$)")
_CONCEPT = re.compile(r"^concept(?:\s+name)?\s*:\s*(.*)$", re.I)
_CONTENT = re.compile(r"^content\s*:\s*(.*)$", re.I)
# the template's "[choice A]" copied instead of filled: a whole field in brackets, or the
# template's own placeholders anywhere in it
_PLACEHOLDER = re.compile(r"^\[[^\]]*\]$|\[(?:question statement|choice [A-D]|the correct "
                          r"choice)\]", re.I)
_BARE_LABEL = re.compile(r"^\(?[A-H]\)?[.):]?$")
_LIST_HEADING = re.compile(r"\s*(?:(?:possible\s+)?(?:answer\s+)?(?:options|choices))\s*:?\s*$",
                           re.I)
PLACEHOLDER = "template placeholder left in"


@dataclass(frozen=True)
class ParsedQuestion:
    """A question statement, its four choices (A-D) and the index of the designated answer."""

    stem: str
    choices: tuple[str, str, str, str]
    answer: int


@dataclass(frozen=True)
class QuestionFailure:
    """Why a reply could not be read; `reason` is short, stable wording."""

    reason: str


Parsed = ParsedQuestion | QuestionFailure


def _lines(text: str) -> list[str]:
    unmarked = (re.sub(r"\*\*|__|`", "", line).strip() for line in text.splitlines())
    return [re.sub(r"^(?:#+\s*|[-*•]\s+)", "", line).strip() for line in unmarked]


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


def _split(letter: str, style: str, text: str) -> list[tuple[str, str]]:
    """Cut `text` (the rest of choice `letter`) at the following labels, in order, same style."""
    out = []
    while letter < "H":
        nxt = chr(ord(letter) + 1)
        label = rf"\({nxt}\)" if style == "(" else re.escape(nxt + style)
        m = re.search(rf"\s{label}(?=\s|$)", text)
        if not m:
            break
        out.append((letter, text[: m.start()].strip()))
        letter, text = nxt, text[m.end() :]
    return [*out, (letter, text.strip())]


def _inline(text: str) -> tuple[str, list[tuple[str, str]]]:
    """Split "stem A. x B. y C. z D. w" into the stem and its choices (only with all of A-D)."""
    m = re.search(r"(?:^|\s)(?:\((A)\)|(A)([.):]))(?=\s|$)", text)
    if m:
        parts = _split("A", "(" if m[1] else m[3], text[m.end() :])
        if len(parts) >= 4:
            return text[: m.start()].strip(), parts
    return text, []


def _answer_index(raw: str, texts: tuple[str, ...]) -> int | QuestionFailure:
    raw = re.sub(r"^(?:option|choice)\s+", "", raw.strip(), flags=re.I)
    if not raw:
        return QuestionFailure("empty answer")
    hits = [i for i, t in enumerate(texts) if _norm(t) == _norm(raw)]
    # "B text" and a lone "b" count as letters only when no choice reads so
    m = _ANSWER_LETTER.match(raw) or (None if hits else _LOOSE_LETTER.match(raw))
    if m:
        letter = next(g for g in m.groups() if g).upper()
        if letter not in "ABCD":
            return QuestionFailure(f"answer {letter} is not one of A-D")
        return "ABCD".index(letter)
    return hits[0] if len(hits) == 1 else QuestionFailure("answer not one of the choices")


def _stem(before: list[str], labelled: bool) -> str:
    if labelled:
        return " ".join(line for line in before if line)
    kept: list[str] = []
    for line in reversed(before):  # the paragraph just above choice A, minus a "Here is...:" line
        if not line or (kept and line.endswith(":")):
            if kept:
                break
            continue
        kept.insert(0, line)
    return " ".join(kept)


def _parse_block(lines: list[str], labelled: bool) -> Parsed:
    before: list[str] = []
    choices: list[tuple[str, str]] = []
    answer: str | None = None
    pending = False
    for line in lines:
        if pending and line:
            answer, pending = line, False
        elif (m := _ANSWER.match(line)) and answer is None and not pending:
            answer, pending = m[1].strip(), not m[1].strip()
        elif c := _CHOICE.match(_OPTIONS.sub("", line)):
            choices += _split(c[1] or c[2], "(" if c[1] else c[3], c[4])
        elif not choices and not _ANSWER.match(line):
            q = _QUESTION.match(line)
            stem, inline = _inline((q[2] or "") if q else line)
            before.append(stem)
            choices += inline
    letters = [letter for letter, _ in choices]
    if not choices:
        return QuestionFailure("no choices")
    if dup := next((x for i, x in enumerate(letters) if x in letters[:i]), None):
        return QuestionFailure(f"duplicated label {dup}")
    if len(letters) != 4:
        return QuestionFailure(f"found {plural(len(letters), 'choice')}, expected 4")
    if missing := next((x for x in "ABCD" if x not in letters), None):
        return QuestionFailure(f"missing choice {missing}")
    by_label = dict(choices)
    texts = (by_label["A"], by_label["B"], by_label["C"], by_label["D"])
    if empty := next((x for x, t in zip("ABCD", texts, strict=True) if not _norm(t)), None):
        return QuestionFailure(f"empty choice {empty}")
    stem = _LIST_HEADING.sub("", _stem(before, labelled)).strip()
    if any(_PLACEHOLDER.search(t.strip()) for t in (stem, *texts)):
        return QuestionFailure(PLACEHOLDER)
    if any(_BARE_LABEL.match(t.strip()) for t in texts):
        return QuestionFailure("a choice is only a letter")
    if len({_norm(t) for t in texts}) < 4:
        return QuestionFailure("duplicated choices")
    if not stem:
        return QuestionFailure("no question statement")
    if answer is None:
        return QuestionFailure("no answer line")
    index = _answer_index(answer, texts)
    return index if isinstance(index, QuestionFailure) else ParsedQuestion(stem, texts, index)


def _blocks(lines: list[str], numbered: bool) -> list[tuple[int, list[str]]]:
    starts = [
        (i, int(m[1]) if m[1] else 0)
        for i, line in enumerate(lines)
        if (m := _QUESTION.match(line)) and (m[1] or not numbered)
    ]
    ends = [i for i, _ in starts[1:]] + [len(lines)]
    return [(number, lines[i:end]) for (i, number), end in zip(starts, ends, strict=False)]


def _pick(results: list[Parsed]) -> Parsed:
    """The last complete question, else the last failure of a block with choices, else the last."""
    done = [r for r in results if isinstance(r, ParsedQuestion)]
    tried = [r for r in results if r != QuestionFailure("no choices")]
    return (done or tried or results)[-1]


def parse_question(text: str) -> Parsed:
    """Read one question: of several "Question:" blocks the last complete one wins, else the last
    block with choices gives the failure; with no label the lines just above A are the stem."""
    lines = _lines(text)
    if not any(lines):
        return QuestionFailure("empty reply")
    blocks = _blocks(lines, numbered=False)
    if not blocks:
        return _parse_block(lines, labelled=False)
    return _pick([_parse_block(block, True) for _, block in blocks])


def parse_questions(text: str, count: int) -> list[Parsed]:
    """Read "Question 1:" ... "Question <count>:" (or, unnumbered, the blocks in order), one entry
    each; repeated numbers follow parse_question's rule; a missing one is "question k missing"."""
    lines = _lines(text)
    blocks = _blocks(lines, numbered=True)
    if not blocks:
        blocks = [(k, block) for k, (_, block) in enumerate(_blocks(lines, False), start=1)]
    found: dict[int, list[Parsed]] = {}
    for number, block in blocks:
        found.setdefault(number, []).append(_parse_block(block, True))
    return [
        _pick(found[k]) if k in found else QuestionFailure(f"question {k} missing")
        for k in range(1, count + 1)
    ]


def _paragraphs(lines: list[str]) -> list[str]:
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", "\n".join(lines)) if p.strip()]


def parse_concept(text: str) -> tuple[str, str] | QuestionFailure:
    """Read "Concept: X / Content: Y" into (X, Y); without either label the longest paragraph is Y
    and X is ""; a Concept without a Content paragraph fails with "no content paragraph"."""
    lines: list[str] = []
    for line in _lines(text):
        lines += (
            re.split(r"\s+(?=content\s*:)", line, flags=re.I) if _CONCEPT.match(line) else [line]
        )
    concept = next((m[1].strip(" \"'") for line in lines if (m := _CONCEPT.match(line))), None)
    start = next(((i, m[1]) for i, line in enumerate(lines) if (m := _CONTENT.match(line))), None)
    if start is None:
        paragraphs = [] if concept is not None else _paragraphs(lines)
        if not paragraphs:
            return QuestionFailure("no content paragraph")
        return "", max(paragraphs, key=len)
    paragraphs = _paragraphs([start[1], *lines[start[0] + 1 :]])
    if not paragraphs:
        return QuestionFailure("no content paragraph")
    return QuestionFailure(PLACEHOLDER) if _PLACEHOLDER.search(paragraphs[0]) else (
        concept or "", paragraphs[0])
