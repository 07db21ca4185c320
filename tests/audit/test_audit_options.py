"""The audit's parameters, declared once in AuditOptions: the command's flags (with the older
--scope) and `vs.audit` give the same options, a value out of range is refused on both faces
before anything is asked, and run.json's config keeps the keys older audits were written with
(resume compares them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.auditing.options import AuditOptions
from verstehen.auditing.summary import AuditConfig
from verstehen.cli.main import build_parser
from verstehen.cli.options import options_from
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli, cli_error


def parsed(*flags: str) -> AuditOptions:
    """The options `verstehen audit FLAGS` runs with."""
    return options_from(AuditOptions, build_parser().parse_args(["audit", *flags]))


def test_the_flags_and_the_keywords_give_the_same_options() -> None:
    """--model and --subject repeated (the latter also as --scope) are the lists the API
    takes; each other flag is its keyword."""
    from_cli = parsed("--model", "openai/a", "--model", "openai/b@http://127.0.0.1:9/v1",
                      "--subject", "poetry", "--scope", "arithmetic", "--pg", "0.7",
                      "--rid", "0.3", "--delta", "0.1", "--max-questions", "64",
                      "--first-look", "4", "--rephrase", "2", "--phrasings", "all",
                      "--examples", "0", "--seed", "7", "--max-tokens", "50",
                      "--judge", "openai/j", "--judge-base-url", "http://127.0.0.1:9/v1")
    from_api = AuditOptions(["openai/a", "openai/b@http://127.0.0.1:9/v1"],
                            subjects=["poetry", "arithmetic"], pg=0.7, rid=0.3, delta=0.1,
                            max_questions=64, first_look=4, rephrase=2, phrasings="all",
                            examples=0, seed=7, max_tokens=50, judge="openai/j",
                            judge_base_url="http://127.0.0.1:9/v1")
    assert from_cli.values() == from_api.values()
    assert from_cli.models == ("openai/a", "openai/b@http://127.0.0.1:9/v1")


def test_no_flags_are_the_api_defaults() -> None:
    """Nothing given: the embedded model on game theory, as `audit()` with no arguments."""
    assert parsed().values() == AuditOptions().values()
    plan = AuditOptions().plan()
    assert plan.subjects == ("game-theory",) and plan.max_questions == 512
    assert AuditOptions().model_list() == ["local/smollm2-135m"]


@pytest.mark.parametrize(("keywords", "needle"), [
    ({"max_questions": 0}, "max_questions must be at least 1, not 0"),
    ({"pg": 1.0}, "pg must lie strictly between 0 and 1, not 1.0"),
    ({"examples": -1}, "examples must be at least 0, not -1"),
    ({"phrasings": "some"}, "phrasings must be one of benchmark, all, not 'some'"),
    ({"seed": -1}, "seed must be at least 0, not -1"),
])
def test_python_refuses_a_bad_value_before_any_call(tmp_path: Path, keywords: dict,
                                                    needle: str) -> None:
    model = ScriptedModel()
    with pytest.raises(vs.UserError) as refused:
        vs.audit(model, runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite", **keywords)
    assert str(refused.value) == needle
    assert model.calls == [] and not (tmp_path / "runs").exists()


def test_the_cli_refuses_the_same_values_naming_the_flag(cli: Cli) -> None:
    cli_error(cli, ["audit", "--examples", "-1"], "--examples", "must be at least 0, not -1")
    cli_error(cli, ["audit", "--pg", "1"], "--pg", "must lie strictly between 0 and 1")
    cli_error(cli, ["audit", "--phrasings", "some"], "--phrasings", "invalid choice")


def test_run_json_keeps_the_config_keys_of_older_audits(tmp_path: Path) -> None:
    """The config keys are those an audit folder written before the options were declared
    holds (read off such a run.json by hand), and AuditConfig declares exactly them, with
    one more, `sequential_test`, which an audit by the doubling test (all audits before
    issue 46) leaves out, so that its folder reads as it always did."""
    before = {"models", "subjects", "targets", "pg", "rid", "delta", "max_questions",
              "first_look", "rephrase", "examples", "max_tokens", "phrasings", "judge",
              "base_url", "model_urls", "judge_base_url"}
    assert set(AuditConfig.__annotations__) == before | {"sequential_test"}
    for test, keys in (("doubling", before), (None, before | {"sequential_test"})):
        result = vs.audit(ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes"),
                          subjects="arithmetic/small", max_questions=32, first_look=8,
                          sequential_test=test, runs_dir=tmp_path / "runs",
                          cache=tmp_path / "c.sqlite")
        config = json.loads((result.run_dir / "run.json").read_text())["config"]
        assert set(config) == keys
    assert config["sequential_test"] == "betting"
    assert config["subjects"] == ["arithmetic/small"] and config["max_questions"] == 32
    assert config["targets"] == [{"key": "arithmetic/small", "name": "arithmetic/small",
                                  "subject": "arithmetic", "scope": "arithmetic/small",
                                  "concept": False}]
