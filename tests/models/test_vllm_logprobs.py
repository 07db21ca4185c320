"""Prompt log-probabilities from vLLM (recorded replies, served by a stub) and from the real
llama.cpp server (llama-cpp-python's, on the embedded model, a context without its BOS).

`data/vllm_completions.json` holds /v1/completions replies written from vLLM's documented
schema (`CompletionResponse`: each choice's `logprobs` echo and `prompt_logprobs`, null first,
then {token id: {logprob, rank, decoded_token}}; `prompt_token_ids` with `return_token_ids`)
and a /v1/models listing (`owned_by: vllm`).
"""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest

from verstehen.errors import CallFailed, UnsupportedCapability
from verstehen.models import get_model
from verstehen.models.local_scoring import score_continuations
from verstehen.models.openai_api import OpenAIModel, continuation_logprob
from verstehen.models.servers import find_bos, vllm_prompt_tokens
from verstehen.testing.stub_endpoints import StubEndpoints

RECORDED = json.loads((Path(__file__).parent / "data" / "vllm_completions.json").read_text())
PARIS, LYON = -0.41, -6.8 - 0.05


def choice(name: str) -> dict:
    """The first choice of a recorded reply (a copy)."""
    return copy.deepcopy(RECORDED[name]["choices"][0])


@pytest.mark.parametrize(("name", "prompt", "chars", "expected"), [
    ("llama_paris", "The capital of France is Paris", 6, PARIS),  # BOS added by the tokenizer
    ("llama_lyon", "The capital of France is Lyon", 5, LYON),  # its token named by id
    ("llama_paris_token_ids", "The capital of France is Paris", 6, PARIS),  # echo as ids
    ("qwen_older_vllm", "2 + 2 = 4", 2, -2.51),  # no BOS, no ids: the entry's first token
])
def test_recorded_prompt_logprobs_give_the_continuation(name, prompt, chars, expected):
    """Each recorded reply's prompt_logprobs yield the continuation's exact sum."""
    tokens, values = vllm_prompt_tokens(choice(name), prompt)
    assert "".join(tokens).endswith(prompt) and values[0] is None
    assert continuation_logprob(tokens, values, prompt, chars) == pytest.approx(expected)


def test_the_prompt_token_is_found_by_id_not_by_order():
    """`prompt_token_ids` names each position's own token even when an alternative comes
    first in its entry; without the ids the first entry is taken (vLLM puts the token first)."""
    lyon = choice("llama_lyon")
    _, values = vllm_prompt_tokens(lyon, "The capital of France is Lyon")
    assert values[6] == -6.8
    del lyon["prompt_token_ids"]
    _, values = vllm_prompt_tokens(lyon, "The capital of France is Lyon")
    assert values[6] == -0.41  # the rank-1 alternative: exactly why the ids are asked for


def test_unusable_prompt_logprobs_are_refused():
    """No text for a token (and an echo of token ids), or no logprob for it: CallFailed."""
    reply = choice("llama_paris_token_ids")
    del reply["prompt_logprobs"][3]["310"]["decoded_token"]
    with pytest.raises(CallFailed, match="no text for a prompt token"):
        vllm_prompt_tokens(reply, "The capital of France is Paris")
    reply = choice("llama_paris")
    reply["prompt_logprobs"][6]["3681"].pop("logprob")
    with pytest.raises(CallFailed, match="no logprob"):
        vllm_prompt_tokens(reply, "The capital of France is Paris")
    assert vllm_prompt_tokens({"logprobs": None}, "x") is None


def serve_recorded(variant: str = "", strip_prompt_logprobs: bool = False):
    """A stub route answering /v1/models and /v1/completions from the recorded replies."""
    async def route(i: int, method: str, path: str, payload: dict):
        if path.endswith("/models"):
            return 200, RECORDED["models"]
        if path.endswith("/completions"):
            name = "llama_paris" if payload["prompt"].endswith("Paris") else "llama_lyon"
            reply = copy.deepcopy(RECORDED[name + variant])
            if strip_prompt_logprobs:
                reply["choices"][0].pop("prompt_logprobs")
            return 200, reply
        return None

    return route


def scores(urls: list[str], kind: str | None = None) -> list[float]:
    """The model's scores of " Paris" and " Lyon" after the recorded context."""
    async def main() -> list[float]:
        model = OpenAIModel("meta-llama/Llama-2-7b-hf", base_url=urls, server_kind=kind,
                            timeout=5)
        try:
            return await model.logprobs("The capital of France is", [" Paris", " Lyon"])
        finally:
            await model.aclose()

    return asyncio.run(main())


def test_vllm_is_detected_and_asked_for_prompt_logprobs():
    """auto: one /v1/models look says vLLM; each score is one completion asking for
    prompt_logprobs with echo, both spread over the replicas."""
    with StubEndpoints(2, route=serve_recorded()) as stubs:
        got = scores(stubs.urls)
        bodies = [b for i in range(2) for b in stubs.bodies[i]]
    assert got == pytest.approx([PARIS, LYON])
    completions = [b for b in bodies if "prompt" in b]
    assert len(bodies) - len(completions) == 1  # the /v1/models look, once
    assert len(completions) == 2 and all(
        (b["echo"], b["logprobs"], b["max_tokens"], b["prompt_logprobs"], b["temperature"])
        == (True, 1, 1, 1, 0.0) for b in completions)
    assert {b["prompt"] for b in completions} == {"The capital of France is Paris",
                                                 "The capital of France is Lyon"}


def test_token_id_echoes_need_the_vllm_kind():
    """A server started with --return-tokens-as-token-ids echoes ids: only prompt_logprobs
    (asked for with --server-kind vllm) give the scores; the plain echo cannot."""
    with StubEndpoints(1, route=serve_recorded("_token_ids")) as stubs:
        assert scores(stubs.urls, "vllm")[0] == pytest.approx(PARIS)
        with pytest.raises(CallFailed):
            scores(stubs.urls, "openai")
        assert all("prompt_logprobs" not in b for b in stubs.bodies[0][-1:])


def test_a_reply_without_prompt_logprobs_falls_back_to_the_echo():
    """An older server that ignores prompt_logprobs still scores from its echo."""
    with StubEndpoints(1, route=serve_recorded(strip_prompt_logprobs=True)) as stubs:
        assert scores(stubs.urls, "vllm") == pytest.approx([PARIS, -6.85])


def llamacpp_echo(bos: str, adds_bos: bool):
    """How llama-cpp-python's server echoes a prompt (tokens are words here): the BOS is
    dropped from the echo; without one first, the echo loses its last (generated) token."""
    async def complete(prompt: str) -> tuple[list[str], int]:
        words = prompt.replace(bos, f"{bos} ").split()
        tokens = ([bos] if adds_bos else []) + words
        starts_with_bos = tokens[0] == bos
        echoed = [t for t in tokens if t != bos] + ["gen"]
        return (echoed if starts_with_bos else echoed[:-1]), len(tokens)

    return complete


@pytest.mark.parametrize(("bos", "adds_bos", "expected"), [
    ("<|im_start|>", False, "<|im_start|>"),  # SmolLM2: the BOS must be put first
    ("<s>", True, ""),  # Llama 2: the server puts it there itself
    ("<|endoftext|>", False, "<|endoftext|>"),  # Qwen
])
def test_bos_probe_finds_what_the_server_needs(bos, adds_bos, expected):
    """The probe names the BOS to put first, or none when the server adds it."""
    assert asyncio.run(find_bos(llamacpp_echo(bos, adds_bos))) == expected


def test_bos_probe_gives_up_in_one_line():
    """A model with a BOS of no known spelling: UnsupportedCapability saying what to do."""
    with pytest.raises(UnsupportedCapability, match="--server-kind openai"):
        asyncio.run(find_bos(llamacpp_echo("<unknown>", False)))


CONTEXT = "The capital of France is"  # no BOS: llama.cpp's echo is aligned only after one


@pytest.mark.slow
def test_llamacpp_server_scores_a_context_without_its_bos(llama_server):
    """Detected as llama.cpp, the server gets the BOS it needs put first (found by probing),
    and its scores equal the in-process ones of the context with the BOS; as a plain
    `openai` server (no BOS) the same call gives other, misaligned numbers."""
    continuations = [" Paris", " Berlin"]

    async def remote(kind: str | None) -> tuple[list[float], OpenAIModel]:
        model = OpenAIModel("smollm2", base_url=llama_server.url, timeout=60, server_kind=kind)
        try:
            return await model.logprobs(CONTEXT, continuations), model
        finally:
            await model.aclose()

    detected, model = asyncio.run(remote(None))
    plain, _ = asyncio.run(remote("openai"))
    local_model = get_model("local/smollm2-135m")
    try:
        local = score_continuations(local_model._model(), "<|im_start|>" + CONTEXT,
                                    continuations)
    finally:
        asyncio.run(local_model.aclose())
    assert (model.server_kind, model._bos) == ("llamacpp", "<|im_start|>")
    assert detected == pytest.approx(local, abs=0.05)
    assert abs(plain[0] - local[0]) > 0.5
