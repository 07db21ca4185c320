"""An audit folder read back into its result: each lens's run folder summarized, then one line
per (model, target). Recomputed from the folders, so labels imported into the Potemkin run
(`verstehen annotate import`) show in the next summary and report."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import NotRequired, TypedDict

from verstehen.auditing.plan import Target
from verstehen.auditing.results import AuditResult, Evidence, LensRuns, TargetAudit
from verstehen.domains.catalog import canonical_name
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.methods.certification.procedure import deciding
from verstehen.methods.certification.records import AnswerRecord, is_answer
from verstehen.methods.certification.results import CertifyResult, ScopeResult
from verstehen.methods.certification.verdict import DOUBLING, Criterion, Decision
from verstehen.methods.potemkin.incoherence import COMMAND as INCOHERENCE
from verstehen.methods.potemkin.incoherence import checked, incoherence
from verstehen.methods.potemkin.lines import PairRecord, pair_lines
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.potemkin.run import COMMAND as POTEMKIN
from verstehen.methods.potemkin.stats import UseRecord, potemkin_rates
from verstehen.results import from_jsonable, load_result
from verstehen.text.terminal import cut

COMMAND = "audit"
CERTIFY = "certify"
EVIDENCE = 3        # answers shown per target
SHORT = 300         # characters of a question or answer kept in the evidence


class TargetConfig(TypedDict):
    """One target as an audit's run.json records it (enough to summarize without the
    catalog; `concept`: asked to define and to make examples)."""

    key: str
    name: str
    subject: str
    scope: str
    concept: bool


class AuditConfig(TypedDict):
    """An audit's run.json config: what was audited, on what, and how (`models` as their
    columns are named, `model_urls` where each was called, None for its provider's own)."""

    models: list[str]
    subjects: list[str]
    targets: list[TargetConfig]
    pg: float
    rid: float
    delta: float
    max_questions: int
    first_look: int
    sequential_test: NotRequired[str]  # the betting test; none named: the doubling test
    rephrase: int
    examples: int
    max_tokens: int | None
    phrasings: str
    judge: str | None
    base_url: str | Sequence[str] | None
    model_urls: list[str | Sequence[str] | None]
    judge_base_url: str | Sequence[str] | None


def model_folder(audit_dir: Path, model: str) -> Path:
    """Where one model's lens runs live inside the audit folder."""
    return Path(audit_dir) / re.sub(r"[^A-Za-z0-9._-]+", "-", model)


def lens_runs(audit_dir: Path, model: str) -> LensRuns:
    """The newest run folder of each lens for one model (certify must be there)."""
    found: dict[str, Path] = {}
    folder = model_folder(audit_dir, model)
    try:
        runs = sorted(folder.iterdir()) if folder.is_dir() else []
    except OSError:  # a name no folder can have (too long): no lens folder
        runs = []
    for run in runs:
        if (run / "run.json").is_file():
            found[RunStore(run).info().get("command", "")] = run
    if CERTIFY not in found:
        raise UserError(f"{cut(str(folder))} holds no certification run: the audit was stopped "
                        "before its first answer; rerun the audit (answered calls come from the "
                        "cache)")
    return LensRuns(model, found[CERTIFY], found.get(POTEMKIN), found.get(INCOHERENCE))


def _short(text: str | None) -> str:
    text = (text or "").strip()
    return text if len(text) <= SHORT else text[:SHORT - 1] + "…"


def _evidence(answers: list[AnswerRecord], decision: Decision | None) -> tuple[Evidence, ...]:
    """The first few answers the verdict rests on, plain wrong answers first, then in the order
    asked (not the order the replies came back in, which varies with concurrency)."""
    chosen = sorted(deciding(answers, decision),
                    key=lambda r: (r["score"] != 0.0, r["outcome"] != "wrong",
                                   r["index"]))[:EVIDENCE]
    return tuple(Evidence(str(r["family"]), _short(r["prompt"]), _short(r["text"] or r["error"]),
                          r["outcome"], r["score"], r["reason"]) for r in chosen)


def _use_records(model: str, subject: str, name: str,
                 answers: list[AnswerRecord]) -> list[UseRecord]:
    """Certification answers as Potemkin use answers (given a right definition); one the
    model gave no readable answer in (unparsed, or cut off at the cap) is unreadable."""
    return [UseRecord(model, subject, name, str(r["family"]), True,
                      None if r["outcome"] in ("unparsed", "truncated") else r["score"] == 1.0)
            for r in answers if r["error"] is None]


def _target_line(target: TargetConfig, model: str, scope: ScopeResult | None,
                 answers: list[AnswerRecord], keystones: dict[str, bool | None],
                 pairs: list[PairRecord] | None) -> TargetAudit:
    keystone = keystones.get(target["key"]) if target["concept"] else None
    concept_pairs = [p for p in pairs or [] if canonical_name(p["concept"]) == target["key"]]
    return TargetAudit(
        model=model, key=target["key"], name=target["name"], subject=target["subject"],
        scope=target["scope"], verdict=scope.verdict if scope else None,
        asked=scope.asked if scope else 0, by_task=scope.by_family if scope else {},
        keystone=keystone,
        potemkin=potemkin_rates(_use_records(model, target["subject"], target["name"], answers))
        if keystone else {},
        incoherence=incoherence(concept_pairs) if concept_pairs else None,
        checker_wrong=checked(concept_pairs).wrong if concept_pairs else None,
        evidence=_evidence(answers, scope.verdict.decision if scope and scope.verdict else None),
        truncated=scope.outcomes.get("truncated", 0) if scope else 0)


def _certified(run: Path) -> CertifyResult | None:
    if not (run / "summary.json").is_file():
        return None  # stopped before the end: no verdicts, the answers are in the cache
    return load_result(CertifyResult, run)


def summarize_audit(audit_dir: Path, *, seconds: float | None = None,
                    usage: dict[str, ModelUsage] | None = None,
                    write: bool = True) -> AuditResult:
    """The audit's result from its folder (written as its summary.json unless `write` is
    False); seconds and usage come from the asking run (kept from summary.json when not
    given)."""
    store = RunStore.existing(Path(audit_dir))
    info = store.info()
    if info.get("command") != COMMAND:
        raise UserError(f"{audit_dir} is not an audit folder (its command is "
                        f"{info.get('command')!r})")
    config: AuditConfig = info["config"]
    before_path = store.path / "summary.json"
    if seconds is None and before_path.is_file():
        before = json.loads(before_path.read_text(encoding="utf-8"))
        seconds = before.get("seconds")
        if before.get("usage") is not None:  # keys a ModelUsage does not have are left out
            usage = from_jsonable(dict[str, ModelUsage], before["usage"])
    # names as verstehen spells them now: an audit from before `literary` became `poetry` too
    targets = [TargetConfig(key=canonical_name(t["key"]), name=t["name"],
                            subject=canonical_name(t["subject"]),
                            scope=canonical_name(t["scope"]), concept=t["concept"])
               for t in config["targets"]]
    try:
        criterion = Criterion(config["pg"], config["rid"], config["delta"])
    except ValueError as exc:
        raise UserError(f"{store.path / 'run.json'}: $.config: {exc}: the folder was edited or "
                        "is not verstehen's") from None
    lines: list[TargetAudit] = []
    runs: list[LensRuns] = []
    failed = 0
    for model in config["models"]:
        lenses = lens_runs(store.path, model)
        runs.append(lenses)
        certified = _certified(lenses.certify)
        scopes = {s.scope: s for s in certified.scopes} if certified else {}
        failed += certified.failed_calls if certified else 0
        answers: dict[str, list[AnswerRecord]] = {}
        for record in RunStore(lenses.certify).records():
            if is_answer(record) and record["kind"] == "answer":
                answers.setdefault(record["scope"], []).append(record)
        keystones: dict[str, bool | None] = {}
        if lenses.potemkin is not None and (lenses.potemkin / "summary.json").is_file():
            potemkin = load_result(PotemkinRunResult, lenses.potemkin)  # current after labels
            keystones = {canonical_name(k.concept): k.keystone for k in potemkin.keystones}
            failed += potemkin.failed_calls
        pairs = None
        if lenses.incoherence is not None:
            made = pair_lines(RunStore(lenses.incoherence).records())
            pairs = [r for r in made if r["error"] is None]
            failed += len(made) - len(pairs)
        for target in targets:
            lines.append(_target_line(target, model, scopes.get(target["scope"]),
                                      answers.get(target["scope"], []), keystones, pairs))
    result = AuditResult(
        run_dir=store.path, models=tuple(config["models"]),
        subjects=tuple(canonical_name(s) for s in config["subjects"]),
        criterion=criterion,
        max_questions=config["max_questions"], first_look=config["first_look"],
        judge=config["judge"], targets=tuple(lines), runs=tuple(runs),
        definitions_waiting=sum(t.is_concept and t.keystone is None for t in lines),
        failed_calls=failed, seconds=seconds, usage=usage,
        sequential_test=config.get("sequential_test", DOUBLING))
    if write:
        store.write_summary(result.to_dict())
    return result


def target_configs(targets: Sequence[Target]) -> list[TargetConfig]:
    """The targets as run.json records them (enough to summarize without the catalog)."""
    return [TargetConfig(key=t.key, name=t.name, subject=t.subject, scope=t.scope,
                         concept=t.concept is not None) for t in targets]
