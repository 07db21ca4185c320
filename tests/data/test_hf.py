"""Questions from Hugging Face datasets (`hf:DATASET[:CONFIG][@REVISION][#SPLIT]`), offline.

No test touches the network. Each builds its datasets into a private datasets cache the way
`datasets.load_dataset(repo, config)` leaves one after reading the Hub at a commit: datasets'
own Parquet builder writes <namespace>___<name>/<config>/0.0.0/<commit>/ (arrow files and
dataset_info.json), as `datasets.load._relative_data_dir` and the Hub module factory (which
passes the commit as the builder's hash) lay it out. `datasets.load_dataset` offline reads
such a folder back (checked below), so it stands for a real cache.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from verstehen.data.mcq import MCQItem, load_mcq, pinned_source, read_mcq
from verstehen.errors import UserError
from verstehen.methods.potemkin.selfjudge import plan_selfjudge
from verstehen.scopes.mcq import MCQScope
from verstehen.testing.stub_endpoints import Route, StubEndpoints
from verstehen.testing.stub_server import chat_answer

from conftest import Cli, cli_error

datasets = pytest.importorskip("datasets")

OLD, NEW = "1" * 40, "2" * 40  # two commits of one dataset

# the Hub's CSQA columns (tau/commonsense_qa): choices as {label: [...], text: [...]}
CSQA_ROWS = [{"id": f"q{i}", "question": f"Where is thing {i}?", "question_concept": "thing",
              "choices": {"label": list("ABCDE"), "text": [f"place {c}{i}" for c in "abcde"]},
              "answerKey": "AABBB"[i]} for i in range(5)]
# ARC's (allenai/ai2_arc): the same columns, some rows labelled 1..4
ARC_ROWS = [{"id": "arc-1", "question": "Which is warm?",
             "choices": {"label": ["1", "2", "3", "4"], "text": ["ice", "snow", "sun", "hail"]},
             "answerKey": "3"}]
# MMLU's (cais/mmlu, config "all"): subjects one after another, the answer an index
MMLU_ROWS = [{"question": "Bone?", "subject": "anatomy", "choices": ["a", "b", "c", "d"],
              "answer": 2},
             {"question": "Muscle?", "subject": "anatomy", "choices": ["e", "f", "g", "h"],
              "answer": 0},
             {"question": "Virus?", "subject": "virology", "choices": ["i", "j", "k", "l"],
              "answer": 3}]


def cache_build(cache: Path, repo_id: str, commit: str, splits: dict[str, list[dict]],
                config: str = "default") -> Path:
    """Build `splits` into `cache` as load_dataset(repo_id, config) at `commit` would; the
    build's folder."""
    work = Path(tempfile.mkdtemp(dir=cache.parent))
    files = {}
    for split, rows in splits.items():
        files[split] = [str(work / f"{split}.parquet")]
        datasets.Dataset.from_list(rows).to_parquet(files[split][0])
    namespace, _, name = repo_id.rpartition("/")
    from datasets.packaged_modules.parquet.parquet import Parquet

    # built without repo_id (its data files would have to be hf:// URLs), then moved under the
    # namespace, which is all the repo_id changes in the layout
    Parquet(cache_dir=str(work), dataset_name=name, config_name=config, config_id=config,
            hash=commit, data_files=files).download_and_prepare()
    shutil.copytree(work / name, cache / f"{namespace}___{name}", dirs_exist_ok=True)
    return cache / f"{namespace}___{name}" / config / "0.0.0" / commit


@pytest.fixture
def hf_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private, empty datasets cache and hub cache; the offline switches restored after."""
    cache = tmp_path / "hf" / "datasets"
    cache.mkdir(parents=True)
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf" / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "0")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", datasets.config.HF_HUB_OFFLINE)
    return cache


@pytest.fixture
def csqa(hf_cache: Path) -> Path:
    """tau/commonsense_qa's validation split (5 rows) cached at commit NEW."""
    return cache_build(hf_cache, "tau/commonsense_qa", NEW, {"validation": CSQA_ROWS})


def test_csqa_arc_and_mmlu_rows_become_the_items_the_files_give(
        hf_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each shape is detected from its columns and read as its file would be: the expected
    items are written out by hand from the rows above (ARC's label 3 is the third letter, C;
    MMLU's answer 2 is C and its ids number the rows within their subject, as MMLU's
    anatomy_test.csv numbers them), with no network at all."""
    cache_build(hf_cache, "tau/commonsense_qa", NEW, {"validation": CSQA_ROWS})
    cache_build(hf_cache, "allenai/ai2_arc", NEW, {"test": ARC_ROWS}, config="ARC-Challenge")
    cache_build(hf_cache, "cais/mmlu", OLD, {"test": MMLU_ROWS, "dev": MMLU_ROWS[:1]},
                config="all")

    def refuse(*args: object) -> None:
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    items = load_mcq("hf:tau/commonsense_qa#validation")
    assert items[0] == MCQItem("q0", "Where is thing 0?", list("ABCDE"),
                               ["place a0", "place b0", "place c0", "place d0", "place e0"], "A")
    assert [i.answer for i in items] == list("AABBB")
    assert load_mcq("hf:allenai/ai2_arc:ARC-Challenge") == [
        MCQItem("arc-1", "Which is warm?", list("ABCD"), ["ice", "snow", "sun", "hail"], "C")]
    mmlu = read_mcq("hf:cais/mmlu")  # the only config; the test split by default
    assert mmlu.source == f"hf:cais/mmlu:all@{OLD}#test"
    assert mmlu.items == [
        MCQItem("anatomy_test:0", "Bone?", list("ABCD"), ["a", "b", "c", "d"], "C", "anatomy"),
        MCQItem("anatomy_test:1", "Muscle?", list("ABCD"), ["e", "f", "g", "h"], "A", "anatomy"),
        MCQItem("virology_test:0", "Virus?", list("ABCD"), ["i", "j", "k", "l"], "D",
                "virology")]
    assert os.environ["HF_HUB_OFFLINE"] == os.environ["HF_DATASETS_OFFLINE"] == "1"


def test_datasets_own_offline_loader_reads_the_test_cache(csqa: Path) -> None:
    """The stand-in is a real cache: load_dataset offline finds the same rows in it."""
    monkeypatched_offline = pytest.MonkeyPatch()
    monkeypatched_offline.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    try:
        rows = datasets.load_dataset("tau/commonsense_qa", split="validation",
                                     cache_dir=os.environ["HF_DATASETS_CACHE"])
    finally:
        monkeypatched_offline.undo()
    assert rows["id"] == [r["id"] for r in CSQA_ROWS]
    assert Path(rows.cache_files[0]["filename"]).parent == csqa


def test_the_revision_read_is_the_one_named_else_the_newest(csqa: Path, hf_cache: Path) -> None:
    """Two commits cached: no @ reads the newest build (as load_dataset offline does), a
    commit or its first 7 digits that one, a branch the commit the hub cache maps it to."""
    old = cache_build(hf_cache, "tau/commonsense_qa", OLD, {"validation": CSQA_ROWS[:2]})
    os.utime(old, (1, 1))  # built later, but older on disk
    assert pinned_source("hf:tau/commonsense_qa#validation").endswith(f"@{NEW}#validation")
    assert len(load_mcq(f"hf:tau/commonsense_qa@{OLD[:7]}#validation")) == 2
    refs = Path(os.environ["HF_HUB_CACHE"]) / "datasets--tau--commonsense_qa" / "refs"
    refs.mkdir(parents=True)
    (refs / "main").write_text(OLD)
    scope = MCQScope("hf:tau/commonsense_qa@main#validation")
    assert scope.name == f"mcq:hf:tau/commonsense_qa:default@{OLD}#validation"
    assert len(scope.items) == 2
    with pytest.raises(UserError, match=f"revision 'v9' is not in the local.*cached: {OLD}, "
                                        f"{NEW}.*revision='v9'"):
        load_mcq("hf:tau/commonsense_qa@v9")


@pytest.mark.parametrize(("spec", "needles"), [
    ("hf:nobody/nothing", ["the dataset is not in the local", "load_dataset('nobody/nothing')",
                           "HF_DATASETS_CACHE"]),
    ("hf:tau/commonsense_qa:other", ["config 'other' is not", "cached: default"]),
    ("hf:tau/commonsense_qa#train", ["no split 'train'", "validation"]),
    ("hf:tau/commonsense_qa#", ["empty SPLIT"]),
    ("hf:a/b/c", ["bad dataset name"]),
])
def test_what_cannot_be_read_is_one_line(csqa: Path, spec: str, needles: list[str]) -> None:
    with pytest.raises(UserError) as caught:
        load_mcq(spec)
    assert "\n" not in str(caught.value)
    assert all(needle in str(caught.value) for needle in needles), caught.value


def test_rows_of_no_known_shape_or_no_answers_are_named(hf_cache: Path) -> None:
    """A dataset of other columns says which were expected; CSQA's test split (no answer
    keys, as on the Hub) says to name a split with answers; two configs ask for one."""
    cache_build(hf_cache, "x/plain", NEW, {"train": [{"text": "hi", "label": 1}]})
    with pytest.raises(UserError, match=r"columns text, label .*expected CSQA/ARC \(question, "
                                        r"choices, answerKey\) or MMLU"):
        load_mcq("hf:x/plain")
    unanswered = [{**CSQA_ROWS[0], "answerKey": ""}]
    cache_build(hf_cache, "tau/commonsense_qa", NEW, {"test": unanswered, "validation": CSQA_ROWS})
    with pytest.raises(UserError, match=r"#test row 0: split test has no answer key; name a "
                                        r"split with answers"):
        load_mcq("hf:tau/commonsense_qa")
    # beside "default" another config changes nothing (load_dataset(name) reads "default")
    cache_build(hf_cache, "tau/commonsense_qa", NEW, {"validation": CSQA_ROWS}, config="other")
    assert pinned_source("hf:tau/commonsense_qa#validation").startswith(
        "hf:tau/commonsense_qa:default@")
    for config in ("all", "anatomy"):
        cache_build(hf_cache, "cais/mmlu", NEW, {"test": MMLU_ROWS}, config=config)
    with pytest.raises(UserError, match=r"several configs are cached \(all, anatomy\): name "
                                        r"one, e.g. hf:cais/mmlu:all"):
        load_mcq("hf:cais/mmlu")


def test_without_the_datasets_library_one_line_names_the_extra(
        csqa: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets now fails
    with pytest.raises(UserError, match=r"needs the datasets library: pip install "
                                        r"'verstehen\[hf\]'"):
        load_mcq("hf:tau/commonsense_qa")


def answering(letter: str) -> Route:
    """A stub route: every chat completion replies `letter`."""
    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        if not path.endswith("/chat/completions"):
            return None
        answer = chat_answer(payload)
        answer["choices"][0]["message"]["content"] = letter
        return 200, answer
    return route


def run_folder(tmp_path: Path) -> Path:
    """The one run folder under the test's runs folder (the `cli` fixture's)."""
    (folder,) = (tmp_path / "runs").iterdir()
    return folder


def test_certify_asks_the_datasets_questions_and_records_the_revision(
        cli: Cli, csqa: Path, tmp_path: Path) -> None:
    """A model that always answers A is right exactly on q0 and q1 (answer key A) and wrong on
    q2..q4 (B); run.json names the commit that was read."""
    spec = "mcq:hf:tau/commonsense_qa#validation"
    with StubEndpoints(1, route=answering("A")) as stub:
        done = cli(["certify", "--model", "openai/stub", "--base-url", stub.urls[0],
                    "--scope", spec, "--questions", "5", "--rephrase", "0", "--json"])
    assert done.returncode == 0, done.stderr
    folder = run_folder(tmp_path)
    pinned = f"mcq:hf:tau/commonsense_qa:default@{NEW}#validation"
    assert json.loads((folder / "run.json").read_text())["config"]["scopes"] == [pinned]
    answers = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    answers = [r for r in answers if r.get("kind") == "answer"]
    assert len(answers) == 5
    assert all(r["score"] == (1.0 if r["question_id"] in ("q0", "q1") else 0.0)
               for r in answers), answers


def test_a_missing_dataset_is_one_line_and_exit_2(cli: Cli, hf_cache: Path, tmp_path: Path) -> None:
    kb = tmp_path / "kb.tsv"
    kb.write_text("relation\tstart\tend\nIsA\tthing\tobject\n")
    cli_error(cli, ["certify", "--model", "openai/m", "--scope", "mcq:hf:nobody/nothing"],
              "hf:nobody/nothing", "not in the local Hugging Face datasets cache")
    cli_error(cli, ["consistency", "--questions", "hf:nobody/nothing", "--kb", str(kb)],
              "hf:nobody/nothing", "verstehen never downloads")
    assert not (tmp_path / "runs").exists()


def consistency_run(cli: Cli, tmp_path: Path) -> dict:
    """consistency on the cached CSQA questions with a one-edge KB; its run.json."""
    kb = tmp_path / "kb.tsv"
    kb.write_text("relation\tstart\tend\nIsA\tthing\tobject\n")
    with StubEndpoints(1, route=answering("A")) as stub:
        done = cli(["consistency", "--model", "openai/stub", "--base-url", stub.urls[0],
                    "--questions", "hf:tau/commonsense_qa#validation", "--kb", str(kb),
                    "--answer-by", "generation", "--resamples", "10", "--json"])
    assert done.returncode == 0, done.stderr
    folder = run_folder(tmp_path)
    records = [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]
    anchors = [r for r in records if r.get("kind") == "anchor"]
    assert sorted(r["id"] for r in anchors) == [r["id"] for r in CSQA_ROWS]
    return json.loads((folder / "run.json").read_text())


def test_consistency_reads_the_datasets_questions(cli: Cli, csqa: Path, tmp_path: Path) -> None:
    """Every row of the split is an anchor question, asked once."""
    consistency_run(cli, tmp_path)


def test_consistency_records_the_revision(cli: Cli, csqa: Path, tmp_path: Path) -> None:
    run = consistency_run(cli, tmp_path)
    assert run["config"]["questions"] == f"hf:tau/commonsense_qa:default@{NEW}#validation"


def test_selfjudge_takes_the_dataset_as_its_benchmark(csqa: Path) -> None:
    """`potemkin selfjudge --benchmark mcq:hf:...` reads the split; run.json's "benchmark" is
    the scope's name, which names the commit."""
    scope, _ = plan_selfjudge("mcq:hf:tau/commonsense_qa#validation", questions=3)
    assert scope.name == f"mcq:hf:tau/commonsense_qa:default@{NEW}#validation"
    assert [item.id for item in scope.items] == [r["id"] for r in CSQA_ROWS]


# --- a damaged cache (issue 43): one line naming the file, never a traceback or a wrong pin ---

def rewrite_info(build: Path, change) -> Path:
    """The build's dataset_info.json with `change(info)` written in its place."""
    info_file = build / "dataset_info.json"
    info_file.write_text(json.dumps(change(json.loads(info_file.read_text()))))
    return info_file


@pytest.mark.parametrize(("damage", "needle"), [
    (lambda info: [info], "holds a list, not a JSON object"),
    (lambda info: {**info, "splits": 3}, "gives splits that are not an object of splits"),
    (lambda info: {**info, "splits": {"validation": 5}}, "not an object of splits"),
    (lambda info: {**info, "config_name": 7}, "gives config_name as a number"),
    (lambda info: {**info, "dataset_name": ["x"]}, "gives dataset_name as a list"),
])
def test_a_malformed_build_description_is_one_line(csqa: Path, damage, needle: str) -> None:
    """Before: AttributeError or TypeError tracebacks."""
    info_file = rewrite_info(csqa, damage)
    with pytest.raises(UserError) as caught:
        load_mcq("hf:tau/commonsense_qa#validation")
    line = str(caught.value)
    assert "\n" not in line and needle in line and str(info_file) in line, line


def test_a_description_that_is_not_json_text_is_one_line(csqa: Path) -> None:
    (csqa / "dataset_info.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(UserError, match=r"dataset_info\.json is not JSON text, so the cache "
                                        r"is damaged"):
        pinned_source("hf:tau/commonsense_qa#validation")


@pytest.mark.parametrize(("content", "needle"), [
    (b"\xff\xfe\x00binary\x00\x80", "is not text"),
    (b"not-a-commit\n", "does not name a commit"),
])
def test_a_malformed_refs_file_is_one_line(csqa: Path, content: bytes, needle: str) -> None:
    """Before, a binary refs file was a UnicodeDecodeError traceback."""
    refs = Path(os.environ["HF_HUB_CACHE"]) / "datasets--tau--commonsense_qa" / "refs"
    refs.mkdir(parents=True)
    (refs / "main").write_bytes(content)
    with pytest.raises(UserError) as caught:
        load_mcq("hf:tau/commonsense_qa@main#validation")
    assert "\n" not in str(caught.value) and needle in str(caught.value)
    assert str(refs / "main") in str(caught.value)


def test_only_the_named_refs_file_is_read(csqa: Path) -> None:
    """A binary file beside the ref asked for, or a revision that climbs out of refs/, is
    never read as a ref."""
    refs = Path(os.environ["HF_HUB_CACHE"]) / "datasets--tau--commonsense_qa" / "refs"
    (refs / "pr").mkdir(parents=True)
    (refs / "pr" / "1").write_bytes(b"\xff\x00")
    (refs / "main").write_text(NEW)
    (refs.parent / "outside").write_text(NEW)
    assert pinned_source("hf:tau/commonsense_qa@main#validation").endswith(f"@{NEW}#validation")
    with pytest.raises(UserError, match=r"revision '\.\./outside' is not in the local"):
        load_mcq("hf:tau/commonsense_qa@../outside#validation")


@pytest.mark.parametrize("damage", ["split fields", "arrow file"])
def test_damaged_split_fields_or_arrow_files_are_one_line(csqa: Path, damage: str) -> None:
    """Whatever `datasets` raises reading them (a TypeError for a split's shard lengths given
    as text, before a traceback) is one line naming the build."""
    if damage == "split fields":
        rewrite_info(csqa, lambda info: {**info, "splits": {"validation": {
            **info["splits"]["validation"], "shard_lengths": "abc"}}})
    else:
        for arrow in csqa.glob("*.arrow"):
            arrow.write_bytes(arrow.read_bytes()[:100])
    with pytest.raises(UserError) as caught:
        load_mcq("hf:tau/commonsense_qa#validation")
    line = str(caught.value)
    assert "\n" not in line and f"the cached build in {csqa} cannot be read" in line, line


def test_a_build_of_another_dataset_is_refused_naming_both(csqa: Path) -> None:
    """A build in tau___commonsense_qa/ that says it is dataset "other": before, its files
    were read (other-validation.arrow) and pinned as hf:tau/commonsense_qa."""
    other = cache_build(csqa.parents[3], "x/other", NEW, {"validation": CSQA_ROWS[:1]})
    for arrow in other.glob("other-*.arrow"):
        shutil.copy(arrow, csqa / arrow.name)
    rewrite_info(csqa, lambda info: {**info, "dataset_name": "other"})
    with pytest.raises(UserError) as caught:
        load_mcq("hf:tau/commonsense_qa#validation")
    line = str(caught.value)
    assert "\n" not in line and "is of dataset 'other', not 'commonsense_qa'" in line, line


def test_a_damaged_cache_is_exit_2_from_the_cli(cli: Cli, csqa: Path, tmp_path: Path) -> None:
    rewrite_info(csqa, lambda info: {**info, "splits": 3})
    cli_error(cli, ["certify", "--model", "openai/m", "--scope",
                    "mcq:hf:tau/commonsense_qa#validation"], "so the cache is damaged")
    assert not (tmp_path / "runs").exists()
