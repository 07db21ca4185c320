"""The typed result of a conceptual-consistency run (summary.json is `to_dict()`)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from verstehen.methods.consistency.summary import ConsistencySummary
from verstehen.methods.consistency.text import (
    base_rate_warning,
    cc_line,
    consistency_tables,
    summary_text,
)
from verstehen.results import RunOutcome
from verstehen.text.display import Display, Table


@dataclass(frozen=True)
class ConsistencyResult(Display, ConsistencySummary, RunOutcome):
    """A conceptual-consistency run: the summary of its records (CC in `.consistency`, the
    tables in `.by_relation`, `.by_concept` and `.bias`), its run folder and figures (paper
    Figures 5 and 6), its wall seconds and the calls and tokens of the model."""

    json_order = (*(f.name for f in fields(ConsistencySummary)), "run_dir", "relations_png",
                  "bias_png", "seconds", "usage")
    relations_png: Path
    bias_png: Path

    def text(self) -> str:
        """What `verstehen consistency` prints: every table, the seconds and the run folder."""
        return f"{summary_text(self)}\n\n{self.seconds} s; records and figures in {self.run_dir}"

    def tables(self) -> list[Table]:
        """The yes/no bias, per-relation and per-concept tables."""
        return consistency_tables(self)

    def headline(self) -> str:
        """CC with its interval, n and base rate (and when CC says nothing, the warning)."""
        warning = base_rate_warning(self.consistency)
        return cc_line(self.consistency) + (f"; {warning}" if warning else "")
