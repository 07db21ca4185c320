"""Batched likelihoods: the prefix tree's groups, and scores against the one-at-a-time path."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.errors import UserError
from verstehen.methods.consistency.procedure import combo_contexts
from verstehen.models import get_model
from verstehen.models.local_batch import _groups, _Tree, encode_pair


@given(st.lists(st.lists(st.integers(0, 3), min_size=1, max_size=12), min_size=1, max_size=40),
       st.integers(12, 40), st.integers(1, 6))
@settings(max_examples=200, deadline=None)
def test_groups_hold_whole_paths_in_order(paths, max_tokens, max_sequences):
    """Every leaf's whole path lies in its group, parents before children; a node belongs to
    exactly the group's sequences whose path passes through it; groups keep to their limits."""
    tree = _Tree()
    for path in paths:
        tree.insert(path)
    leaves = tree.leaves_depth_first()
    assert sorted(leaves) == sorted(n for n, node in enumerate(tree.nodes) if not node.children)
    groups = _groups(tree, max_tokens, max_sequences)
    seen_leaves = []
    for group in groups:
        assert len(group.nodes) == len(set(group.nodes)) <= max_tokens
        position = {node: i for i, node in enumerate(group.nodes)}
        group_leaves = [n for n in group.nodes if not tree.nodes[n].children]
        assert 1 <= len(group_leaves) <= max_sequences
        for node in group.nodes:
            parent = tree.nodes[node].parent
            assert parent < 0 or position[parent] < position[node]
        for node in group.nodes:
            through = {i for i, leaf in enumerate(group_leaves) if node in tree.path(leaf)}
            assert set(group.sequences[node]) == through
        seen_leaves += group_leaves
    assert seen_leaves == leaves  # every leaf once, in depth-first order


def test_distinct_prefixes_are_the_nodes():
    """The tree has one node per distinct prefix of the paths."""
    rng = random.Random(3)
    paths = [[rng.randrange(4) for _ in range(rng.randrange(1, 9))] for _ in range(60)]
    tree = _Tree()
    for path in paths:
        tree.insert(path)
    prefixes = {tuple(p[: i + 1]) for p in paths for i in range(len(p))}
    assert len(tree.nodes) == len(prefixes)


@pytest.fixture(scope="module")
def model():
    """One embedded model for the module."""
    m = get_model("local/smollm2-135m")
    yield m
    asyncio.run(m.aclose())


def consistency_requests() -> list[tuple[str, list[str]]]:
    """Conceptual consistency's prompts for three background facts, and two longer
    continuations of the imagination kind."""
    requests = []
    for question in ("Is a dog a kind of animal?", "Is a kettle used for boiling water?",
                     "Is snow hot?"):
        requests += list(combo_contexts(question).items())
    requests.append(("Question: What does a zorbit measure?\nAnswer:",
                     [" The speed of light in water", " Temperature", " A kind of fish"]))
    return requests


@pytest.mark.slow
def test_batched_scores_match_one_at_a_time(model):
    """Every score of a real batch equals the one-at-a-time score of the same weights within
    batch-shape rounding (measured: at most 0.014 nats), and a batch repeats exactly."""
    requests = consistency_requests()
    batched = asyncio.run(model.logprobs_batch(requests))
    single = [asyncio.run(model.logprobs(c, labels)) for c, labels in requests]
    assert all(len(b) == len(s) == len(labels)
               for b, s, (_, labels) in zip(batched, single, requests, strict=True))
    worst = max(abs(x - y) for b, s in zip(batched, single, strict=True)
                for x, y in zip(b, s, strict=True))
    assert worst < 0.05
    assert asyncio.run(model.logprobs_batch(requests)) == batched


@pytest.mark.slow
def test_a_shared_template_is_evaluated_once(model):
    """One decode evaluates each distinct token prefix of the batch once (a path is the context
    and a continuation but its last token): far fewer tokens than the prompts hold."""
    requests = consistency_requests()[:46]  # two facts' 23 prompts each: one group
    llm = model._scoring_model()
    prefixes, total = set(), 0
    for context, labels in requests:
        for label in labels:
            context_tokens, label_tokens = encode_pair(llm, context, label)
            path = context_tokens + label_tokens[:-1]
            prefixes |= {tuple(path[: i + 1]) for i in range(len(path))}
        total += len(context_tokens)
    scorer = model._batch_scorer()
    evaluated = []
    real = scorer._ctx.decode
    scorer._ctx.decode = lambda batch: evaluated.append(batch.batch.n_tokens) or real(batch)
    try:
        asyncio.run(model.logprobs_batch(requests))
    finally:
        scorer._ctx.decode = real
    assert evaluated == [len(prefixes)]
    assert len(prefixes) < 0.6 * total


@pytest.mark.slow
def test_long_requests_are_scored_alone_and_too_long_ones_fail_alone(model):
    """A request longer than a group is scored on the one-at-a-time path; one longer than the
    model's context gets its own error while the rest of the batch is scored."""
    long_context = "The history of the town, told at length. " * 120  # about 1,200 tokens
    endless = "word " * 5000
    requests = [("The sky is", [" blue"]), (long_context, [" The end"]), (endless, [" x"])]
    out = asyncio.run(model.logprobs_batch(requests))
    assert out[0] == pytest.approx(asyncio.run(model.logprobs("The sky is", [" blue"])),
                                   abs=0.05)
    assert out[1] == pytest.approx(asyncio.run(model.logprobs(long_context, [" The end"])),
                                   abs=1e-9)
    assert isinstance(out[2], UserError) and "exceed" in str(out[2])
