"""A run folder checks what it reads: run.json's shape, and each line of records.jsonl.

run.json that is not what `create` writes is one line naming the file (exit 2 from the CLI).
A reader (`records`) stops at a damaged line with one line naming file:line; a resume repairs
the file (`repair`), moving what it cannot use to records.dropped.jsonl.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verstehen.engine.store import DROPPED_FILE, RunStore
from verstehen.errors import UserError

from conftest import Cli, cli_error

GOOD_CONFIG = {"model": "openai/x", "prompts": "/nowhere/p.txt", "samples": 1,
               "temperature": 0.0, "max_tokens": 16, "seed": 0, "base_url": None}


def make_run(tmp_path: Path, info: object) -> Path:
    """A run folder whose run.json holds `info` (as JSON) and no records."""
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "run.json").write_text(json.dumps(info))
    (folder / "records.jsonl").touch()
    return folder


@pytest.mark.parametrize(("info", "needle"), [
    ([], "a JSON list, not an object"),
    (None, "a JSON null, not an object"),
    ({"command": "batch"}, "no 'config'"),
    ({"config": GOOD_CONFIG}, "no 'command'"),
    ({"command": "batch", "config": []}, "'config' is a JSON list"),
    ({"command": 7, "config": GOOD_CONFIG}, "'command' is a JSON number"),
    ({"command": "batch", "config": GOOD_CONFIG, "seed": "0"}, "'seed' is a JSON string"),
    ({"command": "batch", "config": GOOD_CONFIG, "argv": [1]}, "'argv' holds an item"),
    ({"command": "batch", "config": GOOD_CONFIG, "models": ["x"]}, "'models' holds an item"),
    ({"command": "batch", "config": {**GOOD_CONFIG, "samples": "2"}}, "config 'samples'"),
    ({"command": "batch", "config": {**GOOD_CONFIG, "samples": 0}}, "config 'samples'"),
    ({"command": "batch", "config": {**GOOD_CONFIG, "seed": True}}, "config 'seed'"),
    ({"command": "batch", "config": {k: v for k, v in GOOD_CONFIG.items() if k != "model"}},
     "config has no 'model'"),
])
def test_resume_refuses_a_bad_run_json_in_one_line(cli: Cli, tmp_path: Path, info: object,
                                                   needle: str) -> None:
    """Each used to be a KeyError/TypeError traceback (or a wrong run) from `batch --resume`."""
    folder = make_run(tmp_path, info)
    cli_error(cli, ["batch", "--resume", str(folder), "--no-progress"],
              str(folder / "run.json"), needle)


def test_resume_refuses_another_commands_run(cli: Cli, tmp_path: Path) -> None:
    folder = make_run(tmp_path, {"command": "certify", "config": {"scopes": ["arithmetic"]}})
    cli_error(cli, ["batch", "--resume", str(folder), "--no-progress"], "'certify' run",
              "not a batch run")


def test_a_reader_takes_a_sparse_run_json_but_checks_its_types(tmp_path: Path) -> None:
    """Reports read run folders with a sparse run.json; the types are still checked."""
    folder = make_run(tmp_path, {"command": "batch"})
    assert RunStore.existing(folder).info() == {"command": "batch"}
    (folder / "run.json").write_text(json.dumps({"command": "batch", "config": "x"}))
    with pytest.raises(UserError, match="'config' is a JSON string"):
        RunStore.existing(folder)


def damaged(tmp_path: Path) -> RunStore:
    """A run with good records around the damage a crash or an edit leaves."""
    store = RunStore.create(tmp_path, command="batch", argv=[], config={}, seed=0, models=[])
    store.release()
    lines = [b'{"id": "1", "sample": 0, "text": "a", "error": null}\n',
             b'{"id": "2", "sa\n',                      # 2: torn mid-file
             b"\n",                                     # 3: blank
             b"\xff\xfe\x00\x01\n",                     # 4: binary
             b"{}\n", b"null\n", b"[1, 2]\n",           # 5-7
             b'{"id": "1", "sample": 0, "text": "again", "error": null}\n',  # 8: a repeat
             b'{"id": "99", "sample": 0, "text": "x", "error": null}\n',     # 9: unknown id
             b'{"id": "2", "sample": 0, "text": null, "error": null}\n',    # 10: no answer
             b'{"id": "3", "sample": 0, "text": null, "error": "timeout"}\n',  # 11: a failure
             b'{"id": "4", "sample": 0, "te']                # torn tail
    store.records_path.write_bytes(b"".join(lines))
    return store


@pytest.mark.parametrize(("line", "problem"), [
    (b'{"id": "2", "sa', "not JSON"), (b"\xff\xfe\x00\x01", "not UTF-8 text"),
    (b"null", "a JSON null, not an object"), (b"[1, 2]", "a JSON list, not an object"),
    (b'"text"', "a JSON string, not an object"),
])
def test_records_stops_at_a_damaged_line_naming_it(tmp_path: Path, line: bytes,
                                                   problem: str) -> None:
    """Read-only readers: one line naming file:line (a JSONDecodeError traceback before)."""
    store = RunStore.create(tmp_path, command="t", argv=[], config={}, seed=0, models=[])
    store.records_path.write_bytes(b'{"id": 1}\n\n' + line + b'\n{"id": 3}\n')
    with pytest.raises(UserError) as info:
        list(store.records())
    assert str(info.value).startswith(f"{store.records_path}:3: {problem}")
    assert f"--resume {store.path}" in str(info.value) and "\n" not in str(info.value)


def test_records_skips_blank_lines_and_a_torn_tail(tmp_path: Path) -> None:
    store = RunStore.create(tmp_path, command="t", argv=[], config={}, seed=0, models=[])
    store.records_path.write_bytes(b'{"id": 1}\n\n  \n{"id": 2}\n{"id": 3, "te')
    assert [r["id"] for r in store.records()] == [1, 2]


def test_repair_keeps_the_first_good_record_and_moves_the_rest(tmp_path: Path) -> None:
    store = damaged(tmp_path)
    before = store.records_path.read_bytes()

    def problem(record: dict) -> str | None:
        if record.get("id") not in {"1", "2", "3", "4"}:
            return "unknown id"
        return None if isinstance(record.get("text"), str) or record.get("error") else "empty"

    repair = RunStore.open(store.path).repair(problem, key=lambda r: (r["id"], r["sample"]))
    assert [r["id"] for r in repair.kept] == ["1", "3"]
    assert [d.number for d in repair.dropped] == [2, 4, 5, 6, 7, 8, 9, 10]
    assert "second record of what line 1 holds" in repair.dropped[5].problem
    kept = store.records_path.read_bytes().splitlines(keepends=True)
    assert kept == [before.splitlines(keepends=True)[i] for i in (0, 10)]
    dropped = (store.path / DROPPED_FILE).read_bytes().splitlines(keepends=True)
    assert dropped == [before.splitlines(keepends=True)[n - 1] for n in (2, 4, 5, 6, 7, 8, 9, 10)]
    said = repair.say(store)
    assert "dropped 8 damaged records" in said and "asked again" in said
    assert str(store.path / DROPPED_FILE) in said and "\n" not in said
    again = store.repair(problem, key=lambda r: (r["id"], r["sample"]))  # nothing left to do
    assert again.dropped == () and len(again.kept) == 2
    assert (store.path / DROPPED_FILE).read_bytes().count(b"\n") == 8
