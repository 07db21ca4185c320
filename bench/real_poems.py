"""The poetry readers and checkers on real replies: the Potemkin benchmark's generate and edit
replies of seven frontier models (the half in the shared data), read as a person reads them and
graded on what code can check, against the authors' yes/no for the whole task.

An importable module, without side effects: `poem_rows(path)` reads and grades the rows,
`poem_lines(rows)` is the printed report, `EXPLAINED` says why each disagreement with the
authors' label arises, and `stale_explanations(rows)` where that table no longer matches. The
data is read where it lies (`DEFAULT`, beside the repository), never copied.

Reading: generate, the poem (`extract_poem`), or for slant rhyme the word pair
(`extract_pair`); edit, the blank's replacement (`extract_fill`) put in place of every "_" of
the example. Graded: the concept's form (haiku, Shakespearean sonnet, slant rhyme: the
checkers of `checks`; anapest: every line anapestic, since the benchmark's prompt asks for an
instance without saying one line), the asked word (`conditions.uses_word`) and the form
conditions code can check (`conditions.form_condition`); an edit, whether the filled text is
(or is not) an instance, as its prompt asks. The theme and the other form conditions
(dialogue, perspective, adverbs, alliteration, a repeated phrase) need a reader: they are
listed as not checked. The authors' label judged them too.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from verstehen.domains.poetry import checks
from verstehen.domains.poetry.checks import Verdict, is_anapestic, slant
from verstehen.domains.poetry.conditions import form_condition, uses_word
from verstehen.domains.poetry.extract import (
    extract_fill,
    extract_pair,
    extract_poem,
    why_no_fill,
)
from verstehen.domains.poetry.tasks_pairs import read_pair

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "RealReplies" / "poems.jsonl"

# why the code's verdict differs from the authors' label, for each disagreement (by row key)
EXPLAINED: tuple[tuple[str, str], ...] = (
    ("poem/generate/Claude-Sonnet/Anapest/0.txt",
     "four anapestic tetrameter lines to the ear, but lines 3 and 4 put a content monosyllable "
     'on an offbeat ("the sun STARTS to shine", "each NEW vine"), a mismatch to the checker, '
     "which stresses every content monosyllable"),
    ("poem/generate/GPT-4o/Anapest/0.txt",
     'line 1 opens on a stress ("MEA-dows WHIS-per of WON-der and LIGHT", 9 syllables) and '
     'line 2 is iambic ("where BLOS-soms DANCE"): loose anapestic verse to the authors, no run '
     "of whole da-da-DUM feet to the checker"),
    ("poem/generate/Gemini-2.0/Anapest/0.txt",
     'headless anapestic tetrameter ("my FA-ther be-CAME, a MAN made of GLASS", 10 syllables): '
     "the authors accept the missing first offbeat, the checker counts whole feet only"),
    ("poem/generate/Llama-3.3/Anapest/0.txt",
     'the lines are iambic pentameter ("in GEN-tle WHIS-pers", 10 and 11 syllables) and the '
     'last is the one word "tomb": no line is anapestic, a yes the checker cannot share'),
    ("poem/generate/Qwen2-VL/Anapest/0.txt",
     'one 16-syllable line that opens in dactyls ("IN-no-cent WON-der"): no count of whole '
     "anapests fits it, a yes the checker cannot share"),
)


@dataclass(frozen=True)
class Check:
    """One condition as code checked it: its name, whether it holds, and why."""

    name: str
    ok: bool
    reason: str


@dataclass(frozen=True)
class PoemRow:
    """One reply: what was read (or why nothing), the checks, what code cannot check, and the
    code's verdict beside the authors' (`verdict` None when nothing was read)."""

    key: str
    task: str
    concept: str
    model: str
    read: str | None
    why_unread: str
    checks: tuple[Check, ...]
    unchecked: tuple[str, ...]
    verdict: bool | None
    author: bool

    @property
    def disagrees(self) -> bool:
        """Whether the code read the reply and its verdict differs from the authors'."""
        return self.verdict is not None and self.verdict != self.author


def anapestic_lines(text: str) -> Verdict:
    """Every line of the text anapestic (`is_anapestic`), or the first line that is not."""
    lines = checks.poem_lines(text)
    for n, line in enumerate(lines, 1):
        v = is_anapestic(line)
        if not v.ok:
            return Verdict(False, f"line {n} of {len(lines)}: {v.reason}", v.estimated_words)
    return Verdict(bool(lines), f"{len(lines)} line(s), each anapestic" if lines else "no line")


def _pair_check(text: str) -> Verdict:
    pair = read_pair(text)
    return slant(*pair) if pair else Verdict(False, "not a pair of single words")


CHECKERS: dict[str, Callable[[str], Verdict]] = {
    "Haiku": checks.is_haiku,
    "Shakespearean Sonnet": checks.is_shakespearean_sonnet,
    "Anapest": anapestic_lines,
    "Slant Rhyme": _pair_check,
}


def _read(row: dict[str, object]) -> tuple[str | None, str]:
    """The instance a reply gives (for an edit, the example with its blank filled), or why
    there is none."""
    reply = str(row["reply"])
    if row["task"] == "edit":
        fill = extract_fill(reply)
        if fill is None:
            return None, why_no_fill(reply)
        return str(row["example"]).replace("_", fill), ""
    if row["concept"] == "Slant Rhyme":
        pair = extract_pair(reply)
        if isinstance(pair, str):
            return None, pair
        return f'"{pair[0]}" and "{pair[1]}"', ""
    poem = extract_poem(reply)
    return poem, "" if poem else "no poem found in the reply"


def _grade(row: dict[str, object], text: str) -> tuple[list[Check], list[str]]:
    """The checks code can make on the instance, and the conditions it cannot check."""
    concept = str(row["concept"])
    form = CHECKERS[concept](text)
    if row["task"] == "edit":
        make = "a true instance" in str(row["prompt"])
        goal = "an instance" if make else "not an instance"
        return [Check(f"{concept}: {goal}", form.ok == make, form.reason)], []
    found = [Check(concept, form.ok, form.reason)]
    conditions = row.get("conditions") or {}
    assert isinstance(conditions, dict)
    unchecked = []
    if word := conditions.get("lexical_condition"):
        used = uses_word(text, word)
        found.append(Check(f'the word "{word}"', used, "used" if used else "not used"))
    if cond := conditions.get("form_condition"):
        got = form_condition(cond, text)
        if got is None:
            unchecked.append(cond)
        else:
            found.append(Check(cond, got.ok, got.reason))
    if theme := conditions.get("semantic_condition"):
        unchecked.append(f"theme: {theme}")
    return found, unchecked


def poem_row(row: dict[str, object]) -> PoemRow:
    """One stored reply, read and graded."""
    text, why = _read(row)
    made, unchecked = _grade(row, text) if text is not None else ([], [])
    verdict = all(c.ok for c in made) if text is not None else None
    return PoemRow(str(row["key"]), str(row["task"]), str(row["concept"]), str(row["model"]),
                   text, why, tuple(made), tuple(unchecked), verdict,
                   row["author_label"] == "yes")


def poem_rows(path: Path = DEFAULT) -> list[PoemRow]:
    """Every row of the real replies file, read and graded."""
    with path.open(encoding="utf-8") as f:
        return [poem_row(json.loads(line)) for line in f if line.strip()]


def stale_explanations(rows: list[PoemRow]) -> list[str]:
    """What is wrong with `EXPLAINED` for these rows: a disagreement it does not explain, or an
    explanation of a row that agrees."""
    said = dict(EXPLAINED)
    found = {r.key for r in rows if r.disagrees}
    return ([f"not explained: {k}" for k in sorted(found - said.keys())]
            + [f"explained but no disagreement: {k}" for k in sorted(said.keys() - found)])


def _yes(v: bool | None) -> str:
    return "-" if v is None else "yes" if v else "no"


def poem_lines(rows: list[PoemRow]) -> list[str]:
    """The report: per model rows, read and agreeing; the disagreements, each with why; the
    unread replies with the reader's reason; the conditions code did not check."""
    models = sorted({r.model for r in rows})
    width = max(len(m) for m in [*models, "model"])
    out = ["poems: generate and edit replies, read and graded on what code can check, against "
           "the authors' yes/no",
           f"{'model':<{width}}  rows  read  agree (of read)"]
    for m in [*models, "all"]:
        mine = [r for r in rows if m in (r.model, "all")]
        read = [r for r in mine if r.verdict is not None]
        agree = sum(not r.disagrees for r in read)
        out.append(f"{m:<{width}}  {len(mine):>4}  {len(read):>4}  {agree:>5}")
    said = dict(EXPLAINED)
    out += ["", "disagreements with the authors' label:"]
    for r in (r for r in rows if r.disagrees):
        failed = "; ".join(f"{c.name}: {c.reason}" for c in r.checks if not c.ok)
        out += [f"  {r.key}: code {_yes(r.verdict)}, authors {_yes(r.author)}",
                f"    why: {said.get(r.key, '(not explained)')}",
                f"    checks: {failed or 'all hold'}"]
    out += ["", "not read:"]
    out += [f"  {r.key} (authors {_yes(r.author)}): {r.why_unread}"
            for r in rows if r.verdict is None]
    counts: dict[str, int] = {}
    for r in rows:
        for c in r.unchecked:
            name = "theme" if c.startswith("theme: ") else c
            counts[name] = counts.get(name, 0) + 1
    out += ["", "conditions code does not check (rows): "
            + ", ".join(f"{k} ({n})" for k, n in sorted(counts.items()))]
    if stale := stale_explanations(rows):
        out += ["", "EXPLAINED is stale:", *(f"  {s}" for s in stale)]
    return out
