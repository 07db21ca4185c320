"""`verstehen report RUN...`: one self-contained HTML page from run folders of any method.

Each folder is drawn by its method's section (found by the command in its run.json); folders
of one kind from several runs are also shown side by side first; an audit folder brings the
sections of its lens folders after its own table.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

from verstehen.auditing import html as audit_html
from verstehen.engine.store import RunStore
from verstehen.engine.store.safe_files import (
    exists_unfollowed,
    is_regular,
    kind_of_file,
    replace_atomically,
)
from verstehen.errors import UserError
from verstehen.methods.certification import html as certification_html
from verstehen.methods.consistency import html as consistency_html
from verstehen.methods.imagination import html as imagination_html
from verstehen.methods.potemkin import html as potemkin_html
from verstehen.report.html import Page

REPORT_FILE = "report.html"
Section = Callable[[Path, Page], object]
Compare = Callable[[Sequence[Path], Page], None]

# kind -> (the section of one folder, the side-by-side view of several, or None)
KINDS: dict[str, tuple[Section, Compare | None]] = {
    "audit": (audit_html.section, None),
    "certify": (certification_html.section, certification_html.compare),
    "potemkin-run": (potemkin_html.run_section, potemkin_html.compare),
    "potemkin-incoherence": (potemkin_html.incoherence_section, None),
    "potemkin-selfjudge": (potemkin_html.selfjudge_section, None),
    "imagine-generate": (imagination_html.generate_section, None),
    "imagine-answer": (imagination_html.answer_section, imagination_html.compare),
    "consistency": (consistency_html.section, consistency_html.compare),
}


def kind_of(run: Path) -> str:
    """Which section draws a run folder: its command, except that an `audit` folder written
    before audits had subjects is a certification run."""
    info = RunStore.existing(Path(run)).info()
    command = info.get("command", "")
    if command == "audit" and "subjects" not in info.get("config", {}):
        return "certify"
    if command not in KINDS:
        raise UserError(f"{run} is a {command!r} run, which the report does not draw: give "
                        f"folders of {', '.join(sorted(KINDS))}")
    return command


def build_page(runs: Sequence[Path | str]) -> Page:
    """The page of the run folders, in the order given."""
    folders = [Path(r) for r in runs]
    if not folders:
        raise UserError("give at least one run folder (see `verstehen runs`)")
    kinds = [kind_of(f) for f in folders]
    page = Page("verstehen report: " + ", ".join(dict.fromkeys(kinds)))
    for kind in dict.fromkeys(kinds):
        same = [f for f, k in zip(folders, kinds, strict=True) if k == kind]
        compare = KINDS[kind][1]
        if compare is not None and len(same) > 1:
            compare(same, page)
    for folder, kind in zip(folders, kinds, strict=True):
        KINDS[kind][0](folder, page)
        if kind == "audit":
            _lens_sections(folder, page)
    return page


def _lens_sections(audit: Path, page: Page) -> None:
    """The sections of an audit's lens folders (certification, definitions, incoherence)."""
    for model_dir in sorted(p for p in audit.iterdir() if p.is_dir() and not p.is_symlink()):
        for lens in sorted(p for p in model_dir.iterdir()
                           if not p.is_symlink() and is_regular(p / "summary.json")):
            KINDS[kind_of(lens)][0](lens, page)


def write_report(runs: Path | str | Sequence[Path | str], out: Path | str | None = None) -> Path:
    """Write one self-contained HTML page of run folders; its path (default RUN/report.html
    for one folder, ./report.html for several). It replaces the file atomically, and refuses
    a link, FIFO or folder at that path rather than write through it."""
    folders = [Path(runs)] if isinstance(runs, (str, Path)) else [Path(r) for r in runs]
    page = build_page(folders)
    path = Path(out) if out is not None else (
        folders[0] / REPORT_FILE if len(folders) == 1 else Path(REPORT_FILE))
    if exists_unfollowed(path) and not is_regular(path):  # never written through a link
        raise UserError(f"{path} is {kind_of_file(os.lstat(path).st_mode)}: the report is not "
                        "written through it; remove it, or pass -o with another path")
    try:
        replace_atomically(path, page.html().encode("utf-8"))
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror or exc}): pass -o with a "
                        "writable path") from None
    return path
