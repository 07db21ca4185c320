"""The published Potemkin benchmark (github.com/MarinaMancoridis/PotemkinBenchmark), read as is.

Each prompt keeps the benchmark's own wording; rows whose concept is not among the catalog's 32
are left out and counted by reason. The checkout carries no license, so nothing of it is copied.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from verstehen.domains.catalog import CONCEPTS, concept_by_name
from verstehen.engine.store.inputs import Reads
from verstehen.errors import UserError
from verstehen.textfiles import read_text

HINT = "point --benchmark-dir at a checkout of github.com/MarinaMancoridis/PotemkinBenchmark"
NO_CONCEPT = "no concept named in the prompt"
# the files of BenchmarkDataset that `load_benchmark` reads, in the order read
BENCHMARK_FILES = ("define/definition_questions.json", "classify/questions.csv",
                   "labeled_instances.csv", "generate/questions.csv", "edit/questions.csv")


@dataclass(frozen=True)
class BenchmarkItem:
    """One benchmark prompt, attributed to a catalog concept."""

    id: str                     # "define:<Concept>" or "<task>:<1-based data row>"
    concept: str                # catalog key, e.g. "poetry/haiku"
    task: str                   # define | classify | generate | edit
    prompt: str                 # the benchmark's exact text
    label: bool | None = None   # classify: is the example an instance
    make_instance: bool | None = None  # edit: asked to make it an instance / present


@dataclass
class Benchmark:
    """The loaded items and the number of rows left out, keyed by reason."""

    items: list[BenchmarkItem]
    skipped: dict[str, int] = field(default_factory=dict)

    def for_concept(self, key: str, task: str) -> list[BenchmarkItem]:
        """The items of one concept (catalog key) and task, in file order."""
        return [i for i in self.items if i.concept == key and i.task == task]


def load_benchmark(root: Path) -> Benchmark:
    """Load all four tasks from a checkout root or from its BenchmarkDataset folder."""
    base = _dataset_dir(Path(root))
    skipped: Counter[str] = Counter()
    define, known = _load_define(base / "define" / "definition_questions.json", skipped)
    items = [*define, *_load_classify(base, skipped), *_load_generate(base, known, skipped),
             *_load_edit(base, skipped)]
    return Benchmark(items, dict(skipped))


def benchmark_files(value: str) -> tuple[Path, list[Path]]:
    """The checkout a --benchmark-dir names and the files `load_benchmark` reads of it (the
    folder itself when it is no checkout: it cannot be hashed, as it cannot be read)."""
    root = Path(value)
    try:
        base = _dataset_dir(root)
    except UserError:
        return root, [root]
    return root, [base / name for name in BENCHMARK_FILES]


# a --benchmark-dir as an input of a run (run.json records the content hash of its files)
BENCHMARK = Reads("benchmark checkout", benchmark_files)


def _dataset_dir(root: Path) -> Path:
    if (root / "BenchmarkDataset").is_dir():
        return root / "BenchmarkDataset"
    if root.is_dir() and (root.name == "BenchmarkDataset" or (root / "define").is_dir()):
        return root
    raise UserError(f"{root / 'BenchmarkDataset'}: no such folder; {HINT}")


def _resolve(task: str, name: str, skipped: Counter[str]) -> str | None:
    concept = concept_by_name(name)
    if concept is None:
        skipped[f"{task}: concept not among the 32 ({name.strip()})"] += 1
        return None
    return concept.key


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise UserError(f"{path}: file missing; {HINT}")
    return read_text(path, "benchmark file")


def _rows(path: Path, column: str) -> Iterator[tuple[int, int, dict[str, str]]]:
    """(data row number, first line number, row) for each CSV record holding `column`."""
    reader = csv.DictReader(io.StringIO(_read_text(path), newline=""))
    if column not in (reader.fieldnames or []):
        raise UserError(f"{path}: no column {column!r} (columns: {reader.fieldnames}); {HINT}")
    line = reader.line_num
    for number, row in enumerate(reader, 1):
        yield number, line + 1, row
        line = reader.line_num


def _load_define(path: Path, skipped: Counter[str]) -> tuple[list[BenchmarkItem], list[str]]:
    """The define items and every concept name the benchmark lists (ours and the dropped ones)."""
    try:
        entries = json.loads(_read_text(path))
        pairs = [(e["Concept"], e["Articulate"]) for e in entries]
    except (ValueError, TypeError, KeyError) as e:
        raise UserError(f"{path}: not a list of {{Concept, Articulate}} objects ({e})") from e
    items = []
    for name, prompt in pairs:
        key = _resolve("define", name, skipped)
        if key:
            items.append(BenchmarkItem(f"define:{name}", key, "define", prompt))
    return items, [name for name, _ in pairs]


CLASSIFY_HEAD = re.compile(
    r"Is the following example an instance of the concept (?P<name>[^?\n]+)\?")


def _load_classify(base: Path, skipped: Counter[str]) -> list[BenchmarkItem]:
    """Labelled instances paired with their classify prompts (questions.csv is grouped by concept,
    not in labelled_instances order, so each prompt is found by its concept and example)."""
    qpath, lpath = base / "classify" / "questions.csv", base / "labeled_instances.csv"
    prompts: dict[tuple[str, str], str] = {}
    for _, line, row in _rows(qpath, "Prompts"):
        text = row["Prompts"]
        head = CLASSIFY_HEAD.match(text)
        if head is None or "\n\n" not in text:
            raise UserError(f"{qpath} line {line}: not a classify prompt naming a concept")
        prompts[(head["name"].lower(), text.split("\n\n", 1)[1].strip())] = text
    items = []
    for number, line, row in _rows(lpath, "True Label"):
        name, example = row["Concept"].strip(), row["Example"].strip()
        label = row["True Label"].strip().lower()
        if label not in ("yes", "no"):
            raise UserError(f"{lpath} line {line}: True Label {row['True Label']!r} is not yes/no")
        prompt = prompts.pop((name.lower(), example), None)
        if prompt is None:
            raise UserError(f"{lpath} line {line}: no prompt in {qpath} names concept {name!r} "
                            "with this example; the files disagree")
        if key := _resolve("classify", name, skipped):
            items.append(BenchmarkItem(f"classify:{number}", key, "classify", prompt,
                                       label=label == "yes"))
    if prompts:
        raise UserError(f"{qpath}: {len(prompts)} prompts match no row of {lpath}; "
                        "the files disagree")
    return items


def _generate_rules(known: list[str]) -> list[re.Pattern[str]]:
    # the psych pair "B1 and B2" is split only where B1 is a name the benchmark lists, since names
    # themselves contain " and " ("Black and White Thinking")
    names = "|".join(re.escape(n) for n in sorted({*known, *(c.name for c in CONCEPTS)},
                                                  key=len, reverse=True))
    return [re.compile(p) for p in (
        r"Generate an instance of the concept (?P<name>[^.\n]+)\. ",
        rf"Generate an example that demonstrates the (?P<name>(?i:{names})) and [^\n]+ "
        r"psychological biases, but that does not show the [^\n]+ psychological bias\.",
        r"Generate an example of the following concept in game theory: (?P<name>[^.\n]+)\.",
        r"Generate an example of (?:an? )?(?P<name>[^.\n]+)\.",
        r"In the game, imagine Player 1 chooses [^\n]+?\. Player 2's (?P<name>best response) to ",
    )]


EDIT_RULES = [re.compile(p) for p in (
    r"In the following text, what could fill in the blank in so that the resultant text is "
    r"(?P<polarity>a true|not an) instance of the following concept: (?P<name>[^?\n]+)\?",
    r"What is one line of dialogue that the writer could have included in their original blog "
    r"post to make it obvious that the concept (?P<name>[^\n]+?) is "
    r"(?P<polarity>present|not present) in the following text\?",
    r"Change the following example to make it (?P<polarity>an|not an) instance of the following "
    r"game theory concept: (?P<name>[^.\n]+)\.",
)]
MAKES_INSTANCE = {"a true": True, "an": True, "present": True,
                  "not an": False, "not present": False}


def _first_match(rules: list[re.Pattern[str]], text: str) -> re.Match[str] | None:
    return next((m for m in (r.match(text) for r in rules) if m), None)


def _load_generate(base: Path, known: list[str], skipped: Counter[str]) -> list[BenchmarkItem]:
    rules, items = _generate_rules(known), []
    for number, _, row in _rows(base / "generate" / "questions.csv", "prompt"):
        found = _first_match(rules, row["prompt"])
        if found is None:
            skipped[f"generate: {NO_CONCEPT}"] += 1
        elif key := _resolve("generate", found["name"], skipped):
            items.append(BenchmarkItem(f"generate:{number}", key, "generate", row["prompt"]))
    return items


def _load_edit(base: Path, skipped: Counter[str]) -> list[BenchmarkItem]:
    items = []
    for number, _, row in _rows(base / "edit" / "questions.csv", "prompt"):
        found = _first_match(EDIT_RULES, row["prompt"])
        if found is None:
            skipped[f"edit: {NO_CONCEPT}"] += 1
        elif key := _resolve("edit", found["name"], skipped):
            items.append(BenchmarkItem(f"edit:{number}", key, "edit", row["prompt"],
                                       make_instance=MAKES_INSTANCE[found["polarity"]]))
    return items
