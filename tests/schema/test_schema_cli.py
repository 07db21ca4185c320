"""`verstehen schema`: --help, one schema printed (valid JSON), all written at the paths of their
$id, and --check's lines and exit code, through the CLI's `main`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind
from export.made_runs import made_runs

from verstehen.cli import main as cli_main
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.schema import cli as schema_cli

from conftest import Cli, cli_error

# read before any test's fixture stands in for it
REGISTERED = any(add is schema_cli.add_parsers for _, _, add in cli_main.GENERAL_COMMANDS)


@pytest.fixture(autouse=True)
def schema_command(monkeypatch: pytest.MonkeyPatch) -> None:
    """`schema` among the general commands, where the CLI does not list it yet (its place in
    `--help`: after `export`)."""
    if not REGISTERED:
        monkeypatch.setattr(cli_main, "GENERAL_COMMANDS",
                            (*cli_main.GENERAL_COMMANDS,
                             (27, ("schema",), schema_cli.add_parsers)))


def test_help(cli: Cli) -> None:
    done = cli(["schema", "--help"])
    assert done.returncode == 0
    assert "--check" in done.stdout and "https://verstehen.dev/schema/1/KIND/FILE.json" in \
        " ".join(done.stdout.split())


def test_one_schema_printed_is_json(cli: Cli,
                                    tmp_path_factory: pytest.TempPathFactory) -> None:
    done = cli(["schema", "certify"])
    assert done.returncode == 0, done.stderr
    schema = json.loads(done.stdout)
    assert schema["$id"] == "https://verstehen.dev/schema/1/certify/summary.json"
    # the keys in the order a certify run's summary.json has them, then `models`, which a
    # run of one model leaves out (it is at its default, empty) and is not required
    written = json.loads((made_runs(tmp_path_factory)["certify"] / "summary.json").read_text())
    certify = schema["$defs"]["CertifyResult"]
    assert list(certify["properties"]) == [*written, "models"]
    assert "models" not in certify["required"]
    for name in ("potemkin-run", "potemkin run"):  # the kind, or its command words
        done = cli(["schema", name, "--file", "records"])
        records = json.loads(done.stdout)
        assert records["$id"] == "https://verstehen.dev/schema/1/potemkin-run/records.json"
    assert [ref["$ref"] for ref in records["oneOf"]] == ["#/$defs/AnswerRecord",
                                                         "#/$defs/JudgeRecord"]


@each_kind()
def test_each_kinds_schema_is_printed_and_its_example_run_checks(
        kind: RunKind[Any], cli: Cli, tmp_path_factory: pytest.TempPathFactory) -> None:
    """`verstehen schema KIND` (its name or its command words) prints its summary.json's
    schema; `schema --check` passes its example run."""
    for name in dict.fromkeys((kind.kind, " ".join(kind.words))):
        done = cli(["schema", name])
        assert done.returncode == 0, done.stderr
        schema = json.loads(done.stdout)
        assert schema["$id"] == f"https://verstehen.dev/schema/1/{kind.kind}/summary.json"
        assert kind.result.__name__ in schema["$defs"]
    done = cli(["schema", "--check", str(made_runs(tmp_path_factory)[kind.kind])])
    assert done.returncode == 0, done.stderr


def test_all_written_at_the_paths_of_their_ids(cli: Cli, tmp_path: Path) -> None:
    done = cli(["schema", "-o", str(tmp_path / "out")])
    assert done.returncode == 0, done.stderr
    written = sorted(Path(line) for line in done.stdout.splitlines())
    kinds = [kind.kind for kind in registry.run_kinds()]
    assert written == sorted(tmp_path / "out" / "1" / kind / f"{file}.json"
                             for kind in kinds for file in ("run", "records", "summary"))
    for path in written:
        relative = path.relative_to(tmp_path / "out").as_posix()
        assert json.loads(path.read_text())["$id"] == f"https://verstehen.dev/schema/{relative}"
    done = cli(["schema", "consistency", "--file", "run", "-o", str(tmp_path / "one")])
    assert done.stdout.split() == [str(tmp_path / "one" / "1" / "consistency" / "run.json")]


def test_what_it_cannot_do_is_one_line(cli: Cli, tmp_path: Path) -> None:
    cli_error(cli, ["schema", "nope"], "no kind of run folder is called 'nope'", "certify")
    cli_error(cli, ["schema"], "name a run kind", "-o DIR")
    cli_error(cli, ["schema", "certify", "consistency"], "name one run kind")
    cli_error(cli, ["schema", "--check"], "run folders only")
    (tmp_path / "file").write_text("")
    cli_error(cli, ["schema", "-o", str(tmp_path / "file")], "is a file")


def test_check_says_ok_or_each_problem_and_exits_2(cli: Cli, tmp_path: Path,
                                                   tmp_path_factory: pytest.TempPathFactory,
                                                   ) -> None:
    runs = made_runs(tmp_path_factory)
    done = cli(["schema", "--check", *map(str, runs.values())])
    assert done.returncode == 0, done.stdout
    assert done.stdout.splitlines() == [f"{run}: ok" for run in runs.values()]
    edited = Path(shutil.copytree(runs["potemkin-run"], tmp_path / "edited"))
    summary = json.loads((edited / "summary.json").read_text())
    summary["keystones"][0]["concept"] = 7  # a concept is named by text
    (edited / "summary.json").write_text(json.dumps(summary))
    done = cli(["schema", "--check", str(runs["certify"]), str(edited)])
    assert done.returncode == 2
    assert done.stdout.splitlines() == [
        f"{runs['certify']}: ok",
        f"{edited}/summary.json: $.keystones[0].concept: expected string, got integer"]


def test_schema_is_a_command_of_verstehen() -> None:
    """The CLI lists `schema` itself (the fixture above stands in until it does)."""
    assert REGISTERED, "register schema in verstehen.cli.main.GENERAL_COMMANDS"
