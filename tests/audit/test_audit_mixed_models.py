"""A local and a served model in one audit (issue 30, item 2): each model is called at its own
server (NAME@URL, else --base-url for a served model; a local one ignores --base-url), every
model is checked before the audit folder is made, run.json records each model's URL, and the
table and report show one column per model. Served models are stub servers on 127.0.0.1; the
"local" model is a scripted Model object (the CLI test with the embedded model is slow)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import Cli, cli_error

CONCEPT = "game-theory/zero-sum"
# 32 questions at most: every verdict stays reachable (no warning), the stub's echo is wrong
# at once and decided at the first look
SMALL = {"subjects": CONCEPT, "max_questions": 32, "first_look": 8, "examples": 1}
CLI_SMALL = ["--subject", CONCEPT, "--max-questions", "32", "--first-look", "8",
             "--no-progress"]


def where(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def closed_url() -> str:
    """A base URL on 127.0.0.1 where nothing listens (a port bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def run_json(folder: Path) -> dict:
    """A run folder's run.json."""
    return json.loads((folder / "run.json").read_text())


def lens_base_urls(result: vs.AuditResult, i: int) -> set:
    """The base URL each lens run of model i recorded (certify, definitions, examples)."""
    runs = result.runs[i]
    return {run_json(folder)["config"]["base_url"]
            for folder in (runs.certify, runs.potemkin, runs.incoherence)}


def yes_model() -> ScriptedModel:
    """The in-process model of these tests: it answers Yes to everything."""
    return ScriptedModel("scripted/local", reply=lambda prompt: "ANSWER: Yes")


def test_a_local_model_and_a_model_at_its_own_url_are_two_columns(tmp_path: Path) -> None:
    local = yes_model()
    with StubEndpoints(1) as stub:
        url = stub.urls[0]
        result = vs.audit([local, f"openai/stub@{url}"], **SMALL, **where(tmp_path))
        asked = stub.chats(0)
    # the column is the model's name without its URL (no other model is called openai/stub)
    assert result.models == ("scripted/local", "openai/stub")
    assert [t.model for t in result.targets] == ["scripted/local", "openai/stub"]
    assert local.calls and asked > 0  # each answered its own questions
    # every lens of the served model went to its URL; the local one's to none
    assert lens_base_urls(result, 1) == {url}
    assert lens_base_urls(result, 0) == {None}
    config = run_json(result.run_dir)["config"]
    assert config["models"] == ["scripted/local", "openai/stub"]
    assert config["model_urls"] == [None, url]
    # the served model's calls: its certification answers, one definition, 2 examples made
    # and 2 classified (examples=1: one instance, one non-instance)
    assert result.usage["openai/stub"].calls == result.targets[1].asked + 1 + 2 + 2
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary["models"] == ["scripted/local", "openai/stub"]
    page = (result.run_dir / "report.html").read_text()
    assert "<th>scripted/local</th>" in page and "<th>openai/stub</th>" in page


def test_base_url_serves_the_served_models_and_a_local_one_ignores_it(tmp_path: Path) -> None:
    local = yes_model()
    with StubEndpoints(1) as stub:
        result = vs.audit([local, "openai/stub"], base_url=stub.urls[0], **SMALL,
                          **where(tmp_path))
        asked = stub.chats(0)
    assert result.models == ("scripted/local", "openai/stub") and asked > 0
    assert lens_base_urls(result, 1) == {stub.urls[0]} and lens_base_urls(result, 0) == {None}
    assert run_json(result.run_dir)["config"]["model_urls"] == [None, stub.urls[0]]


def test_two_servers_of_one_model_name_are_told_apart_by_host_and_port(tmp_path: Path) -> None:
    with StubEndpoints(2) as stub:
        result = vs.audit([f"openai/stub@{u}" for u in stub.urls], **SMALL, **where(tmp_path))
        asked = [stub.chats(0), stub.chats(1)]
    # the same name twice: each column keeps its server's host:port (from the stub's ports)
    names = tuple(f"openai/stub@127.0.0.1:{port}" for port in stub.ports)
    assert result.models == names
    assert all(n > 0 for n in asked)
    for i, url in enumerate(stub.urls):
        assert lens_base_urls(result, i) == {url}
        # each server saw its own model's calls only: usage under the column's name
        assert result.usage[names[i]].calls - result.usage[names[i]].cache_hits == asked[i]
    assert run_json(result.run_dir)["config"]["model_urls"] == stub.urls
    page = (result.run_dir / "report.html").read_text()
    assert all(f"<th>{name}</th>" in page for name in names)


def test_a_judge_at_its_own_url_grades_there(tmp_path: Path) -> None:
    local = yes_model()
    with StubEndpoints(1) as stub:
        result = vs.audit(local, judge=f"openai/stub@{stub.urls[0]}", **SMALL,
                          **where(tmp_path))
        judged = stub.chats(0)
    assert judged > 0  # the definition went to the judge's server
    potemkin = run_json(result.runs[0].potemkin)["config"]
    assert potemkin["judge"] == "openai/stub" and potemkin["judge_base_url"] == stub.urls[0]
    config = run_json(result.run_dir)["config"]
    assert (config["judge"], config["judge_base_url"]) == ("openai/stub", stub.urls[0])


def test_the_same_model_at_the_same_url_twice_is_refused(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9/v1"
    with pytest.raises(vs.UserError, match="named twice"):
        vs.audit([f"openai/m@{url}", f"openai/m@{url}"], **where(tmp_path))
    assert not (tmp_path / "runs").exists()


def test_a_base_url_no_model_uses_is_refused(tmp_path: Path) -> None:
    local = yes_model()
    with pytest.raises(vs.UserError, match="--base-url serves the openai/ and anthropic/"):
        vs.audit(local, base_url="http://127.0.0.1:9/v1", **where(tmp_path))
    assert local.calls == [] and not (tmp_path / "runs").exists()


def test_the_second_models_missing_key_stops_before_the_first_models_first_call(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    local = yes_model()
    with pytest.raises(vs.UserError, match="OPENAI_API_KEY is not set"):
        vs.audit([local, "openai/gpt-4o-mini"], **where(tmp_path))
    assert local.calls == [] and not (tmp_path / "runs").exists()


def test_cli_second_model_without_key_or_server_is_one_line_and_nothing_is_asked(
        cli: Cli, cli_env: dict[str, str]) -> None:
    runs = Path(cli_env["VERSTEHEN_RUNS_DIR"])
    with StubEndpoints(1) as stub:
        first = f"openai/stub@{stub.urls[0]}"
        cli_error(cli, ["audit", "--model", first, "--model", "openai/gpt-4o-mini",
                        *CLI_SMALL], "OPENAI_API_KEY is not set")
        down = closed_url()
        cli_error(cli, ["audit", "--model", first, "--model", f"openai/other@{down}",
                        *CLI_SMALL], "127.0.0.1")
        # the command line: a local model, a served one at --base-url; the third
        # model (at OpenAI's own host, which needs the key) is refused before the local
        # model is even loaded
        cli_error(cli, ["audit", "--model", "local/smollm2-135m", "--model", "openai/stub",
                        "--base-url", stub.urls[0], "--model",
                        "openai/gpt-4o-mini@https://api.openai.com/v1", *CLI_SMALL],
                  "OPENAI_API_KEY is not set")
        assert stub.bodies[0] == []  # no request reached the first model's server
    assert not runs.exists() or list(runs.iterdir()) == []


def test_cli_bad_model_urls_are_refused_while_parsing(cli: Cli) -> None:
    cli_error(cli, ["audit", "--model", "local/smollm2-135m@http://127.0.0.1:8000/v1"],
              "argument --model", "in-process")
    cli_error(cli, ["audit", "--model", "openai/m@http://127.0.0.1:99999/v1"],
              "argument --model", "no port")
    cli_error(cli, ["audit", "--judge", "openai/j@https://"], "argument --judge")


def test_cli_resume_of_a_model_at_its_own_url_must_name_it_again(
        cli: Cli, cli_env: dict[str, str]) -> None:
    with StubEndpoints(1) as stub:
        served = f"openai/stub@{stub.urls[0]}"
        done = cli(["audit", "--model", served, *CLI_SMALL, "--examples", "0"])
        assert done.returncode == 0, done.stderr
        [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
        asked = stub.chats(0)
        cli_error(cli, ["audit", "--resume", str(run)],
                  f"made with the model {served}", f"add --model {served}")
        assert stub.chats(0) == asked  # nothing was sent on the refusal
        again = cli(["audit", "--resume", str(run), "--model", served, "--json"])
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout)["models"] == ["openai/stub"]
        assert stub.chats(0) == asked  # every call came from the cache


@pytest.mark.slow
def test_cli_the_embedded_model_and_a_served_one_in_one_audit(
        cli: Cli, cli_env: dict[str, str]) -> None:
    """The issue's case end to end: the real CLI with local/smollm2-135m and a stub served
    at its own URL, on one concept; whatever the 135M model writes, both are columns."""
    with StubEndpoints(1) as stub:
        done = cli(["audit", "--model", "local/smollm2-135m", "--model",
                    f"openai/stub@{stub.urls[0]}", *CLI_SMALL, "--json",
                    "--max-tokens", "256"])  # the suite's time not hanging on a ramble
        asked = stub.chats(0)
    assert done.returncode == 0, done.stderr
    assert asked > 0
    summary = json.loads(done.stdout)
    assert summary["models"] == ["local/smollm2-135m", "openai/stub"]
    assert [t["model"] for t in summary["targets"]] == ["local/smollm2-135m", "openai/stub"]
    run = Path(summary["run"])
    assert json.loads((run / "summary.json").read_text())["models"] == summary["models"]
    page = (run / "report.html").read_text()
    assert "<th>local/smollm2-135m</th>" in page and "<th>openai/stub</th>" in page
    assert run_json(run)["config"]["model_urls"] == [None, stub.urls[0]]
