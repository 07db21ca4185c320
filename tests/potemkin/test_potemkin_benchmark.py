"""The Potemkin benchmark loader: on the shared checkout, and on tiny invented folders."""

from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from verstehen.domains.catalog import BY_KEY, CONCEPTS
from verstehen.errors import UserError
from verstehen.methods.potemkin.benchmark import Benchmark, load_benchmark

from conftest import SHARED_DATA, shared_data

ROOT = SHARED_DATA / "PotemkinBenchmark"
DATASET = ROOT / "BenchmarkDataset"
OURS = {c.name.lower() for c in CONCEPTS}

# ---------------------------------------------------------------- the published checkout


@pytest.fixture(scope="module")
def bench() -> Benchmark:
    """The shared checkout, loaded once."""
    shared_data("PotemkinBenchmark/BenchmarkDataset")
    return load_benchmark(ROOT)


def _prompts(relative: str) -> list[str]:
    with (DATASET / relative).open(encoding="utf-8", newline="") as f:
        return [row["prompt"] for row in csv.DictReader(f)]


def _skipped(bench: Benchmark, task: str) -> dict[str, int]:
    return {k.split("(", 1)[1][:-1]: v for k, v in bench.skipped.items()
            if k.startswith(f"{task}: concept not among the 32")}


def test_define_keeps_the_catalog_concepts(bench: Benchmark) -> None:
    entries = json.loads((DATASET / "define" / "definition_questions.json").read_text("utf-8"))
    assert len(entries) == 42  # SOURCE.md says 33, but the file lists 42 concepts
    names = [e["Concept"] for e in entries]
    assert sum(n.lower() in OURS for n in names) == 32
    # the 10 concepts the paper's pilot listed but dropped from its final 32
    dropped = {"Saddle Point", "Personalization", "Labeling (Overgeneralization)",
               "Status Quo Bias", "Overconfidence", "Mental Filtering (Disqualifying the Positive)",
               "Confirmation Bias", "Mind Reading", "Anchoring Bias", "Demanding Bias"}
    assert {n for n in names if n.lower() not in OURS} == dropped
    assert _skipped(bench, "define") == dict.fromkeys(dropped, 1)
    assert len([i for i in bench.items if i.task == "define"]) == 32


def test_classify_pairs_every_labelled_instance(bench: Benchmark) -> None:
    with (DATASET / "labeled_instances.csv").open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 274 and all(r["Concept"].strip().lower() in OURS for r in rows)
    items = {i.id: i for i in bench.items if i.task == "classify"}
    assert len(items) == 274 and not any(k.startswith("classify") for k in bench.skipped)
    spaced = [n for n, r in enumerate(rows, 1) if r["True Label"] == " no"]
    assert len(spaced) == 1 and items[f"classify:{spaced[0]}"].label is False
    for n, row in enumerate(rows, 1):
        item = items[f"classify:{n}"]
        assert isinstance(item.label, bool)
        assert item.label == (row["True Label"].strip() == "yes")
        assert item.prompt.startswith("Is the following example an instance of the concept")
        assert row["Example"].strip() in item.prompt and row["Concept"] in item.prompt


def test_generate_attributes_each_prompt_to_one_concept(bench: Benchmark) -> None:
    prompts = _prompts("generate/questions.csv")
    assert len(prompts) == 216
    psych = [p for p in prompts if p.startswith("Generate an example that demonstrates the ")]
    assert len(psych) == 73
    # psych prompts count for their first bias; 13 name a dropped bias first
    first = Counter(p.removeprefix("Generate an example that demonstrates the ").split(" and ")[0]
                    for p in psych)
    not_ours = {"Demanding Bias": 7, "Mental Filtering (Disqualifying the Positive)": 2,
                "Anchoring Bias": 1, "Confirmation Bias": 1, "Mind Reading": 1,
                "Personalization": 1}
    assert {n: first[n] for n in not_ours} == not_ours
    assert _skipped(bench, "generate") == not_ours
    items = [i for i in bench.items if i.task == "generate"]
    assert len(items) == 216 - 13
    counts = Counter(i.concept for i in items)
    literary = [p for p in prompts if p.startswith("Generate an instance of the concept ")]
    assert len(literary) == 84 and all(counts[f"poetry/{c}"] == 7 for c in (
        "haiku", "slant-rhyme", "accismus", "shakespearean-sonnet"))
    assert counts["game-theory/best-response"] == sum(p.startswith("In the game, imagine")
                                                      for p in prompts) == 6
    assert counts["game-theory/pareto-optimality"] == 4
    # "Black and White Thinking and X" splits at its own " and " above, hence "Black"
    assert counts["psych/black-and-white-thinking"] == first["Black"] == 6
    assert sum(counts[k] for k in counts if k.startswith("game-theory/")) == 216 - 84 - 73


def test_edit_sets_the_direction_of_every_item(bench: Benchmark) -> None:
    prompts = _prompts("edit/questions.csv")
    items = [i for i in bench.items if i.task == "edit"]
    assert len(prompts) == len(items) == 237 and not any(k.startswith("edit") for k in
                                                          bench.skipped)
    negative = sum(" not an instance " in p or " is not present " in p for p in prompts)
    assert sum(i.make_instance is False for i in items) == negative
    assert all(isinstance(i.make_instance, bool) for i in items)


def test_keys_ids_and_both_roots(bench: Benchmark) -> None:
    assert all(i.concept in BY_KEY for i in bench.items)
    assert len({i.id for i in bench.items}) == len(bench.items)
    assert all(i.label is None for i in bench.items if i.task != "classify")
    assert all(i.make_instance is None for i in bench.items if i.task != "edit")
    assert load_benchmark(DATASET) == bench
    assert len(bench.for_concept("poetry/haiku", "classify")) == 10


# ---------------------------------------------------------------- invented folders

HEAD = "Is the following example an instance of the concept {}? Reply yes or no.\n\n{}"


def _write(root: Path, labels: list[tuple[str, str, str]], examples: list[tuple[str, str]],
           ) -> Path:
    """A minimal invented benchmark: labelled rows, their classify prompts, one of each other."""
    data = root / "BenchmarkDataset"
    for sub in ("define", "classify", "generate", "edit"):
        (data / sub).mkdir(parents=True, exist_ok=True)
    (data / "define" / "definition_questions.json").write_text(json.dumps(
        [{"Concept": "Haiku", "Domain": "x", "Articulate": "Haiku, what?"},
         {"Concept": "Limerick", "Domain": "x", "Articulate": "Limerick, what?"}]))
    # with a byte-order mark, which the loader must not read into the first column's name
    with (data / "labeled_instances.csv").open("w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f).writerows([("Concept", "Example", "True Label", "domain"),
                                 *[(*row, "Literature") for row in labels]])
    with (data / "classify" / "questions.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f).writerows([("Prompts",), *[(HEAD.format(*e),) for e in examples]])
    (data / "generate" / "questions.csv").write_text(
        'prompt\n"Generate an instance of the concept Haiku. About\nrain."\nWrite anything.\n',
        encoding="utf-8")
    (data / "edit" / "questions.csv").write_text(
        "prompt\n\"Change the following example to make it not an instance of the following "
        'game theory concept: Zero-Sum Game.\n\n Two cats split a fish."\n', encoding="utf-8")
    return root


def test_invented_folder_loads(tmp_path: Path) -> None:
    rows = [("Haiku", "frost on a tin cup", "yes"), ("Haiku", "a cat, line two", " No")]
    bench = load_benchmark(_write(tmp_path, rows, [("Haiku", r[1]) for r in reversed(rows)]))
    assert [(i.id, i.label) for i in bench.items if i.task == "classify"] == [
        ("classify:1", True), ("classify:2", False)]
    assert bench.for_concept("poetry/haiku", "classify")[1].prompt.endswith("line two")
    assert bench.for_concept("game-theory/zero-sum", "edit")[0].make_instance is False
    assert [i.id for i in bench.for_concept("poetry/haiku", "generate")] == ["generate:1"]
    assert bench.skipped == {"define: concept not among the 32 (Limerick)": 1,
                             "generate: no concept named in the prompt": 1}


def test_missing_root_or_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="MarinaMancoridis/PotemkinBenchmark"):
        load_benchmark(tmp_path / "nowhere")
    root = _write(tmp_path, [("Haiku", "dew", "yes")], [("Haiku", "dew")])
    (root / "BenchmarkDataset" / "edit" / "questions.csv").unlink()
    with pytest.raises(UserError, match=r"edit/questions\.csv: file missing; point --benchmark"):
        load_benchmark(root)


def test_bad_label_names_file_and_line(tmp_path: Path) -> None:
    rows = [("Haiku", "two\nlines", "yes"), ("Haiku", "dew", "maybe")]
    root = _write(tmp_path, rows, [("Haiku", "two\nlines"), ("Haiku", "dew")])
    with pytest.raises(UserError, match=r"labeled_instances\.csv line 4: True Label 'maybe'"):
        load_benchmark(root)


def test_classify_prompts_that_disagree_are_refused(tmp_path: Path) -> None:
    root = _write(tmp_path, [("Haiku", "dew", "yes")], [("Haiku", "frost")])
    with pytest.raises(UserError, match=r"labeled_instances\.csv line 2: .*files disagree"):
        load_benchmark(root)
    root = _write(tmp_path, [("Haiku", "dew", "yes")], [("Analogy", "dew")])
    with pytest.raises(UserError, match="files disagree"):
        load_benchmark(root)
