"""`verstehen runs`: the run folders under a runs folder, newest last, each with its command,
models, status and a one-line summary of what it found."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore, default_runs_dir
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.results import load_result
from verstehen.schema.folders import check_run
from verstehen.text.tables import plural
from verstehen.text.terminal import cut
from verstehen.viewer.page import kind_of


@dataclass(frozen=True)
class RunLine:
    """One run folder: id, command, models, status (running, interrupted, failed, done, or
    how many calls failed) and what it found in a few words."""

    run_id: str
    command: str
    models: tuple[str, ...]
    status: str
    found: str
    path: Path


REASON_CHARS = 100  # of a failed run's reason in its line: `verstehen report` shows it whole


def _models(info: dict[str, Any]) -> tuple[str, ...]:
    config = info.get("config", {})
    if "models" in config and all(isinstance(m, str) for m in config["models"]):
        return tuple(config["models"])
    names = [_full_name(m) for m in info.get("models", [])]
    return tuple(dict.fromkeys(n for n in names if n)) or (
        (config["model"],) if isinstance(config.get("model"), str) else ())


def _full_name(identity: Mapping[str, object]) -> str:
    """A model identity's name as it is typed: `provider/model` (local identities carry
    the provider in the name already, served ones apart). Read from run.json, whose values
    may have been edited."""
    model, provider = str(identity.get("model", "")), identity.get("provider")
    return model if not model or "/" in model or not provider else f"{provider}/{model}"


def _short(text: str, most: int = REASON_CHARS) -> str:
    """The first line of `text`, cut to `most` characters."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= most else line[:most - 1].rstrip() + "…"


def run_line(path: Path) -> RunLine:
    """One run folder's line (a summary an older version wrote is said to be unreadable, and
    a folder whose run.json or summary.json does not fit its schema says where not)."""
    store = RunStore.existing(path)
    try:
        info = store.info()
    except UserError as exc:  # run.json unreadable: the line says why
        return RunLine(path.name, "?", (), "unreadable", cut(str(exc), REASON_CHARS), path)
    command = info.get("command", "?")
    # a kind no installed method makes is listed as it is, unread
    unfit = check_run(path, records=False) if registry.run_kind(command) else []
    if unfit:
        first = unfit[0].removeprefix(f"{path}/")
        return RunLine(path.name, command, (), "unreadable", f"{cut(first, REASON_CHARS)}; "
                       f"`verstehen schema --check {path}` says all", path)
    status, found = store.status(), ""
    if status in ("interrupted", "failed"):
        why = _short(str(info.get("status_reason") or "")) or "the process stopped"
        then = "to go on" if status == "interrupted" else "once that is fixed"
        found = f"{why}; {then}: {store.resume_command()}"
    elif status == "done" and (path / "summary.json").is_file():
        try:
            kind = kind_of(path)
        except UserError:
            kind = ""
        if (declared := registry.run_kind(kind)) is not None:  # the method's own headline
            try:
                result = load_result(declared.result, path)
            except UserError:
                found = "summary from an older version"
            else:
                found = declared.headline(result)
                if getattr(result, "failed_calls", 0):
                    status = f"{plural(result.failed_calls, 'call')} failed"
    return RunLine(info.get("run_id", path.name), command, _models(info), status, found, path)


def list_runs(runs_dir: Path | str | None = None) -> list[RunLine]:
    """Every run folder directly under the runs folder, oldest first."""
    folder = Path(runs_dir) if runs_dir is not None else default_runs_dir()
    if not folder.is_dir():
        raise UserError(f"no runs folder at {folder.absolute()}: run folders are made under "
                        "./runs of the folder a command ran in; go there, or pass --runs-dir "
                        "PATH (or set VERSTEHEN_RUNS_DIR)")
    return [run_line(p) for p in sorted(folder.iterdir()) if (p / "run.json").is_file()]
