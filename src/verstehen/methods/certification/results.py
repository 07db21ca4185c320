"""The typed result of a certification run (summary.json is `to_dict()`); the per-scope pieces
live in scope_result.py and are imported from here too."""

from __future__ import annotations

from dataclasses import dataclass, field

from verstehen.methods.certification.scope_result import FamilyScore as FamilyScore
from verstehen.methods.certification.scope_result import RephraseCheck as RephraseCheck
from verstehen.methods.certification.scope_result import ScopeResult as ScopeResult
from verstehen.methods.certification.text import scope_lines, verdict_table
from verstehen.methods.certification.verdict import Criterion, Verdict, tally
from verstehen.results import RunOutcome, omitted_at_default
from verstehen.text.display import Display, Table
from verstehen.text.tables import plural


@dataclass(frozen=True)
class CertifyResult(Display, RunOutcome):
    """A certification run: its models, one criterion, one verdict per (model, scope), the run
    folder. `model` names the model (of several: their names, comma-separated, as a label);
    `models` lists the models of a run of several (empty for a run of one, whose summary.json
    keeps the shape it always had); `scopes` holds each model's verdicts, model by model in
    the order given, each naming its model in a run of several."""

    json_order = ("run_dir", "model", "criterion", "scopes", "seconds", "usage", "models")
    model: str
    criterion: Criterion
    scopes: tuple[ScopeResult, ...]
    models: tuple[str, ...] = field(default=(), metadata=omitted_at_default())

    @property
    def model_names(self) -> tuple[str, ...]:
        """The models certified, in the order given."""
        return self.models or (self.model,)

    def model_of(self, scope: ScopeResult) -> str:
        """The model a scope's verdict is of."""
        return scope.model or self.model

    @property
    def verdict(self) -> Verdict | None:
        """The verdict of the run's only (model, scope) (None when its calls failed)."""
        if len(self.scopes) != 1:
            models = len(self.model_names)
            scopes = len({s.scope for s in self.scopes})
            what = (f"{models} models on {scopes} scope{'s' * (scopes != 1)}" if models > 1
                    else f"{len(self.scopes)} scopes")
            raise ValueError(f"this run certified {what}: read .scopes[i].verdict (or "
                             f"{'.verdicts_by_model' if models > 1 else '.verdicts'})")
        return self.scopes[0].verdict

    @property
    def verdicts(self) -> dict[str, Verdict | None]:
        """Each scope's verdict, by scope name (a run of one model; of several, read
        `verdicts_by_model`)."""
        if len(self.model_names) > 1:
            raise ValueError(f"this run certified {len(self.model_names)} models: read "
                             ".verdicts_by_model[model][scope]")
        return {s.scope: s.verdict for s in self.scopes}

    @property
    def verdicts_by_model(self) -> dict[str, dict[str, Verdict | None]]:
        """Each model's verdict on each scope: `[model][scope]`."""
        out: dict[str, dict[str, Verdict | None]] = {m: {} for m in self.model_names}
        for s in self.scopes:
            out.setdefault(self.model_of(s), {})[s.scope] = s.verdict
        return out

    def headline(self) -> str:
        """The verdict, with its bounds and criterion; of several, how many of each."""
        c = self.criterion
        if len(self.scopes) != 1:
            return (f"{self.model}: {len(self.scopes)} verdicts: "
                    f"{tally(s.verdict.decision if s.verdict else None for s in self.scopes)} "
                    f"(PG {c.pg:g}, RID {c.rid:.3g}, δ {c.delta:g})")
        scope = self.scopes[0]
        if scope.verdict is None:
            return (f"{self.model} on {scope.scope}: no verdict "
                    f"({plural(scope.failed_calls, 'failed call')}; rerun to retry)")
        return f"{self.model} on {scope.scope}: {scope.verdict}"

    @property
    def failed_calls(self) -> int:
        """Calls that failed after every retry, over all scopes (a rerun tries them again)."""
        return sum(s.failed_calls for s in self.scopes)

    def text(self) -> str:
        """What `verstehen certify` prints: the verdicts' table, then each verdict in words with
        what it rests on, then where the records are."""
        verdicts = self.tables()[0]
        several = len(self.model_names) > 1
        parts = [f"{verdicts.title}\n{verdicts.text()}",
                 *("\n".join(scope_lines(scope, self.model_of(scope) if several else None))
                   for scope in self.scopes),
                 f"records: {self.run_dir}/records.jsonl ({self.seconds} s)"]
        return "\n\n".join(parts)

    def tables(self) -> list[Table]:
        """The verdicts' table (a model column first when the run certified several)."""
        several = len(self.model_names) > 1
        return [verdict_table(self.model, self.criterion, self.scopes,
                              [self.model_of(s) for s in self.scopes] if several else None)]
