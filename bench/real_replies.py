"""The readers on replies real models wrote: the Potemkin benchmark's stored replies (one half).

Usage: python bench/real_replies.py [--data DIR] [--before REV] [--list]

Reads `../shared/data/RealReplies/` (GPT-4o, Claude 3.5 Sonnet, Gemini 2.0, Llama 3.3 70B,
DeepSeek V3 and R1, Qwen2-VL; see its SOURCE.md) where it lies: nothing is copied. Prints, per
model:
- payoff matrices (game-theory generate and edit replies): how many are read, how many are cut
  off (inside the reasoning block, inside the last matrix), and every unread reply with the
  reader's reason;
- classify replies: how many yes/no answers are read, how many agree with the benchmark
  authors' reading of the same reply, and every unread reply with why;
- poems (`real_poems.py`): read, agreement with the authors' labels, each disagreement
  explained.
`--before REV` also reads every matrix and yes/no with the readers of git revision REV (its
`src/` exported to a temporary folder) and counts the replies read then and read differently
now: the promise that nothing read before is read otherwise. Exit 2 when the data is missing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from real_poems import poem_lines, poem_rows

from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.parse import parse_yes_no
from verstehen.reading import answer_text, ends_inside_reasoning

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT.parent / "shared" / "data" / "RealReplies"
SHORT = {"deepseek-ai/DeepSeek-V3": "DeepSeek-V3", "deepseek-ai/DeepSeek-R1": "DeepSeek-R1",
         "gpt-4o": "GPT-4o", "Qwen/Qwen2-VL-72B-Instruct": "Qwen2-VL",
         "meta-llama/Llama-3.3-70B-Instruct-Turbo": "Llama-3.3",
         "gemini-2.0-flash-exp": "Gemini-2.0", "claude-3-5-sonnet-20241022": "Claude-Sonnet"}


@dataclass(frozen=True)
class MatrixRead:
    """One game-theory reply: the matrix read (as JSON) or why none was."""

    key: str
    model: str
    game: list[list[list[str]]] | None
    reason: str | None
    cut_off: bool


@dataclass(frozen=True)
class YesNoRead:
    """One classify reply: the answer read, the authors' reading, and why none was read."""

    key: str
    model: str
    said: bool | None
    upstream: bool | None
    reason: str | None


def rows(path: Path) -> list[dict]:
    """The JSON lines of one file of the data set."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def read_matrices(data: Path) -> list[MatrixRead]:
    """Every game-theory reply through `parse_game`."""
    out = []
    for r in rows(data / "matrices.jsonl"):
        got = parse_game(r["reply"])
        if isinstance(got, ParseFailure):
            out.append(MatrixRead(r["key"], r["model"], None, got.reason, got.cut_off))
        else:
            out.append(MatrixRead(r["key"], r["model"], got.to_json(), None, False))
    return out


def _why_no_yes_no(reply: str) -> str:
    if ends_inside_reasoning(reply):
        return "cut off inside its reasoning block: no answer yet"
    body = answer_text(reply)
    if body and body.rstrip(" *_`\n")[-1:] not in ".!?)]\"'":
        return "no final Yes/No: the reply stops mid-sentence (cut off)"
    return "no final Yes/No in the reply"


def read_classify(data: Path) -> list[YesNoRead]:
    """Every classify reply through `parse_yes_no`, beside the authors' reading."""
    out = []
    for r in rows(data / "classify.jsonl"):
        said = parse_yes_no(r["reply"])
        up = r["upstream_reading"]
        out.append(YesNoRead(r["key"], SHORT.get(r["model"], r["model"]), said,
                             None if up is None else up == "yes",
                             None if said is not None else _why_no_yes_no(r["reply"])))
    return out


_BEFORE = """
import json, sys
from verstehen.domains.game_theory.parse import parse_game
from verstehen.parse import parse_yes_no
data = sys.argv[1]
out = {}
for name in ("matrices", "classify"):
    for line in open(f"{data}/{name}.jsonl", encoding="utf-8"):
        r = json.loads(line)
        if name == "matrices":
            g = parse_game(r["reply"])
            out[r["key"]] = g.to_json() if hasattr(g, "to_json") else None
        else:
            out[r["key"]] = parse_yes_no(r["reply"])
print(json.dumps(out))
"""


def reads_at(rev: str, data: Path) -> dict[str, object]:
    """What the readers of git revision `rev` read from every matrix and classify reply."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        done = subprocess.run([sys.executable, "-c", _BEFORE, str(data)], capture_output=True,
                              text=True, check=True, env={"PYTHONPATH": f"{tmp}/src"})
    return json.loads(done.stdout)


def _table(header: list[str], body: Iterable[list[object]]) -> list[str]:
    lines = [header, *[[str(x) for x in row] for row in body]]
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    return ["  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
            for row in lines]


def matrix_lines(found: list[MatrixRead], listing: bool) -> list[str]:
    """Per model: replies, read, cut off, unread; then the unread replies and why."""
    models = sorted({m.model for m in found})
    body = []
    for model in [*models, "all"]:
        mine = [m for m in found if model in ("all", m.model)]
        read = sum(m.game is not None for m in mine)
        cut = sum(m.cut_off for m in mine)
        body.append([model, len(mine), read, cut, len(mine) - read - cut])
    out = ["payoff matrices (generate and edit)",
           *_table(["model", "replies", "read", "cut off", "no matrix read"], body)]
    reasons = Counter(_reason_kind(m.reason) for m in found if m.game is None)
    out += ["", "why the rest were not read:",
            *(f"  {n:4d}  {why}" for why, n in reasons.most_common())]
    if listing:
        out += ["", "unread replies:", *(f"  {m.key} ({m.model}): {m.reason}"
                                         for m in found if m.game is None)]
    return out


def _reason_kind(reason: str | None) -> str:
    text = reason or ""
    for kind in ("cut off: the reply ends inside its reasoning block",
                 "cut off: the reply ends inside its last matrix",
                 "a table has one number per cell", "has one number per cell"):
        if kind in text:
            return kind
    if text.startswith("no payoff matrix found"):
        return "no payoff matrix found (the game is told in prose, or not given)"
    return "malformed: " + text.split(" (in the", 1)[0]


def classify_lines(found: list[YesNoRead], listing: bool) -> list[str]:
    """Per model: replies, read, agreement with the authors' reading; then the unread ones."""
    models = sorted({y.model for y in found})
    body = []
    for model in [*models, "all"]:
        mine = [y for y in found if model in ("all", y.model)]
        both = [y for y in mine if y.said is not None and y.upstream is not None]
        body.append([model, len(mine), sum(y.said is not None for y in mine),
                     sum(y.upstream is not None for y in mine),
                     f"{sum(y.said == y.upstream for y in both)}/{len(both)}",
                     sum(y.said is not None and y.upstream is None for y in mine)])
    out = ["classify replies (yes/no)",
           *_table(["model", "replies", "read", "authors read", "agree", "read, authors not"],
                   body)]
    wrong = [y for y in found if y.said is not None and y.upstream is not None
             and y.said != y.upstream]
    out.append(f"read otherwise than the authors: {len(wrong)}")
    out += [f"  {y.key} ({y.model}): read {y.said}, authors {y.upstream}" for y in wrong]
    reasons = Counter(y.reason for y in found if y.said is None)
    out += ["", "why the rest were not read:",
            *(f"  {n:4d}  {why}" for why, n in reasons.most_common())]
    if listing:
        out += ["", "unread replies:", *(f"  {y.key} ({y.model}): {y.reason}"
                                         for y in found if y.said is None)]
    return out


def before_lines(before: dict[str, object], matrices: list[MatrixRead],
                 classify: list[YesNoRead], rev: str) -> list[str]:
    """Replies read by revision `rev`, and how many of them are read otherwise now."""
    out = [f"against the readers of {rev}"]
    for what, now in (("matrices", {m.key: m.game for m in matrices}),
                      ("yes/no", {y.key: y.said for y in classify})):
        then = {k: before[k] for k in now}
        read_then = [k for k, v in then.items() if v is not None]
        changed = [k for k in read_then if now[k] != then[k]]
        gained = [k for k, v in now.items() if v is not None and then[k] is None]
        out.append(f"  {what}: read then {len(read_then)}, read otherwise now {len(changed)}"
                   f"{' ' + ', '.join(changed) if changed else ''}; read now, not then "
                   f"{len(gained)}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures; 0 on success, 2 when the data is missing."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT, help="the RealReplies folder")
    ap.add_argument("--before", metavar="REV", help="also read with the readers of REV")
    ap.add_argument("--list", action="store_true", help="list every unread reply")
    args = ap.parse_args(argv)
    if not (args.data / "matrices.jsonl").is_file():
        print(f"error: RealReplies not found at {args.data} (pass --data DIR)", file=sys.stderr)
        return 2
    matrices, classify = read_matrices(args.data), read_classify(args.data)
    lines = [*matrix_lines(matrices, args.list), "", *classify_lines(classify, args.list), "",
             *poem_lines(poem_rows(args.data / "poems.jsonl"))]
    if args.before:
        lines += ["", *before_lines(reads_at(args.before, args.data), matrices, classify,
                                    args.before)]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
