"""Conceptual consistency's procedure with scripted models (the embedded model's run is in
test_consistency_e2e.py): which prompts are asked, how often, and what the records say."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from verstehen.engine.session import RunSettings
from verstehen.methods.consistency.procedure import Anchor, ConsistencyPlan, combo_contexts
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.run import load_anchors, run_consistency
from verstehen.methods.consistency.text import summary_text
from verstehen.models.base import Capabilities
from verstehen.testing.scripted import ScriptedModel

KB = """relation\tstart\tend
UsedFor\tbook\tread
AtLocation\tbook\tlibrary
AtLocation\tdog\tkennel
IsA\tdog\tanimal
"""


def csqa(tmp_path: Path) -> Path:
    """Three questions: two mention book and library (sharing a fact), one a dog."""
    rows = [("q1", "Where would you read a book?", ["library", "ocean", "sky"], "A"),
            ("q2", "Where is a book kept in a library?", ["shelf", "library", "cloud"], "B"),
            ("q3", "What animal lives in a kennel?", ["dog", "fish", "bird"], "A")]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps({
        "id": i, "answerKey": key, "question": {"stem": stem, "choices": [
            {"label": "ABC"[k], "text": t} for k, t in enumerate(choices)]}}) + "\n"
        for i, stem, choices, key in rows))
    return path


def run(tmp_path: Path, model: ScriptedModel
        ) -> tuple[list[Anchor], list[dict], ConsistencyResult]:
    """Build the anchors (as the entry point does), run the entry point, read the records."""
    (tmp_path / "kb.tsv").write_text(KB)
    questions, plan = csqa(tmp_path), ConsistencyPlan()
    anchors, _ = load_anchors(questions, tmp_path / "kb.tsv", plan)
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    result = asyncio.run(run_consistency(model, questions, tmp_path / "kb.tsv", plan,
                                         resamples=50, settings=settings))
    records = [json.loads(line) for line in
               (result.run_dir / "records.jsonl").read_text().splitlines()]
    return anchors, records, result


def test_shared_facts_are_asked_once_by_all_35_combos(tmp_path):
    model = ScriptedModel("scripted/lp")
    anchors, records, _ = run(tmp_path, model)
    book = "AtLocation|book|library|+"
    assert book in [f.key for f in anchors[0].facts] and book in [f.key for f in anchors[1].facts]
    facts = [r for r in records if r["kind"] == "fact"]
    assert len(facts) == len({f.key for a in anchors for f in a.facts})  # each fact once
    assert all(f["positive"] == f["key"].endswith("+") for f in facts)
    # 5 meta-prompts x 7 label pairs: the first two name no labels (1 prompt each), the other
    # three name them (7 prompts each) -> 23 prompts per fact, plus one per anchor question
    assert len(combo_contexts("Is a dog an animal")) == 23
    assert len(model.calls) == 23 * len(facts) + len(anchors)
    assert all(len(f["combos"]) == 35 for f in facts)


def test_scripted_likelihoods_give_hand_computed_scores(tmp_path):
    # scripted log-probability = -len(continuation): " No" (-3) ties " On" (-3) for the top, and
    # " No" comes first (combo 0) -> every fact is answered "no": positives wrong, negatives right,
    # S_B = (0 + 1) / 2 for every anchor. Anchors: the shortest choice wins (" sky", " shelf",
    # " dog"; ties go to the first) -> q1 wrong, q2 wrong, q3 right: S_A = 1/3.
    _, records, result = run(tmp_path, ScriptedModel("scripted/lp"))
    assert {r["said_yes"] for r in records if r["kind"] == "fact"} == {False}
    anchors = {r["id"]: r for r in records if r["kind"] == "anchor"}
    assert [anchors[q]["chosen"] for q in ("q1", "q2", "q3")] == ["C", "A", "A"]
    cc = result.consistency
    assert cc.s_b == 0.5 and abs(cc.s_a - 1 / 3) < 1e-12
    assert abs(cc.cc - 1 / 3) < 1e-12  # all S_B tied: AP = the share of correct anchors
    assert result.bias.majority.positive.rate == 0.0
    assert result.bias.majority.negative.rate == 1.0
    assert result.method == "likelihood" and result.failed_calls == 0


class GenerationOnly(ScriptedModel):
    """A model without log-probabilities that says yes to everything."""

    capabilities = Capabilities(generate=True, logprobs=False)


def test_generation_fallback_is_marked_and_votes_over_meta_prompts(tmp_path):
    model = GenerationOnly("scripted/gen", reply=lambda p: "Yes." if "Question:" not in p
                           or "Answer:" not in p else "Answer: A")
    _, records, result = run(tmp_path, model)
    facts = [r for r in records if r["kind"] == "fact"]
    assert {r["method"] for r in records if r["kind"] in ("fact", "anchor")} == {"generation"}
    assert all(f["said_yes"] is True and f["combos"] is None and len(f["votes"]) == 5
               for f in facts)
    assert result.method == "generation"
    assert result.bias.majority.positive.rate == 1.0
    assert result.bias.single is None and result.bias.facts_with_combos == 0
    assert "GENERATION" in summary_text(result)
