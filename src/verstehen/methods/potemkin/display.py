"""The tables of the Potemkin printouts as rows of text cells (paper Tables 1 and 6), and
`PotemkinScoresShown`, what `potemkin_score()` returns: the scores of records files with the
display of the other results (the scores' own class lives in stats.py, below report.py)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from verstehen.methods.potemkin.stats import TASKS, PotemkinScores, Table1, Table6
from verstehen.methods.potemkin.text import format_rate, rates_headline, scores_text
from verstehen.text.display import Display, Table


def table1(t1: Table1) -> Table:
    """Paper Table 1: the potemkin rate per model and task."""
    return Table("Potemkin rate per model and task (paper Table 1)", ["model", *TASKS],
                 [[model, *(format_rate(rates[t]) for t in TASKS)] for model, rates in t1.items()])


def table6(t6: Table6) -> Table:
    """Paper Table 6: the potemkin rate per domain, model and task."""
    return Table("Per domain (paper Table 6)", ["domain", "model", *TASKS],
                 [[domain if i == 0 else "", model, *(format_rate(rates[t]) for t in TASKS)]
                  for domain, models in t6.items()
                  for i, (model, rates) in enumerate(models.items())])


def scores_tables(scores: PotemkinScores | None) -> list[Table]:
    """Tables 1 and 6 (none while no use answer is graded)."""
    return [] if scores is None else [table1(scores.table1), table6(scores.table6)]


@dataclass(frozen=True)
class PotemkinScoresShown(Display, PotemkinScores):
    """The scores of records files, shown as `potemkin score` prints them."""

    @classmethod
    def of(cls, scores: PotemkinScores) -> PotemkinScoresShown:
        """The same scores, with their display."""
        return cls(**{f.name: getattr(scores, f.name) for f in fields(scores)})

    def text(self) -> str:
        """What `verstehen potemkin score` prints."""
        return scores_text(self)

    def tables(self) -> list[Table]:
        """Tables 1 and 6."""
        return scores_tables(self)

    def headline(self) -> str:
        """The potemkin rate per task, all models pooled."""
        return rates_headline(self.table1)
