"""`consistency()` from Python on scripted models: the typed result, its run folder (as the CLI
makes it), inputs given as files or loaded, checks before any call, failed calls."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from verstehen.data.mcq import load_mcq
from verstehen.errors import CallFailed, UserError
from verstehen.methods.consistency.api import consistency, consistency_async
from verstehen.methods.consistency.breakdowns import (
    CCEntry,
    ConceptBreakdown,
    RelationBreakdown,
    YesNoBias,
)
from verstehen.methods.consistency.example import write_data
from verstehen.methods.consistency.knowledge import RELATIONS_14, load_knowledge
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.stats import Consistency
from verstehen.models.base import Capabilities
from verstehen.results import from_jsonable
from verstehen.testing.scripted import ScriptedModel

from conftest import SHARED_DATA, needs_shared

# the config keys of `verstehen consistency`'s run.json
CONFIG_KEYS = ["model", "questions", "kb", "limit", "base_url", "relations", "max_path_length",
               "template_style", "seed", "max_tokens", "answer_by"]
SUMMARY_KEYS = ["method", "consistency", "by_relation", "by_concept", "bias", "anchors", "facts",
                "positive_facts", "facts_unanswered", "mean_facts_per_anchor", "failed_calls",
                "concepts", "run", "relations_png", "bias_png", "seconds", "usage"]


@pytest.fixture
def data(tmp_path: Path) -> tuple[Path, Path]:
    """A three-question CSQA file and a four-edge knowledge base."""
    return write_data(tmp_path)


def folders(tmp_path: Path) -> dict:
    """The keyword arguments that keep a run's cache and folder inside the test."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def test_the_result_is_typed_and_is_the_run_folders_summary(tmp_path, data):
    questions, kb = data
    model = ScriptedModel("scripted/lp")
    result = consistency(model, questions=questions, kb=kb, resamples=50, **folders(tmp_path))
    assert isinstance(result, ConsistencyResult) and isinstance(result.consistency, Consistency)
    # scripted log-probability -len(continuation): every fact answered "no" (S_B 1/2), the
    # shortest choice wins the anchors: q3 right only (see test_consistency_procedure.py)
    assert (result.anchors, result.method, result.failed_calls) == (3, "likelihood", 0)
    assert result.consistency.s_b == 0.5 and result.consistency.s_a == pytest.approx(1 / 3)
    assert result.facts == 2 * result.positive_facts and result.facts_unanswered == 0
    assert all(isinstance(r, RelationBreakdown) and isinstance(r.with_, CCEntry)
               for r in result.by_relation.values())
    assert set(result.by_relation) <= set(RELATIONS_14)
    assert all(isinstance(c, ConceptBreakdown) for c in result.by_concept.values())
    assert isinstance(result.bias, YesNoBias) and result.bias.facts_with_combos == result.facts
    assert result.bias.majority.positive.rate == 0.0
    assert result.usage["scripted/lp"].calls == len(model.calls)

    run = result.run_dir
    assert run.parent == tmp_path / "runs"
    summary = json.loads((run / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict())) and list(summary) == SUMMARY_KEYS
    assert from_jsonable(ConsistencyResult, summary) == result
    assert summary["run"] == str(run)
    assert list(next(iter(summary["by_relation"].values()))) == ["background", "cc", "with",
                                                                 "without"]
    # the paper's per-concept selection needs a concept in the facts of 28 anchors: none of 3
    assert summary["by_concept"] == {}
    assert list(summary["consistency"])[-4:] == ["s_b_relations", "s_b_relations_low",
                                                 "s_b_relations_high", "relations"]
    info = json.loads((run / "run.json").read_text())
    assert info["command"] == "consistency" and list(info["config"]) == CONFIG_KEYS
    assert info["config"]["questions"] == str(questions) and info["config"]["kb"] == str(kb)
    assert info["config"]["relations"] == list(RELATIONS_14) and info["argv"] == []
    for png in (result.relations_png, result.bias_png):
        assert png.parent == run and png.read_bytes()[:4] == b"\x89PNG"


def test_loaded_inputs_give_the_same_numbers(tmp_path, data):
    questions, kb = data
    from_files = consistency(ScriptedModel(), questions=questions, kb=kb, limit=2,
                             relations="at location, UsedFor", resamples=20, **folders(tmp_path))
    loaded = consistency(ScriptedModel(), questions=load_mcq(questions),
                         kb=load_knowledge(kb, None), limit=2,
                         relations=["AtLocation", "used_for"], resamples=20, **folders(tmp_path))
    assert loaded.anchors == from_files.anchors == 2
    assert loaded.consistency == from_files.consistency
    assert loaded.by_relation == from_files.by_relation
    assert set(loaded.by_relation) <= {"AtLocation", "UsedFor"}
    config = json.loads((loaded.run_dir / "run.json").read_text())["config"]
    assert (config["questions"], config["kb"], config["limit"]) == (None, None, 2)
    assert config["relations"] == ["AtLocation", "UsedFor"]


@pytest.mark.parametrize(("kwargs", "needle"), [
    ({"limit": 0}, "limit"), ({"resamples": 0}, "resamples"),
    ({"relations": "IsA,Bogus"}, "Bogus"), ({"relations": []}, "no relations"),
    ({"relations": ["IsA", "has property"]}, "no question template for relation 'HasProperty'"),
    ({"question_style": "odd"}, "question_style"), ({"max_path_length": 0}, "max_path_length"),
    ({"max_tokens": 0}, "max_tokens"), ({"kb": "none.tsv"}, "none.tsv"),
    ({"model": "x/y"}, "x/y"), ({"max_attempts": 0}, "max_attempts")])
def test_bad_input_raises_before_any_call(tmp_path, data, kwargs, needle):
    questions, kb = data
    model = ScriptedModel()
    args = {"model": model, "questions": questions, "kb": kb, **folders(tmp_path), **kwargs}
    with pytest.raises(UserError, match=needle):
        consistency(args.pop("model"), **args)
    assert model.calls == [] and not (tmp_path / "runs").exists()


class GenerationOnly(ScriptedModel):
    """A model without log-probabilities."""

    capabilities = Capabilities(generate=True, logprobs=False)


def test_failed_calls_are_counted_and_the_anchor_left_out(tmp_path, data):
    questions, kb = data

    def fail_anchors(prompt: str, _attempt: int) -> Exception | None:
        return CallFailed("no") if "kennel" in prompt and "letter of" in prompt else None

    model = GenerationOnly("scripted/gen", script=fail_anchors, reply=lambda p: "Yes, (A)")
    result = consistency(model, questions=questions, kb=kb, resamples=20, **folders(tmp_path))
    assert result.method == "generation" and result.failed_calls == 1
    assert result.consistency.unanswered == 1 and result.consistency.n == 2
    assert result.bias.single is None


def test_async_twin_and_the_sync_one_inside_a_running_loop(tmp_path, data):
    questions, kb = data

    async def both() -> tuple[ConsistencyResult, ConsistencyResult]:
        first = await consistency_async(ScriptedModel(), questions=questions, kb=kb,
                                        resamples=20, **folders(tmp_path))
        # as in a notebook: the sync function called while an event loop runs
        return first, consistency(ScriptedModel(), questions=questions, kb=kb, resamples=20,
                                  **folders(tmp_path))

    first, second = asyncio.run(both())
    assert first.run_dir != second.run_dir and first.consistency == second.consistency
    assert second.usage["scripted/m"].cache_hits == second.usage["scripted/m"].calls > 0


def test_show_prints_the_tables_and_the_run_folder(tmp_path, data, capsys):
    questions, kb = data
    result = consistency(ScriptedModel(), questions=questions, kb=kb, resamples=20,
                         **folders(tmp_path))
    print(result.text())
    out = capsys.readouterr().out
    assert out.startswith(f"3 anchor questions, {result.facts} background facts "
                          f"({result.positive_facts} true), answered by majority-vote likelihood")
    assert "yes/no bias (paper Figure 6)" in out and "per concept (paper Figure 7)" in out
    assert out.endswith(f"\n\n{result.seconds} s; records and figures in {result.run_dir}\n")


CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
EDGES = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"
RELATIONS = ("AtLocation", "IsA", "UsedFor")


@pytest.mark.slow
@needs_shared("csqa/dev_rand_split.jsonl", "conceptnet/csqa_dev_edges_14rel.tsv")
def test_two_questions_on_the_embedded_model(tmp_path):
    result = consistency("local/smollm2-135m", questions=CSQA, kb=EDGES, limit=2,
                         relations=RELATIONS, resamples=50, **folders(tmp_path))
    assert (result.method, result.anchors, result.failed_calls) == ("likelihood", 2, 0)
    # every positive fact has a false twin; likelihood answers every fact and anchor
    assert result.facts == 2 * result.positive_facts > 0 and result.facts_unanswered == 0
    cc = result.consistency
    assert (cc.n, cc.unanswered, cc.no_background) == (2, 0, 0)
    assert cc.s_a in (0.0, 0.5, 1.0) and 0 <= cc.s_b <= 1 and cc.base_rate == cc.s_a
    assert (cc.cc is None) == (cc.s_a == 0.0)
    assert cc.cc is None or 0 < cc.cc <= 1
    assert set(result.by_relation) <= set(RELATIONS)
    bias = result.bias
    assert bias.majority.positive.n == bias.majority.negative.n == result.positive_facts
    assert bias.facts_with_combos == result.facts and bias.single is not None
    assert 0 <= bias.single.combo < 35 and bias.single.meta == bias.single.combo // 7
    # one call per distinct prompt of a fact (23), one per anchor question
    assert result.usage["local/smollm2-135m"].calls == 23 * result.facts + 2
    assert json.loads((result.run_dir / "summary.json").read_text()) == json.loads(
        json.dumps(result.to_dict()))
    info = json.loads((result.run_dir / "run.json").read_text())
    assert info["models"][0]["model"] == "local/smollm2-135m" and info["models"][0]["sha256"]
    assert info["config"]["relations"] == list(RELATIONS) and info["config"]["limit"] == 2
    for png in (result.relations_png, result.bias_png):
        assert png.read_bytes()[:4] == b"\x89PNG"
