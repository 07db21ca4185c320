"""Shared imagination from Python on scripted models: typed results, run folders as the CLI
makes them, and bad input refused before any model call."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.imagination.api import (
    imagine_analyze,
    imagine_answer,
    imagine_answer_async,
    imagine_generate,
    imagine_matrix,
)
from verstehen.methods.imagination.example import qm
from verstehen.methods.imagination.results import (
    ImagineAnalyzeResult,
    ImagineAnswerResult,
    ImagineGenerateResult,
    ImagineMatrixResult,
    Pooling,
)
from verstehen.results import from_jsonable
from verstehen.testing.scripted import ScriptedModel

GENERATE_CONFIG = ["model", "base_url", "kinds", "content", "topics", "per_topic", "tries",
                   "temperature", "max_tokens", "seed"]
ANSWER_CONFIG = ["questions", "models", "judge", "method", "shuffle", "choice_e", "variant",
                 "fictionality", "max_tokens", "seed", "question_ids"]


def paths(tmp_path: Path) -> dict[str, Path]:
    """A private runs folder and cache."""
    return {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite"}


def info(run: Path) -> dict:
    """run.json of a run folder."""
    return json.loads((run / "run.json").read_text())


@pytest.fixture
def generated(tmp_path: Path) -> ImagineGenerateResult:
    """Two direct questions on each of two topics, from a scripted question model."""
    return imagine_generate(qm(), topics="physics,law", per_topic=2, kinds="direct",
                            **paths(tmp_path))


def test_generate_returns_typed_counts_and_the_clis_run_folder(generated: ImagineGenerateResult):
    assert isinstance(generated, ImagineGenerateResult)
    assert generated.qm == "scripted/qm" and generated.kept == 4
    dq = generated.by_type["DQ"]
    assert (dq.asked, dq.kept, dq.slots, dq.filled, dq.dropped, dq.failed) == (4, 4, 4, 4, 0, 0)
    assert generated.usage["scripted/qm"].calls == 4 and generated.failed_calls == 0
    run = info(generated.run_dir)
    assert run["command"] == "imagine-generate" and run["argv"] == []
    assert list(run["config"]) == GENERATE_CONFIG
    assert run["config"]["kinds"] == ["direct"] and run["config"]["topics"] == ["physics", "law"]
    summary = json.loads((generated.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(generated.to_dict()))
    assert from_jsonable(ImagineGenerateResult, summary) == generated
    assert summary["run"] == str(generated.run_dir)


def test_answer_takes_a_generate_result_and_returns_the_matrix(generated, tmp_path):
    always_c = ScriptedModel("scripted/c", reply=lambda p: "Answer: C")
    result = imagine_answer(generated, models=[always_c, ScriptedModel("scripted/no", reply=(
        lambda p: "This concept does not exist."))], shuffle=False, **paths(tmp_path))
    assert isinstance(result, ImagineAnswerResult)
    rows = {r.am: r for r in result.matrix}
    assert (rows["scripted/c [native order]"].kappa, rows["scripted/c [native order]"].n) == (
        1.0, 4)
    assert rows["scripted/no [native order]"].alpha == 0.0
    assert result.outcomes == {"correct": 4, "refused": 4}
    assert result.matrix_png == result.run_dir / "matrix.png" and result.matrix_png.is_file()
    run = info(result.run_dir)
    assert run["command"] == "imagine-answer" and list(run["config"]) == ANSWER_CONFIG
    assert run["config"]["questions"] == [str(generated.run_dir)]
    assert run["config"]["models"] == ["scripted/c", "scripted/no"]
    summary = json.loads((result.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(result.to_dict()))
    assert from_jsonable(ImagineAnswerResult, summary) == result
    assert list(summary["matrix"][0])[:5] == ["content", "qtype", "qm", "am", "n"]
    assert run["config"]["question_ids"] == "content"


def test_matrix_and_analyze_read_the_runs_as_the_cli_does(generated, tmp_path, cli):
    answered = imagine_answer(str(generated.run_dir),
                              models=ScriptedModel("scripted/a", reply=lambda p: "Answer: A"),
                              **paths(tmp_path))
    matrix = imagine_matrix(answered, out=tmp_path / "fig")
    assert isinstance(matrix, ImagineMatrixResult) and matrix.matrix == answered.matrix
    assert matrix.matrix_csv == tmp_path / "fig" / "matrix.csv"
    done = cli(["imagine", "matrix", str(answered.run_dir), "--out", str(tmp_path / "fig"),
                "--json"])
    assert json.loads(done.stdout) == json.loads(json.dumps(matrix.to_dict()))
    analysis = imagine_analyze([generated, answered.run_dir], out=tmp_path / "fig")
    assert isinstance(analysis, ImagineAnalyzeResult)
    (ranks,) = analysis.length_ranks
    assert (ranks.qm, ranks.content, ranks.qtype, ranks.fractions) == (
        "scripted/qm", "knowledge", "DQ", (0, 0, 0, 1.0))
    assert analysis.length_ranks_png == tmp_path / "fig" / "length-ranks.png"
    assert [d.am for d in analysis.deciles] == ["scripted/a"] and analysis.positions == ()
    assert [(t.content, t.texts) for t in analysis.similarity] == [("knowledge", "DQ questions")]
    assert analysis.pooling == Pooling(answers=4, repeated_answers=0, unmatched_answers=0,
                                       questions=4, repeated_questions=0)
    done = cli(["imagine", "analyze", str(generated.run_dir), str(answered.run_dir), "--out",
                str(tmp_path / "fig"), "--json"])
    assert json.loads(done.stdout) == json.loads(json.dumps(analysis.to_dict()))
    assert list(analysis.to_dict()) == ["length_ranks", "deciles", "similarity", "pooling",
                                        "figures"]
    assert analysis.to_dict()["figures"] == {"length_ranks": str(tmp_path / "fig" /
                                                                 "length-ranks.png")}
    assert imagine_analyze(generated, similarity="none").similarity == ()


def test_bad_input_is_refused_before_any_call(generated, tmp_path):
    model = qm()
    for bad in ({"kinds": "bogus"}, {"kinds": ("direct", "sideways")}, {"per_topic": 0},
                {"topics": []}, {"content": "poetry"}, {"tries": 0}, {"temperature": -1.0},
                {"kinds": "sequential", "content": "story"}):
        with pytest.raises(UserError):
            imagine_generate(model, **bad, **paths(tmp_path / "bad"))
    for bad in ({"method": "free"}, {"judge": "local/x"}, {"method": "guess"},
                {"prompt_variant": "7"}, {"method": "letter", "prompt_variant": "cot"},
                {"method": "perplexity", "choice_e": True}, {"models": ["nope/x"]},
                {"max_tokens": 0}):
        with pytest.raises(UserError):
            imagine_answer(generated, **{"models": [model], **bad}, **paths(tmp_path / "bad"))
    answered = imagine_answer(generated, models=[model], **paths(tmp_path))
    with pytest.raises(UserError, match="imagine-answer"):
        imagine_answer(answered, models=[model], **paths(tmp_path / "bad"))
    with pytest.raises(UserError, match="--similarity"):
        imagine_analyze(generated, similarity="words")
    with pytest.raises(UserError, match="imagine-generate"):
        imagine_matrix(generated)
    assert len(model.calls) == 4  # the one good answer run's four answers, nothing else
    assert not (tmp_path / "bad").exists()


def test_the_sync_api_runs_inside_a_running_event_loop(generated, tmp_path):
    async def notebook_cell() -> ImagineAnswerResult:
        return imagine_answer(generated, models=[qm()], **paths(tmp_path))

    inside = asyncio.run(notebook_cell())
    direct = asyncio.run(imagine_answer_async(generated.run_dir, models=[qm()],
                                              **paths(tmp_path)))
    assert inside.matrix == direct.matrix
    assert direct.usage["scripted/qm"].cache_hits == 4  # the second run is served by the cache
    assert RunStore(direct.run_dir).info()["config"]["questions"] == [str(generated.run_dir)]
