"""The batch job on a scripted model: a record that failed is retried on resume, once; what a
resume and a prompts file are checked for; failed calls counted on stderr."""

from __future__ import annotations

import asyncio
import hashlib
import http.server
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from verstehen.cli.batch import (
    RESUMED,
    BatchConfig,
    BatchRecord,
    ResumedConfig,
    batch,
    load_prompts,
    resumed_config,
)
from verstehen.engine.session import RunSettings
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed, UserError
from verstehen.models.base import GenerateParams
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli, cli_error


def test_resuming_a_batch_retries_failed_records_once(tmp_path: Path) -> None:
    """A record that ended in an error is replaced on resume, never duplicated."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a\nb\nc\n")
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    failing = ScriptedModel(script=lambda p, a: CallFailed("down") if p == "b" else None)
    first = asyncio.run(batch(failing, prompts, GenerateParams(), settings=settings))
    assert first.errors == first.failed_calls == 1 and first.records == first.expected == 3
    healthy = ScriptedModel()
    again = asyncio.run(batch(healthy, prompts, GenerateParams(), settings=settings,
                              resume=RunStore.open(first.run_dir)))
    assert again.run_dir == first.run_dir
    assert again.errors == 0 and healthy.calls == ["b"]
    assert sorted(r["id"] for r in RunStore(first.run_dir).records()) == ["1", "2", "3"]


# ---------------------------------------------------------------- resuming checks its input


def scripted_run(tmp_path: Path, text: str = "a\nb\nc\n") -> tuple[Path, Path, RunSettings]:
    """A finished batch of a .txt prompts file on a scripted model: (prompts, run, settings)."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text(text)
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    done = asyncio.run(batch(ScriptedModel(), prompts, GenerateParams(), settings=settings))
    return prompts, done.run_dir, settings


def test_a_record_without_answer_or_error_is_asked_again(tmp_path: Path) -> None:
    """{"text": null, "error": null} counted as an answer; now it is dropped and re-asked."""
    prompts, run, settings = scripted_run(tmp_path)
    rows = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    rows = [{**r, "text": None} if r["id"] == "2" else r for r in rows]
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    healthy = ScriptedModel()
    uncached = replace(settings, cache=tmp_path / "other.sqlite")
    again = asyncio.run(batch(healthy, prompts, GenerateParams(), settings=uncached,
                              resume=RunStore.open(run)))
    assert healthy.calls == ["b"] and again.records == 3 and again.errors == 0
    assert all(isinstance(r["text"], str) for r in RunStore(run).records())
    assert json.loads((run / "records.dropped.jsonl").read_text())["id"] == "2"


def test_resume_refuses_an_edited_prompts_file(cli: Cli, tmp_path: Path) -> None:
    """The run keeps the prompts file's SHA-256; an edited file is named, not half-resumed."""
    prompts, run, _ = scripted_run(tmp_path)
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["prompts"] == str(prompts.resolve())
    assert config["prompts_sha256"] == hashlib.sha256(prompts.read_bytes()).hexdigest()
    prompts.write_text("a\nB\nc\n")
    # the path run.json names: the file named, never what it holds now, nor its hash
    line = cli_error(cli, ["batch", "--resume", str(run), "--no-progress"],
                     f"the prompts file {prompts.resolve()}, named by {run}/run.json, does not "
                     "hold what the run started with", "or start a new run")
    assert hashlib.sha256(prompts.read_bytes()).hexdigest()[:12] not in line
    # typed again: the file is the user's, both hashes are shown
    cli_error(cli, ["batch", "--resume", str(run), str(prompts), "--no-progress"],
              f"prompts file {prompts} changed since run {run.name} was made",
              "resume with the original file, or start a new run")
    with pytest.raises(UserError, match="changed since run"):
        asyncio.run(batch(ScriptedModel(), prompts, GenerateParams(),
                          settings=RunSettings(runs_dir=tmp_path / "runs"),
                          resume=RunStore.open(run)))


@pytest.mark.parametrize(("name", "text", "needle"), [
    ("p.jsonl", '{"prompt": "fine"}\n{"messages": []}\n', "p.jsonl:2: messages must be a "
     "non-empty list"),
    ("p.jsonl", '{"id": [1], "prompt": "x"}\n', 'p.jsonl:1: "id" must be a non-empty string or '
     "an integer, not [1]"),
    ("p.jsonl", '{"id": true, "prompt": "x"}\n', 'p.jsonl:1: "id" must be'),
    ("p.jsonl", '{"prompt": null}\n', 'p.jsonl:1: "prompt" must be a non-empty string'),
    ("p.jsonl", '{"id": 1, "prompt": "x"}\n{"id": "1", "prompt": "y"}\n',
     "p.jsonl:2: id '1' is the id of line 1 too"),
    ("README.md", "# Title\n\nSome prose.\n", "a .md file is not a prompts file: give .txt"),
    ("prompts", "a\n", "a suffix-less file is not a prompts file"),
])
def test_bad_prompts_files_are_refused_at_load(cli: Cli, tmp_path: Path, name: str, text: str,
                                               needle: str) -> None:
    """Each was asked (and failed after every retry, or ran a Markdown file) before."""
    path = tmp_path / name
    path.write_text(text)
    line = cli_error(cli, ["batch", "openai/x", str(path), "--no-progress"], needle)
    assert ".jsonl" in line or "p.jsonl" in line
    assert not (tmp_path / "runs").exists()


def test_a_prompt_holding_a_form_feed_stays_one_prompt(tmp_path: Path) -> None:
    path = tmp_path / "p.txt"
    path.write_text("one\fstill one\u2028and still\r\ntwo\n")
    assert [i.messages[0]["content"] for i in load_prompts(path)] == [
        "one\fstill one\u2028and still", "two"]


class Refusing(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible server that answers every chat request with 400."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = b'{"error": {"message": "bad request", "type": "invalid_request_error"}}'
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        """Quiet."""


def test_failed_calls_are_counted_and_exit_1(cli: Cli, tmp_path: Path) -> None:
    """Failures say how many and how to retry them (resume the run); the count of calls to
    make comes first."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refusing)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        prompts = tmp_path / "p.txt"
        prompts.write_text("a\nb\n")
        url = f"http://127.0.0.1:{server.server_port}/v1"
        done = cli(["batch", "openai/x", str(prompts), "--no-progress", "--base-url", url,
                    "--max-attempts", "1"])
    finally:
        server.shutdown()
        server.server_close()
    run = json.loads(done.stdout)["run"]
    assert done.returncode == 1 and json.loads(done.stdout)["errors"] == 2
    lines = done.stderr.strip().splitlines()
    assert "2 calls to make (0 of 2 answers already in the run)" in lines
    # the resume must repeat where the calls went: a run folder never chooses (issue 29)
    assert lines[-1] == (f"2 calls failed; to retry them, type: verstehen batch --resume {run}"
                         f" --base-url {url}")


def test_records_and_config_hold_the_keys_their_types_declare(tmp_path: Path) -> None:
    """Every record of a batch (answered or failed) holds exactly `BatchRecord`'s keys, run.json's
    config exactly `BatchConfig`'s, and a resume checks (`RESUMED`) and takes exactly
    `ResumedConfig`'s: all of BatchConfig's but the prompts file's SHA-256, which runs made
    before it was kept lack."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a\nb\n")
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    failing = ScriptedModel(script=lambda p, a: CallFailed("down") if p == "b" else None)
    done = asyncio.run(batch(failing, prompts, GenerateParams(), settings=settings))
    records = list(RunStore(done.run_dir).records())
    assert sorted(r["error"] or "answered" for r in records) == ["answered", "down"]
    assert all(set(r) == set(BatchRecord.__annotations__) for r in records)
    config = RunStore(done.run_dir).info()["config"]
    assert set(config) == set(BatchConfig.__annotations__)
    resumed = set(BatchConfig.__annotations__) - {"prompts_sha256"}
    assert set(RESUMED) == set(ResumedConfig.__annotations__) == resumed
    assert set(resumed_config(RunStore(done.run_dir))) == resumed
