"""Figure 4 (keystone expansion) of the Potemkin paper, on the paper's own stored answer records.

Usage: python bench/figure4_paper.py --checkout DIR [--write-records FILE]
       python bench/figure4_paper.py --git-dir DIR [--commit ab67a78] [--write-records FILE]

DIR is a checkout of the paper's benchmark repository at commit ab67a78 (or, with --git-dir, a
bare clone holding that commit). The records are read where they lie (they are not ours to
copy): the define labels, both classify files, the generate and edit labels, and the
game-theory generate and edit answers, which carry their own automatic grades. They are read
as upstream's `BenchmarkDataset/iterators.py` reads them (its 7 models and 32 concepts; a
classification with no inference or no grade is unreadable; a (model, concept) without a
correct definition fails the keystone), converted into verstehen's records (the input of
`verstehen potemkin score`) and scored by `potemkin score`'s own code with both definitions
of keystone expansion. Prints the two curves for k = 0..4 beside the caption's values
(0.19 at k = 0, 0.40 at k = 4). Exit status 0 when it ran, 2 when the records cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Iterator, Mapping
from pathlib import Path

from verstehen.domains.catalog import concept_by_name
from verstehen.methods.potemkin.outputs import score_files
from verstehen.methods.potemkin.records import write_records
from verstehen.methods.potemkin.stats import EXPANSIONS, KeystoneExpansion, UseRecord

COMMIT = "ab67a78"
CAPTION = {0: 0.19, 4: 0.40}  # the paper's Figure 4 caption
TOLERANCE = 0.02
# upstream's ALLOWED_MODELS, keyed by the full names its classify files use (constants.py)
MODELS = {
    "meta-llama/Llama-3.3-70B-Instruct-Turbo": "Llama-3.3",
    "gpt-4o": "GPT-4o",
    "gemini-2.0-flash-exp": "Gemini-2.0",
    "claude-3-5-sonnet-20241022": "Claude-Sonnet",
    "deepseek-ai/DeepSeek-V3": "DeepSeek-V3",
    "deepseek-ai/DeepSeek-R1": "DeepSeek-R1",
    "Qwen/Qwen2-VL-72B-Instruct": "Qwen2-VL",
}
DEFINE = "define/define_labels.csv"
CLASSIFY = ("classify/psych_classify_with_cot.csv",
            "classify/literature_and_game_theory_classify_with_cot.csv")
LABELS = {"generate": "generate/author_labels_generate.csv", "edit": "edit/author_labels_edit.csv"}

Files = Mapping[str, bytes]  # path under BenchmarkDataset/ -> content


def checkout_files(root: Path) -> dict[str, bytes]:
    """The files this script reads, from a checkout (or its BenchmarkDataset folder)."""
    base = root / "BenchmarkDataset" if (root / "BenchmarkDataset").is_dir() else root
    paths = [base / DEFINE, *(base / p for p in CLASSIFY), *(base / p for p in LABELS.values())]
    for task in LABELS:
        folder = base / task / "inferences"
        if folder.is_dir():
            paths += [p for p in folder.rglob("*") if p.is_file()]
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in paths if p.is_file()}


def git_files(git_dir: Path, commit: str) -> dict[str, bytes]:
    """The same files from `commit` of a (bare) git repository, by `git archive`."""
    wanted = [f"BenchmarkDataset/{p}" for p in (DEFINE, "classify", "generate", "edit")]
    done = subprocess.run(["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit,
                           *wanted], capture_output=True, check=False)
    if done.returncode != 0:
        raise FileNotFoundError(f"git archive {commit} in {git_dir}: "
                                f"{done.stderr.decode(errors='replace').strip()}")
    files = {}
    with tarfile.open(fileobj=io.BytesIO(done.stdout)) as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member) if member.isfile() else None
            if data is not None:
                files[member.name.removeprefix("BenchmarkDataset/")] = data.read()
    return files


def _rows(files: Files, path: str) -> list[dict[str, str]]:
    if path not in files:
        raise FileNotFoundError(f"BenchmarkDataset/{path} is missing")
    text = files[path].decode("utf-8-sig")
    return [{k: (v or "").strip() for k, v in row.items() if k}
            for row in csv.DictReader(io.StringIO(text, newline=""))]


def _domain(concept: str) -> str | None:
    """The catalog's domain of one of the paper's 32 concepts (upstream's ALLOWED_CONCEPTS)."""
    found = concept_by_name(concept)
    return None if found is None else found.domain


def keystones(files: Files) -> dict[tuple[str, str], bool]:
    """(model, concept) -> definition right, for upstream's 7 models and 32 concepts."""
    return {(r["Model"], r["Concept"]): r["Correct"].lower() == "yes"
            for r in _rows(files, DEFINE)
            if r["Model"] in MODELS.values() and _domain(r["Concept"]) is not None}


def classify_answers(files: Files) -> Iterator[tuple[str, str, bool | None]]:
    """(model, concept, correct) per classification; None where upstream drops the row (no
    inference or no grade: "missing the specified format")."""
    for path in CLASSIFY:
        for r in _rows(files, path):
            if not r.get("Concept") or not r.get("Model"):
                continue
            readable = bool(r.get("Inference")) and bool(r.get("Correct"))
            yield (MODELS.get(r["Model"], r["Model"]), r["Concept"],
                   float(r["Correct"]) == 1.0 if readable else None)


def _graded_file(files: Files, path: str) -> bool | None:
    """Upstream's automatic grade in a game-theory answer file (True, or a list starting with
    True, is right); None when the file is not JSON (upstream skips it)."""
    try:
        data = json.loads(files[path])
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    grade = data.get("correct")
    return grade is True or (isinstance(grade, list) and bool(grade) and grade[0] is True)


def _is_json(files: Files, path: str) -> bool:
    try:
        json.loads(files[path])
    except (KeyError, json.JSONDecodeError, UnicodeDecodeError):
        return False
    return True


def built_answers(files: Files, task: str) -> Iterator[tuple[str, str, bool]]:
    """(model, concept, correct) per generate or edit answer: game theory from its answer
    files, the rest from the authors' labels where the answer file exists and is JSON."""
    for path in sorted(files):
        parts = path.split("/")
        if (len(parts) == 5 and parts[:2] == [task, "inferences"]
                and _domain(parts[2]) == "game-theory"):
            grade = _graded_file(files, path)
            if grade is not None:
                yield parts[3], parts[2], grade
    for r in _rows(files, LABELS[task]):
        if not all(r.get(k) for k in ("Concept", "Model", "File", "Correct")):
            continue
        concept, model = r["Concept"], MODELS.get(r["Model"], r["Model"])
        if _domain(concept) == "game-theory":
            continue
        if _is_json(files, f"{task}/inferences/{concept}/{model}/{r['File']}"):
            yield model, concept, r["Correct"].lower() in ("yes", "1", "true")


def convert(files: Files) -> tuple[list[UseRecord], Counter[str]]:
    """verstehen's records of the stored answers, and what was left out, by reason."""
    passed = keystones(files)
    left_out: Counter[str] = Counter()
    records = []
    answers = [(task, *a) for task, found in (("classify", classify_answers(files)),
                                              ("generate", built_answers(files, "generate")),
                                              ("edit", built_answers(files, "edit")))
               for a in found]
    for task, model, concept, correct in answers:
        domain = _domain(concept)
        if domain is None or model not in MODELS.values():
            left_out[f"{task}: model or concept outside the paper's 7 and 32"] += 1
            continue
        if (model, concept) not in passed:
            left_out[f"{task}: no definition label (counted as a failed keystone)"] += 1
        records.append(UseRecord(model, domain, concept, task,
                                 passed.get((model, concept), False), correct))
    return records, left_out


def _cell(exp: KeystoneExpansion, k: int) -> str:
    point = next((p for p in exp.points if p.k == k), None)
    if point is None or point.share is None:
        return "—"
    return f"{point.share:.3f} ({point.pairs})"


def show(curves: dict[str, KeystoneExpansion]) -> bool:
    """Print the curves beside the caption; whether the paper's is within TOLERANCE of it."""
    ks = sorted({p.k for exp in curves.values() for p in exp.points})
    print(f"{'k':>2}  " + "  ".join(f"{name + ' (pairs)':>16}" for name in curves)
          + "  caption")
    for k in ks:
        caption = f"{CAPTION[k]:.2f}" if k in CAPTION else ""
        print((f"{k:>2}  " + "  ".join(f"{_cell(exp, k):>16}" for exp in curves.values())
               + f"  {caption}").rstrip())
    paper = {p.k: p.share for p in curves["paper"].points}
    close = all(paper.get(k) is not None and abs(paper[k] - v) <= TOLERANCE
                for k, v in CAPTION.items())
    print(f"paper definition within {TOLERANCE} of the caption at k = "
          f"{' and '.join(map(str, CAPTION))}: {'yes' if close else 'NO'}")
    print("models counted (above chance on classify): " + ", ".join(curves["paper"].models))
    return close


def main(argv: list[str] | None = None) -> int:
    """Convert, score with both definitions and print; 0 when it ran, 2 without records."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--checkout", type=Path, help="a checkout of the benchmark at ab67a78")
    where.add_argument("--git-dir", type=Path, help="a (bare) git repository holding --commit")
    ap.add_argument("--commit", default=COMMIT, help=f"with --git-dir (default {COMMIT})")
    ap.add_argument("--write-records", type=Path, default=None, metavar="FILE",
                    help="also keep the converted records (CSV, for `verstehen potemkin score`); "
                         "outside the repository: they are not ours to copy")
    args = ap.parse_args(argv)
    try:
        files = (checkout_files(args.checkout) if args.checkout is not None
                 else git_files(args.git_dir, args.commit))
        records, left_out = convert(files)
    except (FileNotFoundError, KeyError, ValueError) as exc:
        print(f"error: cannot read the stored records: {exc}", file=sys.stderr)
        return 2
    tasks = Counter(r.task for r in records)
    pairs = {(r.model, r.concept): r.keystone for r in records}
    print(f"{len(records)} records ({', '.join(f'{t} {n}' for t, n in sorted(tasks.items()))}); "
          f"definition right for {sum(pairs.values())} of {len(pairs)} (model, concept); "
          f"{sum(r.correct is None for r in records)} classifications unreadable")
    for reason, n in sorted(left_out.items()):
        print(f"  {reason}: {n}")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.write_records or Path(tmp) / "figure4-records.csv"
        write_records(path, records)
        curves = {name: score_files([path], expansion=name).keystone_expansion
                  for name in EXPANSIONS}
    show(curves)
    return 0


if __name__ == "__main__":
    sys.exit(main())
