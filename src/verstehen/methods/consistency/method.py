"""Conceptual consistency (Sahu et al. 2023) as `verstehen` knows it: `verstehen consistency`
and the run folders it makes."""

from __future__ import annotations

from verstehen.methods.consistency import html
from verstehen.methods.consistency.cli import add_parsers
from verstehen.methods.consistency.options import ConsistencyOptions, consistency
from verstehen.methods.consistency.records import ConsistencyConfig, Record
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.rows import CONSISTENCY_ROWS
from verstehen.methods.contract import Method, RunKind
from verstehen.report.html import num

CONSISTENCY = RunKind(
    words=("consistency",), result=ConsistencyResult, section=html.section,
    compare=html.compare, options=ConsistencyOptions, api=consistency, rows=CONSISTENCY_ROWS,
    records=Record, config=ConsistencyConfig,
    headline=lambda r: (f"CC {num(r.consistency.cc)} [{num(r.consistency.cc_low)}, "
                        f"{num(r.consistency.cc_high)}]"))
METHOD = Method("consistency", add_parsers, (CONSISTENCY,), help_place=90)
