"""Which kind a run folder is, and how that kind is exported: the exporter names no method, it
asks the registry for the folder's run kind and the kind for its `RunRows`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.rows import RunRows, SampleRow


def kind_of(run_dir: Path) -> tuple[RunKind[Any], dict[str, Any]]:
    """The run kind of a folder (as the method that makes it declares it) and its run.json;
    UserError when it is not a run folder or no method makes its kind."""
    info = RunStore.existing(Path(run_dir)).info()
    command = info.get("command", "")
    declared = registry.run_kind(command)
    if declared is not None and declared.drawn_as is not None:
        declared = registry.run_kind(declared.drawn_as(info))
    if declared is None:
        known = sorted(k.kind for k in registry.run_kinds())
        raise UserError(f"{run_dir} is a {command!r} run, which no method knows: give folders "
                        f"of {', '.join(known)}")
    return declared, info


def rows_of(kind: RunKind[Any]) -> RunRows:
    """How run folders of `kind` are exported (UserError: its method declares no way)."""
    if kind.rows is None:
        raise UserError(f"{kind.kind} run folders cannot be exported: their method declares "
                        "no rows")
    return kind.rows


def run_id_of(run_dir: Path | str, info: Mapping[str, Any]) -> str:
    """A run's id as its run.json keeps it (a folder whose run.json has none: its name), the
    same wherever the folder is moved."""
    return str(info.get("run_id") or Path(run_dir).name)


def folder_rows(run_dir: Path | str) -> tuple[str, list[SampleRow]]:
    """A finished run folder's id and questions asked, as rows (UserError when it is not
    one)."""
    kind, info = kind_of(Path(run_dir))
    return run_id_of(run_dir, info), rows_of(kind).rows(Path(run_dir))
