"""A Hugging Face dataset on disk as `hf:PATH[#SPLIT]` (issue 44, item 5): a folder that
`datasets` wrote with `save_to_disk` (a DatasetDict or one Dataset), or a folder of Parquet or
JSON files, read with no cache and no network, pinned by its content hash as a Hub dataset is
pinned by its commit; a run records the pinned spec and the folder as an input, so a changed
folder is refused on resume. Before, `hf:` took Hub names only: a folder could not be used
without faking the hub cache."""

from __future__ import annotations

import json
import os
import shlex
import socket
from pathlib import Path

import pytest
from data.test_hf import answering

from verstehen.data.hf_local import local_files
from verstehen.data.mcq import MCQItem, pinned_source, read_mcq
from verstehen.engine.store.inputs import content_sha256
from verstehen.errors import UserError
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli, cli_error

datasets = pytest.importorskip("datasets")

# the Hub's CSQA columns (tau/commonsense_qa): choices as {label: [...], text: [...]}
ROWS = [{"id": f"q{i}", "question": f"Where is thing {i}?",
         "choices": {"label": list("ABCD"), "text": [f"place {c}{i}" for c in "abcd"]},
         "answerKey": "ABAB"[i]} for i in range(4)]
ITEMS = [MCQItem(f"q{i}", f"Where is thing {i}?", list("ABCD"),
                 [f"place {c}{i}" for c in "abcd"], "ABAB"[i]) for i in range(4)]
# MMLU's columns: the answer an index, ids numbered within the subject
MMLU = [{"question": "Bone?", "subject": "anatomy", "choices": ["a", "b", "c", "d"], "answer": 2}]


@pytest.fixture
def hf_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty private datasets cache (which must stay empty) and the working folder
    `tmp_path/work`; the offline switches restored after."""
    cache = tmp_path / "hf-cache"
    cache.mkdir()
    monkeypatch.setenv("HF_DATASETS_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", datasets.config.HF_HUB_OFFLINE)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "0")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return cache


@pytest.fixture
def offline(hf_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`hf_env`, and no connection allowed."""

    def refuse(*args: object) -> None:
        raise AssertionError("a network connection was attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return hf_env


def save_dict(folder: Path, splits: dict[str, list[dict]]) -> Path:
    """`DatasetDict(...).save_to_disk(folder)`."""
    datasets.DatasetDict({name: datasets.Dataset.from_list(rows)
                          for name, rows in splits.items()}).save_to_disk(str(folder))
    return folder


def parquet_folder(folder: Path, splits: dict[str, list[dict]]) -> Path:
    """Parquet files named as the Hub names them: data/<split>-00000-of-00001.parquet."""
    (folder / "data").mkdir(parents=True)
    for name, rows in splits.items():
        datasets.Dataset.from_list(rows).to_parquet(
            str(folder / "data" / f"{name}-00000-of-00001.parquet"))
    (folder / "README.md").write_text("# not data\n")
    return folder


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file under `folder` with its size and modification time."""
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_each_kind_of_folder_reads_the_same_questions_and_writes_nothing(
        offline: Path, tmp_path: Path) -> None:
    """A saved DatasetDict, one saved Dataset, Parquet files and JSON files (JSON Lines and a
    JSON list) of the same rows give the items written out by hand; the pinned spec names the
    folder's content hash and the split read. No file is written, in the folder or the cache."""
    save_dict(Path("saved"), {"validation": ROWS, "train": ROWS[:1]})
    datasets.Dataset.from_list(ROWS).save_to_disk("single")
    parquet_folder(Path("pq"), {"validation": ROWS, "train": ROWS[:1]})
    Path("js").mkdir()
    Path("js/test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    Path("js/validation.json").write_text(json.dumps(ROWS[:2]))
    before = snapshot(tmp_path)
    for spec, split in [("hf:./saved#validation", "validation"), ("hf:./single", "train"),
                        ("hf:./pq#validation", "validation"), ("hf:./js", "test"),
                        (f"hf:{Path('pq').resolve()}#validation", "validation")]:
        questions = read_mcq(spec)
        assert questions.items == ITEMS, spec
        path = spec.removeprefix("hf:").partition("#")[0]
        root, files = local_files(f"hf:{path}")
        assert questions.source == f"hf:{path}@sha256:{content_sha256(root, files)}#{split}"
        assert pinned_source(spec) == questions.source  # pinned without reading a row
    assert read_mcq("hf:./js#validation").items == ITEMS[:2]
    assert snapshot(tmp_path) == before and not any(offline.iterdir())
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_what_the_content_hash_covers(offline: Path) -> None:
    """A saved dataset's own files (dataset_dict.json, each split's state, info and arrow
    files); a folder of files, its data files only: a README beside them changes nothing."""
    save_dict(Path("saved"), {"validation": ROWS})
    root, files = local_files("hf:./saved")
    assert [str(f.relative_to(root)) for f in files] == [
        "dataset_dict.json", "validation/state.json", "validation/dataset_info.json",
        "validation/data-00000-of-00001.arrow"]
    parquet_folder(Path("pq"), {"validation": ROWS, "train": ROWS[:1]})
    pinned = pinned_source("hf:./pq#validation")
    Path("pq/README.md").write_text("# edited\n")
    assert pinned_source("hf:./pq#validation") == pinned
    Path("pq/data/train-00000-of-00001.parquet").write_bytes(b"changed")
    assert pinned_source("hf:./pq#validation") != pinned


def test_a_pinned_spec_reads_the_folder_only_while_it_holds_the_same_content(
        offline: Path) -> None:
    parquet_folder(Path("pq"), {"test": ROWS})
    pinned = pinned_source("hf:./pq")
    assert read_mcq(pinned).items == ITEMS
    datasets.Dataset.from_list(ROWS[:2]).to_parquet("pq/data/test-00000-of-00001.parquet")
    with pytest.raises(UserError) as caught:
        read_mcq(pinned)
    line = str(caught.value)
    assert "does not hold what this spec was pinned to" in line and "give hf:./pq" in line
    assert "\n" not in line
    assert len(read_mcq("hf:./pq").items) == 2


def test_a_hub_name_never_means_a_folder(offline: Path) -> None:
    """`hf:tau/commonsense_qa` beside a folder tau/commonsense_qa is the Hub's dataset (here not
    cached); the folder is `hf:./tau/commonsense_qa`."""
    save_dict(Path("tau/commonsense_qa"), {"validation": ROWS})
    with pytest.raises(UserError, match="not in the local Hugging Face datasets cache") as e:
        read_mcq("hf:tau/commonsense_qa#validation")
    assert str(e.value).endswith("tau/commonsense_qa is a folder here: for the dataset on disk "
                                 "write hf:./tau/commonsense_qa")
    assert read_mcq("hf:./tau/commonsense_qa").items == ITEMS


def test_a_path_from_home(offline: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    save_dict(tmp_path / "csqa", {"validation": ROWS})
    assert read_mcq("hf:~/csqa").source.startswith("hf:~/csqa@sha256:")


def test_mmlu_rows_in_a_folder(offline: Path) -> None:
    Path("mmlu").mkdir()
    Path("mmlu/test.jsonl").write_text(json.dumps(MMLU[0]) + "\n")
    assert read_mcq("hf:./mmlu").items == [
        MCQItem("anatomy_test:0", "Bone?", list("ABCD"), ["a", "b", "c", "d"], "C", "anatomy")]


@pytest.mark.parametrize(("make", "spec", "needle"), [
    (lambda: None, "hf:./nowhere", "no such folder"),
    (lambda: Path("q.jsonl").write_text("{}\n"), "hf:./q.jsonl", "is a file, not a folder"),
    (lambda: Path("empty").mkdir(), "hf:./empty", "holds no dataset verstehen reads"),
    (lambda: save_dict(Path("two"), {"validation": ROWS, "train": ROWS}), "hf:./two",
     "name a split, one of train, validation: e.g. hf:./two#train"),
    (lambda: save_dict(Path("one"), {"validation": ROWS}), "hf:./one#test",
     "no split 'test'; the folder has validation"),
    (lambda: save_dict(Path("bad"), {"test": ROWS}).joinpath("dataset_dict.json").write_text(
        '{"splits": ["../../etc"]}'), "hf:./bad", "does not list split folders"),
    (lambda: (Path("js").mkdir(), Path("js/test.jsonl").write_text('{"a": 1}\n[2]\n')),
     "hf:./js", "line 2 is not a JSON object"),
    (lambda: (Path("js").mkdir(), Path("js/test.jsonl").write_text('{"question": "x"}\n')),
     "hf:./js", "columns question are no multiple-choice shape"),
    (lambda: (Path("pq/data").mkdir(parents=True),
              Path("pq/data/test.parquet").write_bytes(b"PAR1 not parquet")),
     "hf:./pq", "is not a Parquet file that can be read"),
    (lambda: save_dict(Path("s"), {"test": ROWS}), "hf:./s#", "bad SPLIT ''"),
])
def test_what_cannot_be_read_is_one_line(offline: Path, make, spec: str, needle: str) -> None:
    make()
    with pytest.raises(UserError) as caught:
        read_mcq(spec)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


def test_certify_records_the_pin_and_the_folder_and_a_resume_refuses_a_changed_one(
        cli: Cli, cli_env: dict[str, str], hf_env: Path) -> None:
    """A model that answers A is right on q0 and q2; run.json's scope names the content hash,
    its inputs the same hash of the folder; unchanged, a resume makes no call; changed, it is
    refused in one line before any call."""
    folder = save_dict(Path("csqa").resolve(), {"validation": ROWS})
    scope = f"mcq:hf:{folder}#validation"
    with StubEndpoints(1, route=answering("A")) as stub:
        args = ["certify", "--model", "openai/stub", "--base-url", stub.urls[0], "--scope", scope,
                "--questions", "4", "--rephrase", "0", "--no-progress", "--json"]
        made = cli(args)
        assert made.returncode == 0, made.stderr
        [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
        info = json.loads((run / "run.json").read_text())
        sha = content_sha256(*local_files(f"hf:{folder}"))
        assert info["config"]["scopes"] == [f"mcq:hf:{folder}@sha256:{sha}#validation"]
        assert [(e["flag"], e["value"], e["sha256"]) for e in info["inputs"]] == [
            ("--scope", scope, sha)]
        records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
        assert {r["question_id"]: r["score"] for r in records if r.get("kind") == "answer"} \
            .items() <= {"q0": 1.0, "q1": 0.0, "q2": 1.0, "q3": 0.0}.items()
        resume = ["certify", "--resume", str(run), "--base-url", stub.urls[0], "--no-progress"]
        calls = sum(stub.received[0].values())
        assert cli(resume).returncode == 0 and sum(stub.received[0].values()) == calls
        datasets.DatasetDict({"validation": datasets.Dataset.from_list(ROWS[:3])}) \
            .save_to_disk(str(folder))
        cli_error(cli, resume, f"--scope {shlex.quote(scope)}, named by {run}/run.json, does "
                               "not hold what the run started with")
        assert sum(stub.received[0].values()) == calls


def test_consistency_records_the_pinned_folder(cli: Cli, cli_env: dict[str, str],
                                               hf_env: Path) -> None:
    parquet_folder(Path("pq"), {"validation": ROWS})
    Path("kb.tsv").write_text("relation\tstart\tend\nIsA\tthing\tobject\n")
    with StubEndpoints(1, route=answering("A")) as stub:
        done = cli(["consistency", "--model", "openai/stub", "--base-url", stub.urls[0],
                    "--questions", "hf:./pq", "--kb", "kb.tsv", "--answer-by", "generation",
                    "--resamples", "10", "--no-progress", "--json"])
    assert done.returncode == 0, done.stderr
    [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
    info = json.loads((run / "run.json").read_text())
    sha = content_sha256(*local_files("hf:./pq"))
    assert info["config"]["questions"] == f"hf:./pq@sha256:{sha}#validation"
    assert {"flag": "--questions", "value": "hf:./pq", "sha256": sha} in info["inputs"]
