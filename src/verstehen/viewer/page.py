"""`verstehen report RUN...`: one self-contained HTML page from run folders of any method.

Each folder is drawn by its method's section (found by the command in its run.json); folders
of one kind from several runs are also shown side by side first (audits: every model of each in
one figure and one table); an audit folder brings the sections of its lens folders after its
own figures and table.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.engine.store import RunStore
from verstehen.engine.store.safe_files import write_file
from verstehen.errors import UserError
from verstehen.methods import registry
from verstehen.methods.contract import RunKind
from verstehen.report.html import Page
from verstehen.schema.folders import require_fit
from verstehen.viewer.default_section import default_section

REPORT_FILE = "report.html"


def kind_of(run: Path) -> str:
    """Which section draws a run folder: its command's run kind (as the method that makes it
    declares it), or the one that kind says an older folder of its command is."""
    info = RunStore.existing(Path(run)).info()
    command = info.get("command", "")
    declared = registry.run_kind(command)
    if declared is None:
        known = sorted(k.kind for k in registry.run_kinds())
        raise UserError(f"{run} is a {command!r} run, which the report does not draw: give "
                        f"folders of {', '.join(known)}")
    return declared.drawn_as(info) if declared.drawn_as is not None else declared.kind


def _declared(kind: str) -> RunKind[Any]:
    """The run kind `kind_of` named."""
    declared = registry.run_kind(kind)
    assert declared is not None, kind
    return declared


def _draw(kind: RunKind[Any], folder: Path, page: Page) -> None:
    """One folder's section: the kind's own, else its result's values as a table."""
    if kind.section is None:
        default_section(kind, folder, page)
    else:
        kind.section(folder, page)


def build_page(runs: Sequence[Path | str]) -> Page:
    """The page of the run folders, in the order given."""
    folders = [Path(r) for r in runs]
    if not folders:
        raise UserError("give at least one run folder (see `verstehen runs`)")
    kinds = [kind_of(f) for f in folders]
    for folder in folders:  # each fits its kind's published schema, or one line says where not
        require_fit(folder)
    page = Page("verstehen report: " + ", ".join(dict.fromkeys(kinds)))
    for kind in dict.fromkeys(kinds):
        same = [f for f, k in zip(folders, kinds, strict=True) if k == kind]
        compare = _declared(kind).compare
        if compare is not None and len(same) > 1:
            compare(same, page)
    for folder, kind in zip(folders, kinds, strict=True):
        declared = _declared(kind)
        _draw(declared, folder, page)
        for inner in declared.inner_runs(folder) if declared.inner_runs is not None else ():
            _draw(_declared(kind_of(inner)), inner, page)  # e.g. an audit's lens folders
    return page


def write_report(runs: Path | str | Sequence[Path | str], out: Path | str | None = None) -> Path:
    """Write one self-contained HTML page of run folders; its path (default RUN/report.html
    for one folder, ./report.html for several). It replaces the file atomically, and refuses
    a link, FIFO or folder at that path rather than write through it."""
    folders = [Path(runs)] if isinstance(runs, (str, Path)) else [Path(r) for r in runs]
    page = build_page(folders)
    path = Path(out) if out is not None else (
        folders[0] / REPORT_FILE if len(folders) == 1 else Path(REPORT_FILE))
    return write_file(path, page.html(), "remove it, or pass -o with another path")
