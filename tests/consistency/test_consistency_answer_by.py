"""How `consistency` answers (issue 30 item 4): on a real HTTP server without prompt
log-probabilities it falls back to generation for the whole run, said in one line; on a server
with them it keeps the paper's likelihoods; `--answer-by likelihood` refuses the first before a
run folder is made, `--answer-by generation` forces generation on a model that has them, and
the setting is in run.json (so a resume must keep it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.methods.consistency.api import consistency
from verstehen.models.base import Capabilities, Completion, GenerateParams, Message
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints, prompt_of

from conftest import cli_error

KB = "relation\tstart\tend\nUsedFor\tbook\tread\nAtLocation\tbook\tlibrary\n" \
     "AtLocation\tdog\tkennel\nIsA\tdog\tanimal\n"
FALLBACK = "gives no prompt log-probabilities: answering by generation (not the paper's method)"


def write_data(tmp_path: Path) -> list[str]:
    """Two CSQA questions (the right answer A in both) and four edges among their concepts:
    the data flags of `verstehen consistency`."""
    rows = [("q1", "What animal lives in a kennel?", ["dog", "fish", "bird"]),
            ("q2", "Where would you read a book?", ["library", "ocean", "sky"])]
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps({
        "id": i, "answerKey": "A", "question": {"stem": stem, "choices": [
            {"label": "ABC"[k], "text": t} for k, t in enumerate(choices)]}}) + "\n"
        for i, stem, choices in rows))
    (tmp_path / "kb.tsv").write_text(KB)
    return ["--questions", str(questions), "--kb", str(tmp_path / "kb.tsv"),
            "--resamples", "20", "--no-progress"]


async def says_yes(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
    """Chats answered "Yes." (a fact) or "Answer: A" (an anchor question, which asks for a
    letter); every other path as the plain stub answers it (404: no /completions)."""
    if not path.endswith("/chat/completions"):
        return None
    text = "Answer: A" if "letter of" in prompt_of(payload) else "Yes."
    return 200, {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": text}}],
                 "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


async def echoes_logprobs(i: int, method: str, path: str, payload: dict
                          ) -> tuple[int, dict] | None:
    """A server with prompt log-probabilities in the OpenAI form: /completions echoes the
    prompt word by word (each word with its leading spaces), -1 for each after the first."""
    if not path.endswith("/completions") or path.endswith("/chat/completions"):
        return None
    tokens = re.findall(r"\s*\S+|\s+", payload["prompt"])
    return 200, {"id": "x", "object": "text_completion", "created": 0, "model": "m",
                 "choices": [{"index": 0, "text": payload["prompt"], "finish_reason": "length",
                              "logprobs": {"tokens": tokens,
                                           "token_logprobs": [None] + [-1.0] * (len(tokens) - 1)}}],
                 "usage": {"prompt_tokens": len(tokens), "completion_tokens": 0,
                           "total_tokens": len(tokens)}}


def records(run: Path) -> list[dict]:
    """A run folder's fact and anchor records."""
    return [r for r in map(json.loads, (run / "records.jsonl").read_text().splitlines())
            if r["kind"] in ("fact", "anchor")]


def split_requests(stub: StubEndpoints) -> tuple[list[dict], list[dict]]:
    """The /completions and the chat requests the stub received (by their bodies)."""
    bodies = stub.bodies[0]
    return [b for b in bodies if "prompt" in b], [b for b in bodies if "messages" in b]


@pytest.mark.parametrize("kind", [[], ["--server-kind", "openai"]], ids=["auto", "openai"])
def test_a_server_without_prompt_logprobs_is_answered_by_generation(cli, tmp_path, kind):
    """One probe on /completions (refused with 404), then every fact and anchor by a chat:
    the records, the summary and the output all say generation, and one stderr line says
    why. The scores are the hand-computed ones of a model that says yes to every fact and A
    to every question: S_B = (1 on the true facts + 0 on the false twins) / 2 = 0.5, S_A = 1."""
    data = write_data(tmp_path)
    with StubEndpoints(1, route=says_yes) as stub:
        done = cli(["consistency", "--model", "openai/m", "--base-url", stub.urls[0], *data,
                    *kind, "--json"])
        probes, chats = split_requests(stub)
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if FALLBACK in line] == [
        f"verstehen: {stub.urls[0]} {FALLBACK}"]
    summary = json.loads(done.stdout)
    run = Path(summary["run"])
    answered = records(run)
    facts = [r for r in answered if r["kind"] == "fact"]
    assert {r["method"] for r in answered} == {"generation"} and summary["method"] == "generation"
    assert all(f["said_yes"] is True and len(f["votes"]) == 5 for f in facts)
    assert len(probes) == 1 and len(chats) == 5 * len(facts) + 2  # 5 meta-prompts a fact
    assert (summary["consistency"]["s_b"], summary["consistency"]["s_a"]) == (0.5, 1.0)
    assert json.loads((run / "run.json").read_text())["config"]["answer_by"] == "auto"


def test_the_printed_result_says_generation(cli, tmp_path):
    """The table form (not --json) names the method in capitals, as the README says."""
    data = write_data(tmp_path)
    with StubEndpoints(1, route=says_yes) as stub:
        done = cli(["consistency", "--model", "openai/m", "--base-url", stub.urls[0], *data])
    assert done.returncode == 0, done.stderr
    assert "answered by GENERATION" in done.stdout


def test_a_server_with_prompt_logprobs_keeps_the_papers_method(cli, tmp_path):
    """auto on a server that echoes prompt log-probabilities: no chat at all, no fallback
    line, every record by likelihood."""
    data = write_data(tmp_path)
    with StubEndpoints(1, route=echoes_logprobs) as stub:
        done = cli(["consistency", "--model", "openai/m", "--base-url", stub.urls[0], *data,
                    "--json"])
        probes, chats = split_requests(stub)
    assert done.returncode == 0, done.stderr
    assert FALLBACK not in done.stderr and chats == [] and probes
    summary = json.loads(done.stdout)
    assert {r["method"] for r in records(Path(summary["run"]))} == {"likelihood"}
    assert summary["method"] == "likelihood" and summary["failed_calls"] == 0


def test_likelihood_on_a_server_without_them_is_refused_before_a_run_folder(cli, tmp_path):
    """`--answer-by likelihood`: exit 2, the error one line (after the line counting the
    facts) naming the flag that would answer by generation, no run folder and no chat sent."""
    data = write_data(tmp_path)
    with StubEndpoints(1, route=says_yes) as stub:
        done = cli(["consistency", "--model", "openai/m", "--base-url", stub.urls[0], *data,
                    "--answer-by", "likelihood"])
        _, chats = split_requests(stub)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    counted, error = done.stderr.strip().splitlines()
    assert counted.startswith("2 questions, 4 knowledge-base edges")
    assert error.startswith(f"verstehen: error: {stub.urls[0]} gave no prompt log-probabilities")
    assert "--answer-by generation" in error  # the old text named a flag that did not exist
    assert chats == [] and not (tmp_path / "runs").exists()
    cli_error(cli, ["consistency", *data, "--answer-by", "sometimes"], "--answer-by")


class LikelihoodOnly(ScriptedModel):
    """A scripted model with exact log-probabilities whose replies must never be asked for."""

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """Refused: this model is to be scored."""
        raise AssertionError("generate was called")


class CountsScores(ScriptedModel):
    """A scripted model that says yes, counting its likelihood calls apart."""

    def __init__(self, name: str) -> None:
        super().__init__(name, reply=lambda p: "Answer: A" if "letter of" in p else "Yes.")
        self.scored = 0

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """Counted, then the scripted scores."""
        self.scored += 1
        return await super().logprobs(context, continuations)


def test_generation_is_forced_on_a_model_with_logprobs_and_kept_on_resume(tmp_path, capsys):
    """answer_by="generation": no likelihood call, every record by generation, and no
    fallback line (it was asked for); run.json keeps the setting, so resuming the run with
    another one is refused in one line and with the same one goes on."""
    args = write_data(tmp_path)
    files = {"questions": args[1], "kb": args[3], "runs_dir": tmp_path / "runs",
             "cache": tmp_path / "calls.sqlite", "resamples": 20}
    model = CountsScores("scripted/both")
    result = consistency(model, answer_by="generation", **files)
    assert model.scored == 0 and result.method == "generation"
    assert {r["method"] for r in records(result.run_dir)} == {"generation"}
    assert FALLBACK not in capsys.readouterr().err
    config = json.loads((result.run_dir / "run.json").read_text())["config"]
    assert config["answer_by"] == "generation"
    with pytest.raises(UserError, match="answer_by = 'generation', not 'auto'"):
        consistency(model, answer_by="auto", resume=result.run_dir, **files)
    again = consistency(model, answer_by="generation", resume=result.run_dir, **files)
    assert again.run_dir == result.run_dir and model.scored == 0
    assert again.usage["scripted/both"].cache_hits == again.usage["scripted/both"].calls > 0


class NoScores(ScriptedModel):
    """A scripted model without log-probabilities."""

    capabilities = Capabilities(generate=True, logprobs=False)


def test_likelihood_keeps_a_model_that_has_them_and_refuses_one_without(tmp_path):
    """answer_by="likelihood" on a model with log-probabilities never generates; on one
    without them it is refused before any call or run folder; a value not in the list too."""
    args = write_data(tmp_path)
    files = {"questions": args[1], "kb": args[3], "runs_dir": tmp_path / "runs",
             "cache": tmp_path / "calls.sqlite", "resamples": 20}
    assert consistency(LikelihoodOnly("scripted/lp"), answer_by="likelihood",
                       **files).method == "likelihood"
    runs = sorted((tmp_path / "runs").iterdir())

    mute = NoScores("scripted/gen")
    with pytest.raises(UserError, match=r"scripted/gen gives no exact log-probabilities.*"
                                        r"answer_by='generation'"):  # a Python caller's words
        consistency(mute, answer_by="likelihood", **files)
    with pytest.raises(UserError, match="answer_by must be one of auto, likelihood, generation"):
        consistency(mute, answer_by="sometimes", **files)
    assert mute.calls == [] and sorted((tmp_path / "runs").iterdir()) == runs
