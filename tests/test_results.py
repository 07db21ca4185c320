"""The shared base of run results (`RunOutcome`), the `RunResult` protocol `finish` reads, and
summary.json files written before the base existed, read back and written again unchanged.

`results_data/<kind>.summary.json` are real summaries, one per run kind, copied from run folders
that the tests of commit c41d243 (before `RunOutcome`) wrote with `RunStore.write_summary`; that
commit's code read each back into its result and wrote the same bytes again. So the expected
bytes below come from the older code, not from the code under test.
"""

from __future__ import annotations

import argparse
import dataclasses
import inspect
import json
import shutil
from pathlib import Path

import pytest

from verstehen.cli.runs import EXIT_CALL_FAILED, finish
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.methods.contract import RunResult
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.registry import is_built_in, methods, run_kind, run_kinds
from verstehen.results import RunOutcome, from_jsonable, load_result

DATA = Path(__file__).parent / "results_data"
SUMMARIES = sorted(DATA.glob("*.summary.json"))
SHARED = ("run_dir", "seconds", "usage")


def _run_folder(summary: Path, tmp_path: Path) -> Path:
    """A run folder holding only `summary`, as summary.json."""
    folder = tmp_path / "run"
    folder.mkdir()
    shutil.copyfile(summary, folder / "summary.json")
    return folder


def _kind_of(summary: Path) -> type[RunOutcome]:
    kind = run_kind(summary.name.removesuffix(".summary.json"))
    assert kind is not None, summary.name
    return kind.result


def test_there_is_an_older_summary_of_every_built_in_run_kind() -> None:
    kinds = {kind.kind for method in methods() if is_built_in(method) for kind in method.kinds}
    assert {s.name.removesuffix(".summary.json") for s in SUMMARIES} == kinds


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda path: path.name.split(".")[0])
def test_an_older_summary_loads_and_is_written_again_byte_for_byte(summary: Path,
                                                                   tmp_path: Path) -> None:
    result = load_result(_kind_of(summary), _run_folder(summary, tmp_path))
    # RunStore._write_json's form: two-space indent, text as is, a final newline
    again = json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n"
    assert again == summary.read_text(encoding="utf-8")
    assert from_jsonable(type(result), result.to_dict()) == result


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda path: path.name.split(".")[0])
def test_an_older_summary_reads_as_a_run_outcome_and_a_run_result(summary: Path,
                                                                  tmp_path: Path) -> None:
    folder = _run_folder(summary, tmp_path)
    result = load_result(_kind_of(summary), folder)
    data = json.loads(summary.read_text(encoding="utf-8"))
    assert isinstance(result, RunOutcome) and isinstance(result, RunResult)
    assert result.run_dir == Path(data["run"])  # the field run_dir is written "run"
    assert result.seconds == data["seconds"]
    assert isinstance(result.failed_calls, int)
    assert result.usage is not None
    assert {name: (u.calls, u.prompt_tokens) for name, u in result.usage.items()} == {
        name: (u["calls"], u["prompt_tokens"]) for name, u in data["usage"].items()}


def test_every_run_kind_makes_a_run_outcome() -> None:
    assert run_kinds()  # the registry loaded
    for kind in run_kinds():
        assert issubclass(kind.result, RunOutcome), kind.kind


@pytest.mark.parametrize("summary", SUMMARIES, ids=lambda path: path.name.split(".")[0])
def test_the_shared_fields_are_keyword_only(summary: Path) -> None:
    """So a result's own fields keep their positions in its constructor."""
    parameters = inspect.signature(_kind_of(summary)).parameters
    assert all(parameters[name].kind is inspect.Parameter.KEYWORD_ONLY for name in SHARED)


def test_a_summary_without_the_asking_runs_figures_loads(tmp_path: Path) -> None:
    """A Potemkin run summarized again after its summary lost seconds and usage."""
    data = json.loads((DATA / "potemkin-run.summary.json").read_text(encoding="utf-8"))
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "summary.json").write_text(json.dumps({**data, "seconds": None, "usage": None}),
                                         encoding="utf-8")
    result = load_result(PotemkinRunResult, folder)
    assert (result.seconds, result.usage) == (None, None)
    assert list(result.to_dict()) == list(data)  # the keys, in the same order


@dataclasses.dataclass(frozen=True)
class _Plain(RunOutcome):
    """A new method's result with no `json_order`."""

    answers: int
    failed_calls: int


@dataclasses.dataclass(frozen=True)
class _Misordered(RunOutcome):
    """A result whose `json_order` forgets one of its fields."""

    json_order = ("answers", "run_dir", "seconds", "usage")
    answers: int
    failed_calls: int


def test_without_json_order_the_shared_fields_come_first(tmp_path: Path) -> None:
    usage = {"m": ModelUsage(calls=3)}
    result = _Plain(2, 0, run_dir=tmp_path, seconds=1.5, usage=usage)
    data = result.to_dict()
    assert list(data) == ["run", "seconds", "usage", "answers", "failed_calls"]
    assert data["run"] == str(tmp_path) and data["usage"]["m"]["calls"] == 3
    assert from_jsonable(_Plain, data) == result


def test_a_json_order_missing_a_field_is_refused(tmp_path: Path) -> None:
    result = _Misordered(2, 0, run_dir=tmp_path, seconds=1.0, usage={})
    with pytest.raises(TypeError, match=r"_Misordered\.json_order lists"):
        result.to_dict()


def test_finish_names_the_folder_to_resume(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = RunStore.create(tmp_path / "runs", command="certify", argv=["certify"], config={},
                            seed=0, models=[])
    shown: list[_Plain] = []
    result = _Plain(5, 2, run_dir=store.path, seconds=1.0, usage={})
    code = finish(argparse.Namespace(json=False), result, shown.append)
    assert code == EXIT_CALL_FAILED and shown == [result]
    err = capsys.readouterr().err
    assert err.startswith("2 calls failed; to retry them, type: verstehen certify --resume "
                          f"{store.path}")


def test_finish_prints_the_json_form_and_exits_0_without_failures(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = _Plain(5, 0, run_dir=tmp_path, seconds=1.0, usage={})
    assert finish(argparse.Namespace(json=True), result, lambda _: None) == 0
    assert json.loads(capsys.readouterr().out) == {"run": str(tmp_path), "seconds": 1.0,
                                                   "usage": {}, "answers": 5, "failed_calls": 0}
