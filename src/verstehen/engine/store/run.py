"""Run folders: runs/<run-id>/ with run.json, records.jsonl (append-only), summary.json.

What is read back is checked. run.json must be a JSON object whose keys have the types
`create` writes (`command` and `config` are required to resume). A line of records.jsonl that
is not a JSON object stops a reader with one line naming file:line (`records`); a resume
repairs the file instead (`repair`): it moves every line it cannot use to
records.dropped.jsonl, so nothing is lost, and the caller asks those records again. Blank
lines are ignored, and a last line without its newline (a write cut short) is not a record.

A folder may come from someone else: its files are opened through `safe_files` (no symbolic
link followed, regular files only, temporary files made exclusively). A write that fails
(disk full) leaves run.json as it was and records.jsonl without a partial line, and re-raises.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.engine.store.files import (
    DROPPED_FILE,
    SCHEMA_VERSION,
    RecordLine,
    json_kind,
    parse_line,
    run_json_problem,
)
from verstehen.engine.store.inputs import InputHash, with_added
from verstehen.engine.store.naming import (
    as_stored,
    new_run_id,
    package_versions,
    typed_again,
    without_secrets,
)
from verstehen.engine.store.safe_files import (
    append_bytes,
    exists_unfollowed,
    hold_lock,
    is_regular,
    open_regular,
    read_regular,
    reading,
    replace_atomically,
    truncate_regular,
)
from verstehen.engine.store.status import STATUSES, begun, ended, is_active
from verstehen.errors import UserError
from verstehen.textfiles import text_of

LOCK_FILE = ".lock"
SET_ASIDE_FILE = "records.before-resume.jsonl"
NEEDED_TO_RESUME = ("command", "config")


@dataclass(frozen=True)
class Repair:
    """What `RunStore.repair` kept, and the lines it moved to records.dropped.jsonl."""

    kept: tuple[dict[str, Any], ...]
    dropped: tuple[RecordLine, ...]

    def say(self, store: RunStore) -> str:
        """One line for the user: how many records were dropped, where they went, and why."""
        first = self.dropped[0]
        lines = ", ".join(str(d.number) for d in self.dropped[:5])
        more = ", ..." if len(self.dropped) > 5 else ""
        return (f"{store.records_path}: dropped {len(self.dropped)} damaged records (lines "
                f"{lines}{more}; line {first.number}: {first.problem}); they are kept in "
                f"{store.path / DROPPED_FILE} and will be asked again")


class RunStore:
    """One run folder. Records are appended one JSON line at a time and flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records_path = path / "records.jsonl"
        self._lock_fd: int | None = None
        self._info: dict[str, Any] | None = None  # run.json as last read or written here

    def _take_lock(self) -> None:
        """Hold the folder's lock while this process writes it: a second process that tries
        to write the same run (two `--resume` at once) stops with one line instead of
        duplicating records. The lock goes with the process, however it ends."""
        try:
            held = hold_lock(self.path / LOCK_FILE)
        except OSError as exc:
            raise UserError(f"cannot write the run folder {self.path} ({exc.strerror or exc}): "
                            "resume a run in a folder you can write") from None
        if isinstance(held, str):
            if held == str(os.getpid()):  # this process has it open already
                return
            raise UserError(f"run {self.run_id} is in use by process {held}: wait for it to "
                            "finish or stop it, then resume")
        self._lock_fd = held

    def release(self) -> None:
        """Let another process write the folder (the lock also goes with this process)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self, _close: Callable[[int], None] = os.close) -> None:
        # at interpreter exit module globals may be gone: the close is bound here
        if self._lock_fd is not None:
            _close(self._lock_fd)
            self._lock_fd = None

    @classmethod
    def create(
        cls,
        runs_dir: Path,
        *,
        command: str,
        argv: list[str],
        config: Mapping[str, object],
        seed: int,
        models: list[dict[str, str]],
        cache: str | None = None,
        inputs: Sequence[InputHash] = (),
    ) -> RunStore:
        """Make a new run folder and write run.json (status "running"; `cache` is the path of
        the call cache the run uses, which a resume reuses; `inputs`, its input files')."""
        run_id = new_run_id(command)
        store = cls(runs_dir / run_id)
        try:
            store.path.mkdir(parents=True)
            truncate_regular(store.records_path)
        except OSError as exc:
            raise UserError(
                f"cannot write the runs dir {runs_dir} ({exc.strerror or exc}): "
                "pass --runs-dir with a writable folder"
            ) from None
        store._take_lock()
        store._write_json("run.json", {
            "schema_version": SCHEMA_VERSION,
            "run_id": run_id,
            "command": command,
            "argv": argv,
            "config": without_secrets(config),
            "seed": seed,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "versions": package_versions(),
            "models": models,
            "cache": cache,
            "status": "running",
            "status_reason": None,
            "inputs": list(inputs),
        })
        begun(store)
        return store

    @classmethod
    def existing(cls, path: Path) -> RunStore:
        """An existing run folder, to read (UserError when it is none); nothing is written."""
        store = cls(Path(path))
        if not exists_unfollowed(store.path / "run.json"):
            raise UserError(f"{path} is not a run folder (no run.json): give runs/<run-id>")
        store.info()
        return store

    @classmethod
    def open(cls, path: Path) -> RunStore:
        """An existing run folder, for resuming (locked against a second writer); a torn last
        record line is dropped."""
        store = cls.existing(path)
        info = store.info()
        for key in NEEDED_TO_RESUME:
            if key not in info:
                raise UserError(f"{store.path / 'run.json'}: no {key!r}: it was edited or is "
                                "not verstehen's; start a new run")
        store._take_lock()
        store._drop_torn_tail()
        return store

    @classmethod
    def resume(cls, path: Path, *, command: str, config: Mapping[str, object]) -> RunStore:
        """Go on with a run folder made by `command` with this `config`: its records move to
        records.before-resume.jsonl (appended to) and the run is asked again, each finished
        call coming from the cache; UserError in one line when the run is another's."""
        store = cls.open(path)
        info = store.info()
        if info["command"] != command:
            store.release()
            raise UserError(f"{store.path} is a run of {info['command']!r}, not {command!r}: "
                            "resume it with the command that made it")
        given = as_stored(config)
        changed = next((k for k in sorted({*given, *info["config"]})
                        if given.get(k) != info["config"].get(k)), None)
        if changed is not None:
            store.release()
            raise UserError(f"{store.path} was made with {changed} = "
                            f"{info['config'].get(changed)!r}, not "
                            f"{given.get(changed)!r}: its inputs or settings changed since; "
                            "start a new run")
        if earlier := read_regular(store.records_path):
            append_bytes(store.path / SET_ASIDE_FILE, earlier)
            truncate_regular(store.records_path)
        store.begin()
        return store

    @classmethod
    def matching(cls, runs_dir: Path, *, command: str, config: Mapping[str, object]) -> Path | None:
        """The newest run folder under runs_dir made by `command` with this `config` (the
        step of a resumed job that was started before), if there is one."""
        given = as_stored(config)
        if not runs_dir.is_dir():
            return None
        for folder in sorted(runs_dir.iterdir(), reverse=True):
            if is_regular(folder / "run.json"):
                info = cls(folder).info()
                if info.get("command") == command and info.get("config") == given:
                    return folder
        return None

    def made_by(self) -> str:
        """The command words that made the run ("potemkin run" for run.json's "potemkin-run")."""
        return str(self.info()["command"]).replace("-", " ")

    def resume_command(self) -> str:
        """What to type to go on with this run (a run made from Python is resumed there)."""
        if not self.info().get("argv"):
            return (f"the same call in Python with resume={str(self.path)!r}, as the run was "
                    "made there")
        again = typed_again(self.info()["argv"])
        return f"verstehen {self.made_by()} --resume {self.path}" + (f" {again}" if again else "")

    @property
    def run_id(self) -> str:
        """The folder's name."""
        return self.path.name

    def info(self) -> dict[str, Any]:
        """The contents of run.json (UserError in one line when it is not what `create`
        writes: not JSON, not an object, or a key of the wrong type). Read once per store: only
        the process holding the folder's lock writes it, and through this store."""
        if self._info is not None:
            return dict(self._info)
        path = self.path / "run.json"
        try:
            info = json.loads(text_of(read_regular(path), path, "run file"))
        except json.JSONDecodeError as exc:
            raise UserError(f"{path} is unreadable ({exc}): is this a run folder?") from None
        except FileNotFoundError:
            raise UserError(f"{self.path} is not a run folder (no run.json): give "
                            "runs/<run-id>") from None
        except OSError as exc:
            raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if not isinstance(info, dict):
            raise UserError(f"{path} holds a JSON {json_kind(info)}, not an object: it was "
                            "edited or is not verstehen's; start a new run")
        problem = run_json_problem(info)
        if problem is not None:
            raise UserError(f"{path}: {problem}, which verstehen never writes: it was edited "
                            "or is not verstehen's; start a new run")
        self._info = info
        return dict(info)

    def append(self, record: Mapping[str, object]) -> None:
        """Add one record; it is in the file (the OS's page cache) when this returns. A write
        that fails (disk full) leaves no part of the line and is re-raised."""
        line = json.dumps(record, ensure_ascii=False) + "\n"
        append_bytes(self.records_path, line.encode("utf-8"))

    def lines(self) -> Iterator[RecordLine]:
        """Every newline-ended, non-blank line of records.jsonl, parsed where it can be."""
        if not exists_unfollowed(self.records_path):
            return
        with reading(self.records_path) as handle:
            for number, raw in enumerate(handle, 1):
                if raw.endswith(b"\n") and raw.strip():
                    record, problem = parse_line(raw)
                    yield RecordLine(number, raw, record, problem)

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record, in the order written; a damaged line (not a JSON object) is
        a UserError naming file:line."""
        for line in self.lines():
            if line.record is None:
                raise UserError(f"{self.records_path}:{line.number}: {line.problem}: the run "
                                f"folder is damaged; `verstehen batch --resume {self.path}` "
                                "repairs a batch run, rerunning its command remakes any other")
            yield line.record

    def repair(self, problem: Callable[[dict[str, Any]], str | None],
               key: Callable[[dict[str, Any]], Hashable]) -> Repair:
        """Keep the records a resume can use: a JSON object that `problem` finds nothing wrong
        with (it returns why not; `key` may rely on what it checked), the first of those with
        each `key`. The other lines move to records.dropped.jsonl (appended to), and
        records.jsonl is rewritten without them or blank lines. Call it on an `open` store."""
        kept: list[RecordLine] = []
        dropped: list[RecordLine] = []
        seen: dict[Hashable, int] = {}
        for line in self.lines():
            why = line.problem or problem(line.record or {})
            if why is None:
                earlier = seen.setdefault(key(line.record or {}), line.number)
                if earlier != line.number:
                    why = f"a second record of what line {earlier} holds"
            if why is None:
                kept.append(line)
            else:
                dropped.append(RecordLine(line.number, line.raw, None, why))
        if dropped:  # first, so that a crash before the rewrite below loses nothing
            append_bytes(self.path / DROPPED_FILE, b"".join(line.raw for line in dropped))
        written = (read_regular(self.records_path).count(b"\n")
                   if exists_unfollowed(self.records_path) else 0)
        if len(kept) != written:
            replace_atomically(self.records_path, b"".join(line.raw for line in kept))
        return Repair(tuple(line.record for line in kept if line.record is not None),
                      tuple(dropped))

    def rewrite(self, records: Sequence[Mapping[str, object]], name: str = "records.jsonl") -> None:
        """Replace a JSONL file of the run (records.jsonl unless named) with rows, atomically."""
        replace_atomically(self.path / name, "".join(
            json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8"))

    def record_inputs(self, inputs: Sequence[InputHash]) -> None:
        """Add the content hashes of inputs run.json has none of (an older run resumed with
        its input files typed again); those it has are kept."""
        if (merged := with_added(self.info().get("inputs"), inputs)) is not None:
            self._write_json("run.json", {**self.info(), "inputs": merged})

    def record_notes(self, notes: Mapping[str, Sequence[str]]) -> None:
        """Add each model's notes (what its provider changed) to run.json's `model_notes`."""
        info, merged = self.info(), dict(self.info().get("model_notes") or {})
        merged.update({name: list(dict.fromkeys([*merged.get(name, []), *lines]))
                       for name, lines in notes.items()})
        if merged != info.get("model_notes", {}):
            self._write_json("run.json", {**info, "model_notes": merged})

    def write_summary(self, summary: Mapping[str, object]) -> None:
        """Write summary.json (replacing it atomically); a run this process was making is
        marked done."""
        self._write_json("summary.json", summary)
        if is_active(self.path):
            self.set_status("done")

    def begin(self) -> None:
        """Mark an opened run as running again (a resume); Ctrl-C or an error marks it."""
        self.set_status("running")
        begun(self)

    def set_status(self, state: str, reason: str | None = None) -> None:
        """Record the run's status in run.json (one of STATUSES), with why it stopped."""
        assert state in STATUSES, state
        info = self.info()
        info.update(status=state, status_reason=reason)
        self._write_json("run.json", info)
        if state != "running":
            ended(self.path)

    def status(self) -> str:
        """running, interrupted, done or failed; a "running" run whose folder no process holds
        was killed, so it reads as interrupted (so does an older run without a summary)."""
        stored: str | None = self.info().get("status")  # info() checked its type
        if stored is None:
            return "done" if (self.path / "summary.json").is_file() else "interrupted"
        if stored == "running" and not self._held_elsewhere():
            return "interrupted"
        return stored

    def _held_elsewhere(self) -> bool:
        """True when a process holds the folder's lock (this one counts if it holds it)."""
        if self._lock_fd is not None:
            return True
        try:
            fd = open_regular(self.path / LOCK_FILE)
        except (OSError, UserError):  # none, or not a lock verstehen made
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def _write_json(self, name: str, value: Mapping[str, object]) -> None:
        """Replace a JSON file of the folder atomically (as it was, if the write fails)."""
        text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
        replace_atomically(self.path / name, text.encode("utf-8"))
        if name == "run.json":
            self._info = dict(value)

    def _drop_torn_tail(self) -> None:
        """Cut a last line without its newline (a write the process did not finish)."""
        if not exists_unfollowed(self.records_path):
            truncate_regular(self.records_path)
            return
        data = read_regular(self.records_path)
        if data and not data.endswith(b"\n"):
            truncate_regular(self.records_path, data.rfind(b"\n") + 1)
