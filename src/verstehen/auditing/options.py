"""The parameters of `verstehen audit` and `audit()`, declared once: the API function's
signature and the command's flags both come from `AuditOptions`."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from verstehen.auditing.plan import (
    DEFAULT_FIRST_LOOK,
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_SUBJECT,
    AuditPlan,
    make_plan,
    subject_names,
)
from verstehen.errors import UserError
from verstehen.methods.certification.parameters import sequential_test_option
from verstehen.methods.certification.plan import DEFAULT_DELTA, DEFAULT_PG, DEFAULT_RID
from verstehen.methods.certification.scopes.draw import PHRASINGS
from verstehen.methods.options import (
    COUNT,
    COUNT_OR_ZERO,
    PROBABILITY,
    Options,
    max_tokens_option,
    option,
    options_class,
    seed_option,
)
from verstehen.models import DEFAULT_MODEL, Model
from verstehen.models.served_at import split_at_url
from verstehen.readers import base_url, model_name


def served_model(text: str) -> str:
    """A model name `provider/model`, or `provider/model@URL` for an openai/ or anthropic/
    model at its own server (the URL checked as --base-url's is)."""
    try:
        name, _ = split_at_url(model_name(text))
    except UserError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    model_name(name)
    return text


@options_class
class AuditOptions(Options):
    """The parameters of `verstehen audit` and `audit()`: the models, what they are audited
    on, the criterion, the budget per target and the extras per concept."""

    models: str | Model | Sequence[str | Model] = option(
        default=DEFAULT_MODEL, flag="--model", read=served_model, many=True, metavar="MODEL",
        kw_only=False,
        help="repeatable: models side by side (default {default}); NAME@URL calls one at its "
             "own OpenAI- or Anthropic-compatible server, e.g. "
             "openai/m@http://127.0.0.1:8000/v1 (others served go to --base-url; local/ "
             "models ignore --base-url)")
    subjects: str | Sequence[str] | None = option(
        default=DEFAULT_SUBJECT, flag="--subject", aliases=("--scope",), many=True,
        metavar="SUBJECT",
        help=f"repeatable: {', '.join(subject_names(plugins=False))}, an installed plugin "
             "domain, or a concept key from `verstehen concepts --exact` (default {default})")
    judge: str | Model | None = option(
        default=None, read=served_model,
        help="provider/model grading the definitions (else people do, with `verstehen "
             "annotate`); NAME@URL for one at its own server")
    judge_base_url: str | None = option(
        default=None, read=base_url,
        help="server of the judge model (when not given as NAME@URL)")
    pg: float = option(default=DEFAULT_PG, range=PROBABILITY, help="passing grade")
    rid: float = option(default=DEFAULT_RID, range=PROBABILITY,
                        help="highest tolerable rate of ridiculous answers (default {default}: "
                             "a concept's wrong answers all score 0)")
    delta: float = option(default=DEFAULT_DELTA, range=PROBABILITY,
                          help="a decisive verdict is wrong with probability at most δ")
    max_questions: int = option(
        default=DEFAULT_MAX_QUESTIONS, range=COUNT,
        help="budget per target of the sequential test (default {default}; a target stops "
             "early once decided, or once 'understands' is out of reach)")
    first_look: int = option(default=DEFAULT_FIRST_LOOK, range=COUNT,
                             help="first look of the sequential test")
    sequential_test: str | None = sequential_test_option("looks 8, 16, 32", "audits")
    rephrase: int = option(default=0, range=COUNT_OR_ZERO, metavar="K",
                           help="ask K questions per target again in another phrasing "
                                "(default {default})")
    phrasings: str = option(default="benchmark", choices=PHRASINGS,
                            help="{default} (default): a concept's questions in the Potemkin "
                                 "benchmark's wording; all: a wording drawn per question")
    examples: int = option(default=1, range=COUNT_OR_ZERO, metavar="N",
                           help="incoherence: N instances and N non-instances per concept "
                                "(default {default}; 0 skips)")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()

    def plan(self) -> AuditPlan:
        """The checked plan of these options (a bad subject, or a first look beyond the
        budget, is a UserError before any model is loaded)."""
        return make_plan(self.subjects, pg=self.pg, rid=self.rid, delta=self.delta,
                         max_questions=self.max_questions, first_look=self.first_look,
                         rephrase=self.rephrase, examples=self.examples, seed=self.seed,
                         max_tokens=self.max_tokens, phrasings=self.phrasings,
                         sequential_test=self.sequential_test)

    def model_list(self) -> list[str | Model]:
        """The models side by side, as a list (one given alone is a list of one)."""
        return [self.models] if isinstance(self.models, (str, Model)) else list(self.models)
