"""A run folder is data, for its inputs too (issue 43): a resume reads an input file its
run.json names only when the command typed now names it again, or when it holds what it held
when the run started (run.json records its content hash). A planted folder that names a file
outside it (a stand-in for ~/.ssh/id_rsa), directly or through a link in the folder, sends
nothing of it to the server, copies nothing of it into the folder and quotes nothing of it.

Each stored input kind (prompts, --kb, --questions of consistency and of imagine answer,
--benchmark-dir, mcq:PATH, --scores) resumes as before while unchanged; changed, it is refused
in one line; a run.json without its hash (an older run) is refused with the command to type,
which then resumes; typed again with changed content, it is refused (a changed input starts a
new run)."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shlex
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from verstehen.engine.store import RunStore
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli, cli_error

SECRET = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA s3cr3t\n" \
         "root:x:0:0:root:/root:/bin/bash\n"
SECRET_PIECES = ("OPENSSH", "b3BlbnNzaC1rZXkt", "s3cr3t", "root:x:0:0")


@pytest.fixture
def server() -> Iterator[StubEndpoints]:
    """One stub endpoint that keeps every request body."""
    with StubEndpoints(1) as stub:
        yield stub


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside every run folder that the user never names: a private key's stand-in."""
    path = tmp_path / "home" / ".ssh" / "id_rsa.txt"
    path.parent.mkdir(parents=True)
    path.write_text(SECRET)
    path.chmod(0o600)
    return path


def sent(server: StubEndpoints) -> str:
    """Every request body the server received, as one text."""
    return json.dumps(server.bodies)


def nothing_of(*texts: str) -> bool:
    """True when no piece of the secret shows in any of the texts."""
    return not any(piece in text for piece in SECRET_PIECES for text in texts)


def edit_run(run: Path, change: Callable[[dict], None]) -> None:
    """Change run.json as someone handing the folder over could."""
    info = json.loads((run / "run.json").read_text())
    change(info)
    (run / "run.json").write_text(json.dumps(info))


def the_run(runs: Path) -> Path:
    """The one run folder under `runs`."""
    [run] = [p for p in runs.iterdir() if (p / "run.json").exists()]
    return run


# ---------------------------------------------------------------- the planted batch folder


@pytest.mark.parametrize("plant", ["link in the folder, no hash", "path outside, no hash",
                                   "link in the folder, another file's hash"])
def test_a_planted_batch_folder_sends_and_copies_nothing_of_a_file_outside_it(
        cli: Cli, cli_env, server, secret, tmp_path, plant):
    """Issue 43's finding: a batch run.json without `prompts_sha256` (the older run's form)
    whose prompts file is a `.txt` link in the folder to a file outside it. `batch --resume
    FOLDER --base-url URL` sent every line of that file as prompts and copied them into the
    folder's records.jsonl. Now: one line, exit 2, no request, nothing copied."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("one\ntwo\n")
    made = cli(["batch", "openai/stub", str(prompts), "--base-url", server.urls[0],
                "--no-progress"])
    assert made.returncode == 0, made.stderr
    run = the_run(Path(cli_env["VERSTEHEN_RUNS_DIR"]))
    (run / "records.jsonl").write_text("")
    (run / "p.txt").symlink_to(secret)
    pointed = secret if plant == "path outside, no hash" else run / "p.txt"

    def plant_config(info: dict) -> None:
        info["config"]["prompts"] = str(pointed)
        if plant.endswith("no hash"):
            del info["config"]["prompts_sha256"]  # the check used to be skipped then
    edit_run(run, plant_config)
    before = sum(server.received[0].values())
    line = cli_error(cli, ["batch", "--resume", str(run), "--base-url", server.urls[0],
                           "--no-progress"], str(pointed))
    assert sum(server.received[0].values()) == before  # not one request
    records = (run / "records.jsonl").read_text()
    assert nothing_of(sent(server), records, line, (run / "run.json").read_text())
    assert not (run / "records.dropped.jsonl").exists() and records == ""
    # the line names the link, or gives the command that names the file
    assert ("a symbolic link in the run folder" in line) == (pointed != secret)
    if plant == "path outside, no hash":
        assert line.endswith(f"type verstehen batch --resume {run} --base-url "
                             f"{server.urls[0]} --no-progress {pointed}")


def test_a_batch_prompts_file_typed_again_resumes_an_older_run(cli: Cli, cli_env, server,
                                                                tmp_path):
    """An older batch run (no SHA-256): refused until its prompts file is typed again
    (PROMPTS alone after --resume), then finished; another file is refused."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("one\ntwo\nthree\n")
    assert cli(["batch", "openai/stub", str(prompts), "--base-url", server.urls[0],
                "--no-progress"]).returncode == 0
    run = the_run(Path(cli_env["VERSTEHEN_RUNS_DIR"]))
    edit_run(run, lambda info: info["config"].pop("prompts_sha256"))
    (run / "records.jsonl").write_text("")
    resume = ["batch", "--resume", str(run), "--base-url", server.urls[0], "--no-progress"]
    line = cli_error(cli, resume, "keeps no SHA-256 of its prompts file")
    typed = shlex.split(line.partition("to read it, type ")[2])
    assert typed[0] == "verstehen" and typed[-1] == str(prompts.resolve())
    other = tmp_path / "other.txt"
    other.write_text("one\ntwo\nthree\n")
    cli_error(cli, [*resume, str(other)], f"made from the prompts file {prompts.resolve()}")
    done = cli(typed[1:])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["records"] == 3


# ---------------------------------------------------------------- certify --scores


def planted_scores_run(folder: Path, scores: Path, *, hashed: bool) -> Path:
    """A run.json that verstehen never writes: `certify --scores FILE` makes no run folder."""
    folder.mkdir(parents=True)
    info: dict = {"command": "certify", "argv": ["certify", "--scores", str(scores)],
                  "config": {}}
    if hashed:  # a planter who knows the file's content can give its hash (a file's SHA-256)
        sha = hashlib.sha256(scores.read_bytes()).hexdigest()
        info["inputs"] = [{"flag": "--scores", "value": str(scores), "sha256": sha}]
    (folder / "run.json").write_text(json.dumps(info))
    return folder


@pytest.mark.parametrize("hashed", [False, True])
def test_a_planted_certify_scores_resume_quotes_nothing_of_the_file(cli: Cli, secret, tmp_path,
                                                                    hashed):
    """`certify --resume RUN` whose run.json says `certify --scores ~/.ssh/id_rsa` printed the
    file's first 40 characters ("'-----BEGIN OPENSSH PRIVATE KEY-----' is not a score"). Now
    it is refused (no hash: one line naming the file to type); with a hash that matches (a
    planter who knows the content), the reader's error names the file and line only."""
    run = planted_scores_run(tmp_path / "run", secret, hashed=hashed)
    line = cli_error(cli, ["certify", "--resume", str(run)], str(secret))
    assert nothing_of(line)
    if hashed:
        assert f"{secret}:1: cannot be read as this run needs it; its text is not shown" in line
        assert line.endswith(f"type verstehen certify --resume {run} --scores {secret}")
    else:
        assert "records no content hash of its input file --scores" in line
    # typed again, the file is the user's own: a short piece of it may be quoted, as before
    typed = cli_error(cli, ["certify", "--resume", str(run), "--scores", str(secret)],
                      f"{secret}:1:", "is not a score")
    assert "OPENSSH" in typed


def test_certify_scores_named_by_run_json_is_read_only_while_unchanged(cli: Cli, tmp_path):
    """--scores from run.json: read (a verdict printed) while its hash matches; changed,
    refused in one line; typed again, read."""
    scores = tmp_path / "scores.txt"
    scores.write_text("1\n" * 40)
    run = planted_scores_run(tmp_path / "run", scores, hashed=True)
    done = cli(["certify", "--resume", str(run), "--json"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["scores"] == str(scores)
    scores.write_text("1\n" * 39 + "0\n")
    cli_error(cli, ["certify", "--resume", str(run)],
              "does not hold what the run started with")
    cli_error(cli, ["certify", "--resume", str(run), "--scores", str(scores)],
              "changed since run", "start a new run")


# ---------------------------------------------------------------- each input kind


@dataclass(frozen=True)
class Kind:
    """A command with one stored input: how to make its run, the input's flag and value as
    typed, and how to change what it names."""

    make: Callable[[Path, str], list[str]]  # (tmp, url) -> the command line of a new run
    flag: str
    value: Callable[[Path], str]
    change: Callable[[Path], None]


CSQA = {"id": "a", "answerKey": "A", "question": {
    "stem": "Where do dogs sleep?", "choices": [{"label": "A", "text": "home"},
                                              {"label": "B", "text": "away"}]}}


def _consistency(tmp: Path, url: str) -> list[str]:
    (tmp / "csqa.jsonl").write_text(json.dumps(CSQA) + "\n")
    (tmp / "kb.tsv").write_text("relation\tstart\tend\nIsA\tdog\tanimal\nAtLocation\tdog\thome\n")
    return ["consistency", "--questions", str(tmp / "csqa.jsonl"), "--kb", str(tmp / "kb.tsv"),
            "--model", "openai/m", "--answer-by", "generation", "--resamples", "10",
            "--base-url", url, "--no-progress", "--json"]


def _question_run(tmp: Path, url: str) -> list[str]:
    store = RunStore.create(tmp / "questions", command="imagine-generate", argv=[], config={},
                            seed=0, models=[])
    store.append(question("Which court hears appeals?"))
    return ["imagine", "answer", "--questions", str(store.path), "--model", "openai/m",
            "--base-url", url, "--no-progress", "--json"]


def _question_folder(tmp: Path) -> Path:
    [folder] = (tmp / "questions").iterdir()
    return folder


def question(stem: str) -> dict:
    """A usable question record of an `imagine generate` run."""
    return {"kind": "question", "id": stem, "qm": "q1", "qtype": "DQ", "content": "knowledge",
            "topic": "law", "index": 0, "position": None, "context": None, "reply": "",
            "status": "ok", "reason": None, "stem": stem,
            "choices": ["high", "low", "none", "all"], "answer": 0}


def _benchmark(tmp: Path, url: str) -> list[str]:
    data = tmp / "bench" / "BenchmarkDataset"
    for sub in ("define", "classify", "generate", "edit"):
        (data / sub).mkdir(parents=True)
    (data / "define" / "definition_questions.json").write_text(json.dumps(
        [{"Concept": "Haiku", "Domain": "x", "Articulate": "What is a haiku?"}]))
    with (data / "labeled_instances.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("Concept", "Example", "True Label"),
                                 ("Haiku", "frost on a tin cup", "yes")])
    with (data / "classify" / "questions.csv").open("w", newline="") as f:
        csv.writer(f).writerows([("Prompts",), (
            "Is the following example an instance of the concept Haiku? Reply yes or no."
            "\n\nfrost on a tin cup",)])
    (data / "generate" / "questions.csv").write_text("prompt\n")
    (data / "edit" / "questions.csv").write_text("prompt\n")
    return ["potemkin", "run", "--benchmark-dir", str(tmp / "bench"), "--concepts", "Haiku",
            "--tasks", "define,classify", "--model", "openai/m", "--base-url", url,
            "--no-progress", "--json"]


def _mcq(tmp: Path, url: str) -> list[str]:
    (tmp / "mcq.jsonl").write_text(json.dumps(CSQA) + "\n")
    return ["certify", "--scope", f"mcq:{tmp / 'mcq.jsonl'}", "--model", "openai/m",
            "--questions", "4", "--rephrase", "0", "--base-url", url, "--no-progress", "--json"]


def _append(path: Path, text: str) -> None:
    with path.open("a") as handle:
        handle.write(text)


KINDS = {
    "--kb": Kind(_consistency, "--kb", lambda t: str(t / "kb.tsv"),
                 lambda t: _append(t / "kb.tsv", "IsA\tcat\tanimal\n")),
    "consistency --questions": Kind(
        _consistency, "--questions", lambda t: str(t / "csqa.jsonl"),
        lambda t: (t / "csqa.jsonl").write_text(json.dumps({**CSQA, "id": "b"}) + "\n")),
    "imagine answer --questions": Kind(
        _question_run, "--questions", lambda t: str(_question_folder(t)),
        lambda t: _append(_question_folder(t) / "records.jsonl",
                          json.dumps(question("Who writes laws?")) + "\n")),
    "--benchmark-dir": Kind(
        _benchmark, "--benchmark-dir", lambda t: str(t / "bench"),
        lambda t: (t / "bench" / "BenchmarkDataset" / "define" /
                   "definition_questions.json").write_text(json.dumps(
                       [{"Concept": "Haiku", "Domain": "x", "Articulate": "Define haiku."}]))),
    "mcq:PATH": Kind(_mcq, "--scope", lambda t: f"mcq:{t / 'mcq.jsonl'}",
                     lambda t: (t / "mcq.jsonl").write_text(
                         json.dumps({**CSQA, "answerKey": "B"}) + "\n")),
}


@pytest.mark.parametrize("kind", KINDS)
def test_each_stored_input_is_read_only_unchanged_or_typed_again(cli: Cli, cli_env, server,
                                                                  tmp_path, kind):
    """Unchanged: resumed from the cache; hash missing: refused with the line to type, which
    resumes (and records it); changed: refused; typed again changed: refused (a new run)."""
    spec = KINDS[kind]
    made = cli(spec.make(tmp_path, server.urls[0]))
    assert made.returncode == 0, made.stderr
    run = the_run(Path(cli_env["VERSTEHEN_RUNS_DIR"]))
    value = spec.value(tmp_path)
    info = json.loads((run / "run.json").read_text())
    [entry] = [e for e in info["inputs"] if e["flag"] == spec.flag]
    assert entry["value"] == value and len(entry["sha256"]) == 64
    words = info["command"].split("-")
    resume = [*words, "--resume", str(run), "--base-url", server.urls[0], "--no-progress"]
    # unchanged: resumed as before, every call from the cache
    calls = sum(server.received[0].values())
    again = cli(resume)
    assert again.returncode == 0, again.stderr
    assert sum(server.received[0].values()) == calls
    # an older run: refused, with the command to type, which resumes it (and records the hash)
    edit_run(run, lambda info: info.pop("inputs"))
    line = cli_error(cli, resume, "records no content hash", f"{spec.flag} {value}")
    typed = shlex.split(line.partition("to read it, type ")[2])
    assert typed[:3 + len(words)] == ["verstehen", *words, "--resume", str(run)]
    at = typed.index(spec.flag)  # after what was typed: every input of the run, named again
    assert at > len(resume) and typed[at + 1] == value
    done = cli(typed[1:])
    assert done.returncode == 0, done.stderr
    assert any(e["flag"] == spec.flag for e in json.loads((run / "run.json").read_text())[
        "inputs"])
    # changed: refused in one line, showing nothing of the file
    spec.change(tmp_path)
    cli_error(cli, resume, f"{spec.flag} {value}, named by {run}/run.json, does not hold what "
                           "the run started with")
    # typed again with changed content: a changed input starts a new run
    cli_error(cli, [*resume, spec.flag, value], f"{spec.flag} {value} changed since run",
              "start a new run")


def test_an_input_typed_again_must_be_the_run_s_own(cli: Cli, cli_env, server, tmp_path):
    """Another file typed with --resume is refused: a resume asks what the run asked."""
    assert cli(_consistency(tmp_path, server.urls[0])).returncode == 0
    run = the_run(Path(cli_env["VERSTEHEN_RUNS_DIR"]))
    other = tmp_path / "other.tsv"
    other.write_text((tmp_path / "kb.tsv").read_text())
    cli_error(cli, ["consistency", "--resume", str(run), "--base-url", server.urls[0],
                    "--kb", str(other)], f"was made with --kb {tmp_path / 'kb.tsv'}",
              "start a new run")


def test_a_stored_input_through_a_link_in_the_run_folder_is_refused(cli: Cli, cli_env, server,
                                                                     secret, tmp_path):
    """--kb in run.json naming a link in the run folder (even with a matching hash): refused,
    the link named; nothing is sent."""
    assert cli(_consistency(tmp_path, server.urls[0])).returncode == 0
    run = the_run(Path(cli_env["VERSTEHEN_RUNS_DIR"]))
    (run / "kb.tsv").symlink_to(tmp_path / "kb.tsv")
    link = str(run / "kb.tsv")

    def plant(info: dict) -> None:
        info["argv"] = [link if t == str(tmp_path / "kb.tsv") else t for t in info["argv"]]
        for entry in info["inputs"]:
            if entry["flag"] == "--kb":
                entry["value"] = link
    edit_run(run, plant)
    calls = sum(server.received[0].values())
    cli_error(cli, ["consistency", "--resume", str(run), "--base-url", server.urls[0]],
              f"through {link}, a symbolic link in the run folder")
    assert sum(server.received[0].values()) == calls


def test_a_fifo_named_by_run_json_is_refused_at_once(cli: Cli, tmp_path):
    """A stored input that is a FIFO (with any hash) is refused without waiting on it."""
    fifo = tmp_path / "kb.tsv"
    os.mkfifo(fifo)
    run = tmp_path / "run"
    run.mkdir()
    (run / "run.json").write_text(json.dumps({
        "command": "consistency", "argv": ["consistency", "--kb", str(fifo)], "config": {},
        "inputs": [{"flag": "--kb", "value": str(fifo), "sha256": "0" * 64}]}))
    cli_error(cli, ["consistency", "--resume", str(run)], f"--kb {fifo}, named by",
              "cannot be read now (not a regular file)")
