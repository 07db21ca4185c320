"""What run.json's "inputs" hash (issue 43): for each input flag, the files its command reads
of the value, so that a change to any of them changes the hash and nothing else does; every
path flag of a resumable command is declared an input or is one a resume takes from the typed
command only."""

from __future__ import annotations

import csv
import hashlib
import json
from pathlib import Path

import pytest

from verstehen.cli.inputs import reads_of
from verstehen.cli.main import build_parser
from verstehen.cli.resume import RESUMABLE, _command_parser
from verstehen.engine.store.inputs import FILE, InputFile, file_sha256, link_inside
from verstehen.errors import UserError
from verstehen.methods.potemkin import benchmark
from verstehen.scopes.mcq import MCQ_SPEC

NOT_INPUTS = {"--cache", "--runs-dir", "--resume", "--junit"}  # the user's own, or typed again


def test_every_path_flag_of_a_resumable_command_declares_what_it_reads():
    """A flag read as a path on a resumable command is an input (its content hash recorded,
    checked on resume) unless it is one the resume takes from the typed command only."""
    parser = build_parser()
    undeclared = [(words, action.option_strings) for words in RESUMABLE
                  for action in _command_parser(parser, words)._actions
                  if action.type is Path and action.option_strings
                  and not NOT_INPUTS & set(action.option_strings) and reads_of(action) is None]
    assert undeclared == []


def write_checkout(root: Path) -> Path:
    """A minimal Potemkin benchmark checkout that loads."""
    data = root / "BenchmarkDataset"
    for sub in ("define", "classify", "generate", "edit"):
        (data / sub).mkdir(parents=True)
    (data / "define" / "definition_questions.json").write_text(json.dumps(
        [{"Concept": "Haiku", "Domain": "x", "Articulate": "What is a haiku?"}]))
    with (data / "labeled_instances.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("Concept", "Example", "True Label")])
    (data / "classify" / "questions.csv").write_text("Prompts\n")
    (data / "generate" / "questions.csv").write_text("prompt\n")
    (data / "edit" / "questions.csv").write_text("prompt\n")
    return root


def test_a_benchmark_checkout_is_hashed_over_the_files_its_loader_reads(tmp_path, monkeypatch):
    """`benchmark_files` names exactly what `load_benchmark` reads, in its order, so a change
    to any of them changes the hash (and a file the loader never reads does not)."""
    root = write_checkout(tmp_path / "bench")
    read: list[Path] = []
    real = benchmark.read_text
    monkeypatch.setattr(benchmark, "read_text", lambda p, what: read.append(p) or real(p, what))
    benchmark.load_benchmark(root)
    named, files = benchmark.benchmark_files(str(root))
    assert list(files) == read and named == root
    given = InputFile("--benchmark-dir", str(root), benchmark.BENCHMARK)
    before = given.sha256()
    (root / "README.md").write_text("not read")
    assert given.sha256() == before
    with files[-1].open("a") as handle:
        handle.write("a prompt\n")
    assert given.sha256() != before


def test_an_mmlu_folder_is_hashed_over_its_csv_files_with_their_names(tmp_path):
    """mcq:FOLDER: the csv files load_mcq reads, each with its name (a subject's name); a
    scope's name and an hf: dataset name no file."""
    folder = tmp_path / "mmlu"
    folder.mkdir()
    (folder / "law_test.csv").write_text("Q?,a,b,c,d,A\n")
    given = InputFile("--scope", f"mcq:{folder}", MCQ_SPEC)
    before = given.sha256()
    assert before is not None
    (folder / "law_test.csv").rename(folder / "art_test.csv")
    assert given.sha256() != before
    assert InputFile("--scope", "arithmetic", MCQ_SPEC).sha256() is None
    assert InputFile("--scope", "mcq:hf:tau/commonsense_qa", MCQ_SPEC).sha256() is None


def test_one_file_s_hash_is_its_sha256_and_a_link_is_refused_unfollowed(tmp_path):
    """A single file's hash is what `sha256sum` prints; `follow=False` refuses a link; a link
    on a path inside a folder is found, one outside it is not looked for."""
    path = tmp_path / "kb.tsv"
    path.write_bytes(b"relation\tstart\tend\n")
    expected = hashlib.sha256(path.read_bytes()).hexdigest()
    assert InputFile("--kb", str(path), FILE).sha256() == file_sha256(path) == expected
    run = tmp_path / "run"
    run.mkdir()
    (run / "kb.tsv").symlink_to(path)
    assert link_inside(run, run / "kb.tsv") == run / "kb.tsv"
    assert link_inside(run, run / ".." / "kb.tsv") is None  # lexically outside the folder
    assert file_sha256(run / "kb.tsv") == expected
    with pytest.raises(UserError, match="not a regular file"):
        file_sha256(run / "kb.tsv", follow=False)
