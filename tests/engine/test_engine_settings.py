"""One EngineSettings for both faces: the CLI's engine and run flags build it, every API
function takes it as `engine=` (and its fields as keywords, which replace the engine's)."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind

import verstehen as vs
from verstehen.cli.flags import engine_from, settings_from
from verstehen.cli.main import build_parser
from verstehen.engine.session import RunSettings
from verstehen.engine.settings import EngineSettings
from verstehen.methods.contract import RunKind
from verstehen.testing.scripted import ScriptedModel

TOO_FEW = pytest.mark.filterwarnings("ignore:.*can decide nothing:UserWarning")  # 2 questions


@each_kind()
def test_every_api_call_takes_engine_and_its_keywords(kind: RunKind[Any]) -> None:
    """Each run kind's function (sync and async) has `engine=` and each engine setting as
    a keyword with EngineSettings' own default (taken from its options class, which derives
    from EngineSettings: the settings are declared there once)."""
    fields = dataclasses.fields(EngineSettings)
    name = "_".join(kind.words)
    for fn in (getattr(vs, name), getattr(vs, f"{name}_async")):
        params = inspect.signature(fn).parameters
        assert params["engine"].default is None, name
        for field in fields:
            assert params[field.name].kind is inspect.Parameter.KEYWORD_ONLY, name
            assert params[field.name].default == field.default, (name, field.name)


def test_keywords_replace_the_engines_fields_and_nothing_else() -> None:
    """`timeout=` beside `engine=` replaces the engine's timeout; the rest is the engine's;
    a misspelt keyword is named, not dropped."""
    engine = EngineSettings(timeout=5.0, threads=2, runs_dir="r", base_url=["http://a/v1",
                                                                             "http://b/v1"])
    assert engine.runs_dir == Path("r") and engine.base_url == ("http://a/v1", "http://b/v1")
    settings = RunSettings.of(engine, {"timeout": 9.0}, resume="old")
    assert (settings.timeout, settings.threads, settings.runs_dir) == (9.0, 2, Path("r"))
    assert settings.resume == Path("old") and not settings.announce
    assert RunSettings.of().progress is None  # the API's default: progress in a notebook only
    with pytest.raises(TypeError, match="'timout'"):
        RunSettings.of(engine, {"timout": 1.0})
    with pytest.raises(vs.UserError, match="threads must be at least 1"):
        RunSettings.of(engine, {"threads": 0})


def test_the_cli_flags_build_the_engine_settings_the_api_takes(tmp_path: Path) -> None:
    """Every engine flag lands in the one EngineSettings; run settings add the command line,
    the announcement and --resume."""
    argv = ["certify", "--scope", "arithmetic", "--cache", str(tmp_path / "c.sqlite"),
            "--runs-dir", str(tmp_path / "runs"), "--base-url", "http://127.0.0.1:9/v1",
            "--server-kind", "vllm", "--max-connections", "3", "--max-attempts", "2",
            "--threads", "4", "--timeout", "7", "--api-key-env", "MY_KEY",
            "--reasoning-budget", "0", "--no-progress"]
    args = build_parser().parse_args(argv)
    args.argv = argv
    assert engine_from(args) == EngineSettings(
        base_url="http://127.0.0.1:9/v1", runs_dir=tmp_path / "runs",
        cache=tmp_path / "c.sqlite", max_connections=3, max_attempts=2, progress=False,
        threads=4, timeout=7.0, api_key_env="MY_KEY", server_kind="vllm", reasoning_budget=0)
    settings = settings_from(args)
    assert settings.engine_fields() == engine_from(args).engine_fields()
    assert settings.announce and settings.argv == tuple(argv) and settings.resume is None


@TOO_FEW
def test_an_api_run_goes_where_its_engine_says(tmp_path: Path) -> None:
    """`engine=` places the run folder and the cache; a `runs_dir=` keyword beside it wins."""
    model = ScriptedModel("scripted/calc", reply=lambda _: "4")
    engine = vs.EngineSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    result = vs.certify(model, "arithmetic/small", questions=2, rephrase=0, engine=engine)
    assert result.run_dir.parent == tmp_path / "runs"
    assert (tmp_path / "calls.sqlite").exists()
    other = vs.certify(model, "arithmetic/small", questions=2, rephrase=0, engine=engine,
                       runs_dir=tmp_path / "elsewhere")
    assert other.run_dir.parent == tmp_path / "elsewhere"


@TOO_FEW
def test_an_engines_server_and_timeout_reach_the_calls(stub_server, tmp_path: Path) -> None:
    """The base URL, timeout and attempts of `engine=` are those the calls use: each reply
    of a server that takes 3 s fails at a 0.5 s timeout with one attempt."""
    slow = stub_server(delay=3.0)
    engine = vs.EngineSettings(base_url=slow.url, timeout=0.5, max_attempts=1,
                               runs_dir=tmp_path / "runs", cache=tmp_path / "c.sqlite")
    result = vs.certify("openai/stub", "arithmetic/small", questions=2, rephrase=0, pg=0.5,
                        rid=0.2, engine=engine)
    assert result.failed_calls == 2
