"""Potemkin understanding (Mancoridis et al. 2025) as `verstehen` knows it: `verstehen
potemkin` and `verstehen annotate`, and the run folders of `potemkin run`, `potemkin
incoherence` and `potemkin selfjudge`."""

from __future__ import annotations

from collections import Counter

from verstehen.methods.contract import Method, RunKind
from verstehen.methods.potemkin import html
from verstehen.methods.potemkin.api import potemkin_incoherence, potemkin_run, potemkin_selfjudge
from verstehen.methods.potemkin.cli import EXPORT, IMPORT, SCORE
from verstehen.methods.potemkin.lines import (
    IncoherenceConfig,
    PairRecord,
    PotemkinRunConfig,
    RunLine,
    SelfjudgeConfig,
    SelfJudgeLine,
)
from verstehen.methods.potemkin.options import (
    PotemkinIncoherenceOptions,
    PotemkinRunOptions,
    PotemkinSelfjudgeOptions,
    run_incoherence_options,
    run_potemkin_options,
    run_selfjudge_options,
)
from verstehen.methods.potemkin.results import (
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.rows import INCOHERENCE_ROWS, RUN_ROWS, SELFJUDGE_ROWS
from verstehen.report.html import num


def keystone_counts(result: PotemkinRunResult) -> str:
    """How the definitions were graded, commonest first ("definitions 3 right, 1 wrong")."""
    counts = Counter({True: "right", False: "wrong", None: "ungraded"}[k.keystone]
                     for k in result.keystones)
    return "definitions " + ", ".join(f"{n} {w}" for w, n in counts.most_common())


RUN = RunKind(words=("potemkin", "run"), result=PotemkinRunResult, section=html.run_section,
              compare=html.compare, headline=keystone_counts, options=PotemkinRunOptions,
              entry=run_potemkin_options, api=potemkin_run,
              help="define, classify, generate, edit per concept; tables", rows=RUN_ROWS,
              records=RunLine, config=PotemkinRunConfig,
              example="verstehen.methods.potemkin.example:run_example")
INCOHERENCE = RunKind(
    words=("potemkin", "incoherence"), result=PotemkinIncoherenceResult,
    section=html.incoherence_section,
    headline=lambda r: f"incoherence {num(r.overall.incoherence)} (n={r.overall.n})",
    options=PotemkinIncoherenceOptions, entry=run_incoherence_options, api=potemkin_incoherence,
    help="generate an (non-)instance, then classify it: 2 x mismatch rate", rows=INCOHERENCE_ROWS,
    records=PairRecord, config=IncoherenceConfig,
    example="verstehen.methods.potemkin.example:incoherence_example")
SELFJUDGE = RunKind(
    words=("potemkin", "selfjudge"), result=PotemkinSelfjudgeResult, section=html.selfjudge_section,
    headline=lambda r: f"potemkin rate at least {num(r.potemkin_rate)}",
    options=PotemkinSelfjudgeOptions, entry=run_selfjudge_options, api=potemkin_selfjudge,
    help="lower bound: the model judges its own answers to related questions", rows=SELFJUDGE_ROWS,
    records=SelfJudgeLine, config=SelfjudgeConfig,
    example="verstehen.methods.potemkin.example:selfjudge_example")
METHOD = Method(
    "potemkin", (RUN, INCOHERENCE, SELFJUDGE), help_place=70, own=(SCORE, EXPORT, IMPORT),
    groups={"potemkin": "potemkin understanding: define a concept, then fail to use it "
                        "(Mancoridis et al. 2025)",
            "annotate": "label a potemkin run's answers by hand"},
    order=(RUN.words, SCORE.words, INCOHERENCE.words, SELFJUDGE.words, EXPORT.words,
           IMPORT.words))
