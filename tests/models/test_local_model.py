"""The embedded model, for real: generation, exact logprobs, determinism, sampling."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.models import GenerateParams, get_model, user
from verstehen.models.local import generation_weights, load_llama, scoring_weights
from verstehen.models.local_batch import encode_pair

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model():
    """One loaded embedded model for the module."""
    m = get_model("local/smollm2-135m")
    yield m
    asyncio.run(m.aclose())


def run(coro):
    """Run a coroutine to completion."""
    return asyncio.run(coro)


def test_generates_an_answer(model):
    """A chat answer comes back with text, a finish reason and token counts."""
    out = run(model.generate(user("Name a prime number."), GenerateParams(max_tokens=24)))
    assert out.text.strip()
    assert out.finish_reason in {"stop", "length"}
    assert out.usage.prompt_tokens > 5 and 0 < out.usage.completion_tokens <= 24


def test_temperature_zero_is_deterministic_across_loads(model):
    """Greedy decoding gives the same text twice, and from a second, fresh instance."""
    prompt, params = user("What is the capital of France?"), GenerateParams(max_tokens=24)
    first = run(model.generate(prompt, params)).text
    again = run(model.generate(prompt, params)).text
    other = get_model("local/smollm2-135m")
    try:
        fresh = run(other.generate(prompt, params)).text
    finally:
        run(other.aclose())
    assert first == again == fresh


def test_paris_beats_berlin(model):
    """log P(" Paris" | "The capital of France is") exceeds " Berlin" by a wide margin."""
    paris, berlin = run(model.logprobs("The capital of France is", [" Paris", " Berlin"]))
    assert paris < 0 and berlin < 0
    assert paris > berlin + 2


def test_logprobs_match_llama_cpp_full_logits(model, smol_path):
    """Our targeted-logits path equals llama-cpp-python's own logits_all evaluation of the
    weights it scores with."""
    context, continuations = "Question: Is ice cold? Answer:", [" yes", " no", " maybe so"]
    ours = run(model.logprobs(context, continuations))
    reference = load_llama(scoring_weights(smol_path, model.identity()["sha256"]), n_ctx=512)
    reference._logits_all = True  # keep every position's logits in `scores`
    reference.context_params.logits_all = True
    expected = []
    for continuation in continuations:
        ctx_tokens, cont_tokens = encode_pair(reference, context, continuation)
        reference.reset()
        reference.eval(ctx_tokens + cont_tokens)
        scores = np.asarray(reference.scores[: len(ctx_tokens) + len(cont_tokens)], np.float64)
        top = scores.max(1, keepdims=True)
        logsoft = scores - top - np.log(np.exp(scores - top).sum(1, keepdims=True))
        start = len(ctx_tokens) - 1
        expected.append(sum(logsoft[start + i, t] for i, t in enumerate(cont_tokens)))
    reference.close()
    assert ours == pytest.approx(expected, abs=2e-3)


def test_prefix_reuse_does_not_change_scores(model):
    """Scores are the same in any order and after a generation in between."""
    context, conts = "The sky is", [" blue", " green", " blue and wide"]
    forward = run(model.logprobs(context, conts))
    run(model.generate(user("Say hi."), GenerateParams(max_tokens=8)))
    backward = run(model.logprobs(context, conts[::-1]))[::-1]
    assert forward == pytest.approx(backward, abs=1e-4)


def test_trailing_space_moves_to_the_continuation(model):
    """'France is ' + 'Paris' scores like 'France is' + ' Paris' (lm-evaluation-harness)."""
    a = run(model.logprobs("The capital of France is ", ["Paris"]))[0]
    b = run(model.logprobs("The capital of France is", [" Paris"]))[0]
    assert a == pytest.approx(b, abs=1e-6)


def test_samples_differ_by_index_and_replay_from_cache(tmp_path):
    """At temperature 1 a new sample index draws a new answer; the same index replays."""
    params = GenerateParams(temperature=1.0, max_tokens=20, seed=7)
    prompt = user("Write one unusual word.")

    async def draw(cache_file, indices):
        model = get_model("local/smollm2-135m")
        runner = Runner(Cache(cache_file))
        try:
            results = [await runner.generate(model, prompt, params, sample_index=i)
                       for i in indices]
        finally:
            await model.aclose()
        return [r.value.text for r in results], [r.cached for r in results]

    texts, cached = run(draw(tmp_path / "a.sqlite", [0, 1, 2, 0]))
    assert cached == [False, False, False, True]
    assert len(set(texts[:3])) >= 2
    assert texts[3] == texts[0]
    fresh_texts, _ = run(draw(tmp_path / "b.sqlite", [0, 1, 2]))
    assert fresh_texts == texts[:3]  # seeds derived from (seed, index) reproduce samples


def test_chat_text_is_the_prompt_generation_sees(model):
    """The rendered chat template is ChatML (SmolLM2's), open for the assistant's turn, and
    its token count is the prompt count llama.cpp reports for the same chat generation."""
    messages = user("Answer the following question.\nWhat is a zorb?")
    text = run(model.chat_text(messages))
    assert text.startswith("<|im_start|>") and text.endswith("<|im_start|>assistant\n")
    assert "<|im_start|>user\nAnswer the following question.\nWhat is a zorb?<|im_end|>" in text
    out = run(model.generate(messages, GenerateParams(max_tokens=1)))
    llm = model._model()
    tokens = llm.tokenize(text.encode(), add_bos=bool(llm._model.add_bos_token()), special=True)
    assert len(tokens) == out.usage.prompt_tokens


def test_one_token_labels_share_one_evaluation(model):
    """Fourteen one-token labels after a fresh context cost one decode of the context (not one
    per label), and score what the one-at-a-time path scores; a longer label still works."""
    from verstehen.models.local_scoring import score_continuation

    llm = model._scoring_model()
    context = "Answer this question as 'Yes' or 'No'. Question: Are clothes used for wearing?"
    labels = [" Yes", " No", " True", " False", " Right", " Wrong", " Correct", " Incorrect",
              " Positive", " Negative", " Pass", " Fail", " On", " Off", " Yes indeed"]
    one = [c for c in labels if len(encode_pair(llm, context, c)[1]) == 1]
    assert len(one) >= 12
    decodes = []
    real_decode = llm._ctx.decode
    llm._ctx.decode = lambda batch: decodes.append(batch.batch.n_tokens) or real_decode(batch)
    try:
        fresh = context.replace("clothes", "boots")  # nothing of it after "Are" is cached
        fast = run(model.logprobs(fresh, one))
    finally:
        llm._ctx.decode = real_decode
    assert len(decodes) == 1  # the context once, then every label read from its logits
    slow = [score_continuation(llm, fresh, c) for c in one]
    assert fast == pytest.approx(slow, abs=2e-3)
    mixed = run(model.logprobs(fresh, labels))
    assert [mixed[labels.index(c)] for c in one] == pytest.approx(fast, abs=2e-3)
    assert mixed[-1] < mixed[0]  # " Yes indeed" is " Yes" and then more


def test_scoring_weights_are_the_shipped_weights_exactly(model, smol_path):
    """Every tensor of the f32 scoring copy equals the shipped tensor dequantized by the gguf
    package's own numpy code (an independent reader), bit for bit; the copy is made once."""
    import gguf  # the test extra's independent GGUF reader
    copy = scoring_weights(smol_path, model.identity()["sha256"])
    made = copy.stat().st_mtime_ns
    assert scoring_weights(smol_path, model.identity()["sha256"]) == copy
    assert copy.stat().st_mtime_ns == made
    shipped = gguf.GGUFReader(str(smol_path)).tensors
    converted = {t.name: t for t in gguf.GGUFReader(str(copy)).tensors}
    assert len(shipped) == len(converted) > 100
    quantized = 0
    for tensor in shipped:
        expected = gguf.quants.dequantize(tensor.data, tensor.tensor_type).reshape(-1)
        got = np.asarray(converted[tensor.name].data).reshape(-1)
        assert converted[tensor.name].tensor_type == gguf.GGMLQuantizationType.F32
        assert np.array_equal(expected, got), tensor.name
        quantized += tensor.tensor_type != gguf.GGMLQuantizationType.F32
    assert quantized > 100


def test_generation_weights_are_the_shipped_weights_rounded_to_bf16(model, smol_path):
    """Every quantized tensor of the bf16 generation copy is the shipped tensor, dequantized by
    the gguf package, rounded to the nearest bf16 (ties to even, computed here on the bits);
    the f32 tensors (norms) are kept as they are; the copy is made once."""
    import gguf
    copy = generation_weights(smol_path, model.identity()["sha256"])
    made = copy.stat().st_mtime_ns
    assert generation_weights(smol_path, model.identity()["sha256"]) == copy
    assert copy.stat().st_mtime_ns == made
    converted = {t.name: t for t in gguf.GGUFReader(str(copy)).tensors}
    rounded = 0
    for tensor in gguf.GGUFReader(str(smol_path)).tensors:
        expected = gguf.quants.dequantize(tensor.data, tensor.tensor_type).reshape(-1)
        got = converted[tensor.name]
        if tensor.tensor_type == gguf.GGMLQuantizationType.F32:
            assert np.array_equal(np.asarray(got.data).reshape(-1), expected), tensor.name
            continue
        assert got.tensor_type == gguf.GGMLQuantizationType.BF16, tensor.name
        bits = expected.astype(np.float32).view(np.uint32).astype(np.uint64)
        nearest = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        assert np.array_equal(np.asarray(got.data).view(np.uint16).reshape(-1), nearest), \
            tensor.name
        widened = (nearest.astype(np.uint32) << 16).view(np.float32)
        assert np.all(np.abs(widened - expected) <= np.abs(expected) * 2.0**-8)
        rounded += 1
    assert rounded > 100
