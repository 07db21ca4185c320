"""Real run folders of every run kind (each kind's example run) fit their schemas; folders
edited by hand do not, and the line says where. Where the `jsonschema` package is installed, it
checks the same schemas and folders independently."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind
from export.made_runs import made_runs, records, summary

from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.schema import check_run, kind_schemas, require_fit
from verstehen.schema.folders import MOST_PER_FILE


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return made_runs(tmp_path_factory)


def copy(run: Path, tmp_path: Path) -> Path:
    """A copy of a run folder to edit (the made ones are shared by the session's tests)."""
    return Path(shutil.copytree(run, tmp_path / run.name, symlinks=True))


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def edit_line(path: Path, number: int, change) -> None:
    lines = path.read_text().splitlines()
    record = json.loads(lines[number - 1])
    change(record)
    lines[number - 1] = json.dumps(record)
    path.write_text("\n".join(lines) + "\n")


@each_kind()
def test_a_folder_of_each_kind_fits_its_schemas(kind: RunKind[Any],
                                                runs: dict[str, Path]) -> None:
    """Its example run, a finished folder of its command, fits its schemas."""
    assert kind.kind in runs, f"{kind.kind} declares no example run"
    run = runs[kind.kind]
    info = json.loads((run / "run.json").read_text())
    assert (info["command"], info["status"]) == (kind.kind, "done")
    assert check_run(run) == []


def test_a_number_turned_into_text_is_named_by_its_path(runs: dict[str, Path],
                                                        tmp_path: Path) -> None:
    run = copy(runs["certify"], tmp_path)
    # a Verdict's n counts questions: an int (verstehen.methods.certification.verdict)
    edit_json(run / "summary.json",
              lambda s: s["scopes"][0]["verdict"].update(n=str(s["scopes"][0]["verdict"]["n"])))
    assert check_run(run) == [
        f"{run}/summary.json: $.scopes[0].verdict.n: expected integer, got string"]


def test_a_required_key_removed_is_named(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["certify"], tmp_path)
    edit_line(run / "records.jsonl", 2, lambda r: r.pop("prompt"))
    edit_json(run / "summary.json", lambda s: s["scopes"][0].pop("asked"))
    assert check_run(run) == [f"{run}/records.jsonl:2: $.prompt: required key missing",
                              f"{run}/summary.json: $.scopes[0].asked: required key missing"]


def test_a_record_of_no_kind_the_folder_writes(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["consistency"], tmp_path)
    edit_line(run / "records.jsonl", 1, lambda r: r.update(kind="answer"))
    assert check_run(run) == [
        f'{run}/records.jsonl:1: $.kind: expected one of "fact", "anchor", got "answer"']


def test_a_line_that_is_no_json_object(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["potemkin-incoherence"], tmp_path)
    with (run / "records.jsonl").open("a") as out:
        out.write("[1, 2]\n{\"kind\": \"pair\"\n")  # the second is not JSON
    found = check_run(run)
    count = len(records(runs["potemkin-incoherence"]))
    assert found[0] == f"{run}/records.jsonl:{count + 1}: a JSON list, not an object"
    assert found[1].startswith(f"{run}/records.jsonl:{count + 2}: not JSON")


def test_problems_of_a_file_are_counted_past_a_limit(runs: dict[str, Path],
                                                    tmp_path: Path) -> None:
    run = copy(runs["certify"], tmp_path)
    lines = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    assert len(lines) > MOST_PER_FILE + 1  # 20 questions and 2 asked again
    (run / "records.jsonl").write_text("".join(
        json.dumps({**r, "cached": "no"}) + "\n" for r in lines))
    found = check_run(run)
    assert len(found) == MOST_PER_FILE + 1
    assert found[-1] == f"{run}/records.jsonl: {len(lines) - MOST_PER_FILE} more problems"


def test_an_audit_is_checked_with_its_lens_folders(runs: dict[str, Path],
                                                   tmp_path: Path) -> None:
    run = copy(runs["audit"], tmp_path)
    lens = next(p for p in run.rglob("run.json")
                if json.loads(p.read_text())["command"] == "potemkin-incoherence").parent
    edit_json(lens / "summary.json", lambda s: s["overall"].update(n=None))
    assert check_run(run) == [f"{lens}/summary.json: $.overall.n: expected integer, got null"]
    # an audit writes no records of its own
    (run / "records.jsonl").write_text('{"kind": "answer"}\n')
    assert check_run(run)[0] == (f"{run}/records.jsonl:1: $: this kind of run folder writes "
                                 "no records")


def test_a_folder_of_a_newer_schema_or_an_unknown_kind(runs: dict[str, Path],
                                                       tmp_path: Path) -> None:
    run = copy(runs["imagine-generate"], tmp_path)
    edit_json(run / "run.json", lambda info: info.update(schema_version=1))
    assert check_run(run) == []  # version 1 may say so
    edit_json(run / "run.json", lambda info: info.update(schema_version=2))
    assert check_run(run) == [
        f"{run}/run.json: $.schema_version: 2; this verstehen checks schema version 1 (a "
        "newer verstehen wrote it, or it was edited)"]
    edit_json(run / "run.json", lambda info: info.update(schema_version=1, command="nope"))
    assert check_run(run) == [
        f'{run}/run.json: $.command: no installed method makes "nope" run folders']


def test_a_finished_folder_without_its_summary(runs: dict[str, Path], tmp_path: Path) -> None:
    run = copy(runs["imagine-answer"], tmp_path)
    (run / "summary.json").unlink()
    assert check_run(run) == [
        f'{run}/summary.json: missing, though run.json\'s status is "done"']
    edit_json(run / "run.json", lambda info: info.update(status="interrupted"))
    assert check_run(run) == []  # a run stopped before its end has none yet
    (run / "summary.json").write_text("{")
    assert check_run(run)[0].startswith(f"{run}/summary.json: not JSON")


@each_kind()
def test_jsonschema_agrees(kind: RunKind[Any], runs: dict[str, Path]) -> None:
    """An independent implementation of draft 2020-12 passes the schemas and the folders."""
    jsonschema = pytest.importorskip("jsonschema")
    run = runs[kind.kind]
    schemas = kind_schemas(kind)
    for schema in schemas.values():
        jsonschema.Draft202012Validator.check_schema(schema)
    validate = {f: jsonschema.Draft202012Validator(s) for f, s in schemas.items()}
    assert not list(validate["run"].iter_errors(json.loads((run / "run.json").read_text())))
    assert not list(validate["summary"].iter_errors(summary(run)))
    for record in records(run):
        assert not list(validate["records"].iter_errors(record)), record


def test_jsonschema_fails_the_edited_folder_where_check_run_does(
        runs: dict[str, Path]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    certify = summary(runs["certify"])
    certify["scopes"][0]["verdict"]["n"] = "20"
    errors = list(jsonschema.Draft202012Validator(
        kind_schemas(registry.run_kind("certify"))["summary"]).iter_errors(certify))
    assert [e.json_path for e in errors] == ["$.scopes[0].verdict"]  # the nullable Verdict


def test_require_fit_is_one_line(runs: dict[str, Path], tmp_path: Path) -> None:
    require_fit(runs["consistency"])  # nothing to say
    run = copy(runs["consistency"], tmp_path)
    edit_line(run / "records.jsonl", 1, lambda r: r.update(kind="answer", key=1))
    edit_line(run / "records.jsonl", 2, lambda r: r.pop("kind"))
    with pytest.raises(UserError) as caught:
        require_fit(run)
    assert str(caught.value) == (
        f'{run}/records.jsonl:1: $.kind: expected one of "fact", "anchor", got "answer" (and 1 '
        f"more): the folder was edited or is not verstehen's; `verstehen schema --check {run}` "
        "lists every problem")
