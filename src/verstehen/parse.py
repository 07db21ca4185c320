"""Reading a model's answer: "I don't know", a refusal, a choice label, yes/no, a final tag.

Numbers are read in `parse_numbers.py`.

Every function here is pure (no I/O) and follows the rule of `verstehen.reading` on where a
reply's final answer stands: each first drops a leading reasoning block (`<think>...</think>`),
and a reply that ends inside an unfinished reasoning block reads as empty.

`is_idk(text)` -- True when the reply *starts* with a profession of ignorance and does not go on
to hedge into an answer:
  1. Normalize: lowercase, drop apostrophes (so "don't" == "dont"), turn every other
     non-alphanumeric character into a space, collapse spaces.
  2. Drop an optional courtesy or answer prefix: "sorry", "unfortunately", "honestly", "answer",
     "final answer", "the answer is".
  3. The rest must begin with one of the phrases in `IDK_PHRASES` ("i dont know", "not sure",
     "i cannot answer", "unknown", "idk", "im unable to", ...) at a word boundary.
  4. And the text after that phrase must not contain a hedge word that introduces an answer:
     "but", "however", "though", "although", "guess", "think", "believe", "probably", "likely",
     "maybe", "perhaps", "approximately", "estimate". So "I'm not sure, but it is 42" is an
     answer (42), while "I don't know." and "I cannot determine this without a calculator." are not.
A reply that begins with anything else ("The answer is 42", "B. I don't know about others but")
is never IDK.
"""

from __future__ import annotations

import re

from verstehen.reading import answer_text, offered_as_alternative

# ---------------------------------------------------------------- refusals

_REFUSAL_RE = re.compile(
    r"\b(?:fictional|fictitious|imaginary|hypothetical|made up|not exist|doesnt exist|no such"
    r"|not a real|not real|not a recogni[sz]ed|not a known|not aware of|not familiar"
    r"|no information|no record|no known|cannot be answered|cant be answered|can not be answered"
    r"|cannot answer|cant answer|unable to answer|cannot provide|i apologi[sz]e|im sorry"
    r"|i am sorry)\b")


def is_refusal(text: str) -> bool:
    """Whether a reply declines to answer, e.g. by calling the concept fictional or unknown.

    Read only where no choice was found: "A. ..., though the concept is fictional" is an answer.
    """
    return is_idk(text) or bool(_REFUSAL_RE.search(_idk_normal(text)))


# ---------------------------------------------------------------- I don't know

IDK_PHRASES = (
    "i dont know", "i do not know", "dont know", "do not know", "i really dont know",
    "not sure", "im not sure", "i am not sure", "not certain", "im not certain",
    "i am not certain", "no idea", "i have no idea", "idk", "unknown",
    "i cannot answer", "i cant answer", "i can not answer", "i cannot determine",
    "i cant determine", "i can not determine", "i cannot say", "i cant say",
    "i cannot compute", "i cant compute", "i cannot calculate", "i cant calculate",
    "im unable to", "i am unable to", "unable to", "im not able to", "i am not able to",
    "i dont have enough information", "i do not have enough information",
)
_IDK_PREFIX = r"(?:(?:sorry|unfortunately|honestly|im sorry|i am sorry|final answer|answer"
_IDK_PREFIX += r"|the answer is|my answer is) )*"
_IDK_RE = re.compile(
    "^" + _IDK_PREFIX + "(?:" + "|".join(re.escape(p) for p in IDK_PHRASES) + r")\b(?P<rest>.*)$"
)
_HEDGE_RE = re.compile(
    r"\b(?:but|however|though|although|guess|think|believe|probably|likely|maybe|perhaps"
    r"|approximately|estimate)\b"
)


def _idk_normal(text: str) -> str:
    text = re.sub(r"['’‘`]", "", text.lower())
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


def is_idk(text: str) -> bool:
    """True when the reply professes ignorance and gives no answer (rule in the module doc)."""
    m = _IDK_RE.match(_idk_normal(answer_text(text)))
    return m is not None and not _HEDGE_RE.search(m.group("rest"))


# ---------------------------------------------------------------- multiple choice

_OPEN = r"[(\[*_`'\"]*"
_CLOSE = r"[)\]*_`'\"]*"
_CUE_RE = re.compile(
    r"(?:\banswer|\bchoice|\boption)\s*(?:is|:|=|would be|should be|must be|will be)\s*:?\s*"
    r"(?:option|choice|letter)?\s*|\bi(?:\s+would|\s+will|\s*['’]d)?\s+(?:choose|pick|select"
    r"|go with)\s+(?:option|choice)?\s*|\\boxed\{",
    re.I,
)


_CUED_LABEL_RE = re.compile(
    r"(?P<open>" + _OPEN + r")[ \t]*(?P<lab>[A-Za-z0-9]+)(?P<close>" + _CLOSE + ")"
)
_WEAK_RE = re.compile(r"\(([A-Za-z0-9]+)\)|\[([A-Za-z0-9]+)\]|\*\*([A-Za-z0-9]+)\*\*")


def _norm_choice(text: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def _label_at(text: str, pos: int, labels: dict[str, str]) -> str | None:
    """The label starting at `pos` (after a cue), under the case rules of `parse_choice`; None
    when it is one of several offered as alternatives ("the answer is A or B")."""
    m = _CUED_LABEL_RE.match(text, pos)
    if not m or offered_as_alternative(text, pos, m.end()):
        return None
    lab, rest = m.group("lab"), text[m.end():]
    if lab in labels.values():
        return lab if not rest[:1].isalnum() else None
    wrapped = "(" in m.group("open") and ")" in m.group("close")
    wrapped = wrapped or ("[" in m.group("open") and "]" in m.group("close"))
    wrapped = wrapped or ("*" in m.group("open") and "*" in m.group("close"))
    if lab.upper() in labels and (wrapped or re.match(r"\s*(?:$|[.,;:!?)\]\n])", rest)):
        return labels[lab.upper()]
    return None


def _leading_label(text: str, labels: dict[str, str]) -> str | None:
    """A label the reply opens with: "(c) ...", "[B]", "B.", "B)", "B:", "**B**", "B" + newline."""
    s = text.lstrip(" \t*_#>`'\"")
    if m := re.match(r"[(\[]([A-Za-z0-9]+)[)\]]", s):
        return labels.get(m.group(1).upper())
    m = re.match(r"([A-Za-z0-9]+)[*_`'\"]*(?=[.):]|\s*$|\s*\n)", s)
    if m and m.group(1) in labels.values():
        return m.group(1)
    return None


def parse_choice(
    text: str, labels: list[str], choices: list[str] | None = None
) -> str | None:
    """The label the reply chooses among `labels`, or None when there is none or several.

    Strong signals, all collected: the reply, or its last line (code fences aside), is just a
    label in any case ("b", "**B**", reasoning then "B");
    the reply opens with an uppercase label followed by ".", ")", ":" or the end of its line
    ("B. text", "B) text"), or with "(c)"/"[c]" in any case; a cue followed by a label: "answer
    is"/"answer:"/"**Answer:** "/"choice is"/"option is"/"I choose"/"I'd go with"/"\\boxed{",
    then an uppercase label not followed by a letter, or a lowercase one in parentheses, brackets,
    bold, or followed by punctuation or the end ("answer is c", "answer is (c)", but not
    "the answer is a bit..."). A bare "A" that starts a sentence ("A dog is...") is never read.
    One distinct label -> that label; several -> None.
    Without a strong signal: the reply equal to exactly one choice's text (case and punctuation
    ignored, when `choices` is given); else exactly one distinct label written as "(X)", "[X]"
    or "**X**" somewhere in the reply.
    """
    text = answer_text(text)
    by_upper = {lab.upper(): lab for lab in labels}
    lines = [line for line in text.splitlines() if line.strip(" \t`")]
    found: set[str] = set()
    for whole in (text, lines[-1] if lines else ""):
        bare = whole.strip(" \t\n*_`'\"()[].:")
        if bare.upper() in by_upper:
            found.add(by_upper[bare.upper()])
    if lab := _leading_label(text, by_upper):
        found.add(lab)
    for cue in _CUE_RE.finditer(text):
        if lab := _label_at(text, cue.end(), by_upper):
            found.add(lab)
    if found:
        return found.pop() if len(found) == 1 else None
    reply = _norm_choice(text)
    if choices is not None and reply:
        hits = {lab for lab, c in zip(labels, choices, strict=True) if _norm_choice(c) == reply}
        if hits:
            return hits.pop() if len(hits) == 1 else None
    weak = _weak_labels(text, by_upper)
    return weak.pop() if len(weak) == 1 else None


def _weak_labels(text: str, labels: dict[str, str]) -> set[str]:
    found = set()
    for m in _WEAK_RE.finditer(text):
        g = next(x for x in m.groups() if x)
        if g.upper() in labels:
            found.add(labels[g.upper()])
    return found


# ---------------------------------------------------------------- yes / no

_YES_NO_CUE_RE = re.compile(
    r"\banswer\s*(?:is|would be|will be|should be|must be)?\s*[:=—–]?\s*[*_`'\"]*\s*"
    r"(?P<word>yes|no)\b"
    r"|\\boxed\{\s*(?:\\(?:text|textbf|mathrm|mathbf)\s*\{\s*)?(?P<boxed>yes|no)\b", re.I
)
# a reply that opens with its answer: the word then punctuation or the line's end ("No.",
# "**Yes**,"), so an idiom that opens a sentence ("No problem, let me look") is not read
_LEADING_YES_NO_RE = re.compile(
    r"^[\s*_`'\"#>(\[]*(?P<word>yes|no)(?=[*_`'\"]*(?:[.,!:;)\]—–-]|[ \t]*$))", re.I | re.M)
_BARE_YES_NO_RE = re.compile(r"^[\s*_`'\"#>(\[]*(?P<word>yes|no)[\s*_`'\".!)\]]*$", re.I)


def parse_yes_no(text: str) -> bool | None:
    """Yes -> True, No -> False, None when the reply commits to neither.

    The last "ANSWER: Yes/No" (or "the answer is: no", or LaTeX "\\boxed{\\text{No}}") wins,
    unless the reply ends with a line that is a bare yes or no after it (a reply that reasons,
    "maybe the answer is no", then answers "**Yes**"); without such a cue, a reply whose last
    line is a bare yes or no, else one that starts with yes or no followed by punctuation or the
    end of its line ("No, because..."); a yes or no elsewhere in prose is not read, since
    "there is no ..." is not an answer. Answers offered as alternatives ("either 'ANSWER: Yes'
    or 'ANSWER: No'", an echo of the instructions) are not answers
    (`reading.offered_as_alternative`).
    """
    body = answer_text(text)
    cues = [m for m in _YES_NO_CUE_RE.finditer(body)
            if not offered_as_alternative(body, m.start(), m.end())]
    lines = list(re.finditer(r"^.*\S.*$", body, re.M))
    last = _BARE_YES_NO_RE.match(lines[-1].group()) if lines else None
    if cues and not (last and lines[-1].start() >= cues[-1].end()):
        word = cues[-1].group("word") or cues[-1].group("boxed")
        return word.lower() == "yes"
    if last is not None:
        return last.group("word").lower() == "yes"
    lead = _LEADING_YES_NO_RE.match(body)
    return None if lead is None or cues else lead.group("word").lower() == "yes"


# ---------------------------------------------------------------- final tags and verdicts

FINAL_TAG = "FINAL ANSWER:"
_EMPHASIS = r"[*_`#\s]*"


def _tag_re(tag: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in tag.rstrip(":").split()]
    colon = r"\s*:" if tag.rstrip().endswith(":") else ""
    return re.compile(_EMPHASIS + r"\s+".join(words) + r"[*_`]*" + colon + r"[*_`]*", re.I)


def after_final_tag(text: str, tag: str = FINAL_TAG) -> str | None:
    """The text after the last `tag` (any case, markdown emphasis allowed), or None without one."""
    body = answer_text(text)
    found = list(_tag_re(tag).finditer(body))
    if not found:
        return None
    return body[found[-1].end():].strip()


_VERDICT_RE = re.compile(r"\b(?P<word>incorrect|not\s+correct|correct)\b", re.I)


def parse_correct_incorrect(text: str, tag: str = FINAL_TAG) -> bool | None:
    """A judge's grade: "correct" -> True, "incorrect" -> False, None when it gives neither.

    The words after the last final tag count; without a tag, the last non-empty line does.
    """
    region = after_final_tag(text, tag)
    if region is None:
        lines = [line for line in answer_text(text).splitlines() if line.strip()]
        region = lines[-1] if lines else ""
    match = _VERDICT_RE.search(region)
    if match is None:
        return None
    return match.group("word").lower() == "correct"


_NUMBERED_RE = re.compile(
    r"^\s*[*_#]*\s*(?:question\s*)?(?P<n>\d{1,2})\s*[.):]\s*[*_]*\s*(?P<text>.*)$", re.I)
_BULLET_RE = re.compile(r"^\s*[-*•]\s+(?P<text>\S.*)$")


def numbered_items(text: str, limit: int | None = None) -> list[str]:
    """The items of a numbered list ("1. ...", "2) ...", "Question 3: ..."), else of a bulleted one.

    Lines after an item's first line belong to it until the next item or a blank line.
    """
    lines = answer_text(text).splitlines()
    items = _collect(lines, _NUMBERED_RE) or _collect(lines, _BULLET_RE)
    cleaned = [re.sub(r"\s+", " ", item.replace("**", "")).strip() for item in items]
    cleaned = [item for item in cleaned if item]
    return cleaned[:limit] if limit is not None else cleaned


def _collect(lines: list[str], start: re.Pattern[str]) -> list[str]:
    items: list[str] = []
    open_item = False
    for line in lines:
        match = start.match(line)
        if match:
            items.append(match.group("text"))
            open_item = True
        elif not line.strip():
            open_item = False
        elif open_item:
            items[-1] += " " + line.strip()
    return items
