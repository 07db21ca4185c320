"""The typed result of a certification run (summary.json is `to_dict()`); the per-scope pieces
live in scope_result.py and are imported from here too."""

from __future__ import annotations

from dataclasses import dataclass

from verstehen.methods.certification.scope_result import FamilyScore as FamilyScore
from verstehen.methods.certification.scope_result import RephraseCheck as RephraseCheck
from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.methods.certification.text import scope_lines, verdict_table
from verstehen.methods.certification.verdict import Criterion, Verdict
from verstehen.results import RunOutcome
from verstehen.text.display import Display, Table


@dataclass(frozen=True)
class CertifyResult(Display, RunOutcome):
    """A certification run: one model, one criterion, one verdict per scope, the run folder."""

    json_order = ("run_dir", "model", "criterion", "scopes", "seconds", "usage")
    model: str
    criterion: Criterion
    scopes: tuple[ScopeResult, ...]

    @property
    def verdict(self) -> Verdict | None:
        """The verdict of the run's only scope (None when its calls failed)."""
        if len(self.scopes) != 1:
            raise ValueError(f"this run certified {len(self.scopes)} scopes: read "
                             ".scopes[i].verdict (or .verdicts)")
        return self.scopes[0].verdict

    @property
    def verdicts(self) -> dict[str, Verdict | None]:
        """Each scope's verdict, by scope name."""
        return {s.scope: s.verdict for s in self.scopes}

    @property
    def failed_calls(self) -> int:
        """Calls that failed after every retry, over all scopes (a rerun tries them again)."""
        return sum(s.failed_calls for s in self.scopes)

    def text(self) -> str:
        """What `verstehen certify` prints: the verdicts' table, then each verdict in words with
        what it rests on, then where the records are."""
        verdicts = self.tables()[0]
        parts = [f"{verdicts.title}\n{verdicts.text()}",
                 *("\n".join(scope_lines(scope)) for scope in self.scopes),
                 f"records: {self.run_dir}/records.jsonl ({self.seconds} s)"]
        return "\n\n".join(parts)

    def tables(self) -> list[Table]:
        """The verdicts' table."""
        return [verdict_table(self.model, self.criterion, self.scopes)]
