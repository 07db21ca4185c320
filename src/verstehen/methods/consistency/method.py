"""Conceptual consistency (Sahu et al. 2023) as `verstehen` knows it: `verstehen consistency`
and the run folders it makes."""

from __future__ import annotations

from verstehen.methods.consistency import html
from verstehen.methods.consistency.options import ConsistencyOptions, consistency, run_options
from verstehen.methods.consistency.records import ConsistencyConfig, Record
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.rows import CONSISTENCY_ROWS
from verstehen.methods.contract import Method, RunKind
from verstehen.report.html import num

CONSISTENCY = RunKind(
    words=("consistency",), result=ConsistencyResult, section=html.section,
    compare=html.compare, options=ConsistencyOptions, entry=run_options, api=consistency,
    help="does knowing the background facts predict answering the question? (conceptual "
         "consistency, Sahu et al. 2023)", rows=CONSISTENCY_ROWS,
    records=Record, config=ConsistencyConfig,
    example="verstehen.methods.consistency.example:consistency_example",
    headline=lambda r: (f"CC {num(r.consistency.cc)} [{num(r.consistency.cc_low)}, "
                        f"{num(r.consistency.cc_high)}]"))
METHOD = Method("consistency", (CONSISTENCY,), help_place=90)
