"""The library API: each method in one call, and the typed results they return.

Every function that calls a model is synchronous (inside a running event loop, as in a
notebook, it runs on a worker thread) and has an `_async` twin; each takes the engine settings
as `engine=EngineSettings(...)` (the same settings the CLI's engine flags make: `runs_dir`,
`cache`, `base_url`, `timeout`, `threads`, `max_connections`, ...), or each of them as a
keyword (which replaces that one of `engine`'s), with the CLI's defaults (./runs or
$VERSTEHEN_RUNS_DIR, ~/.cache/verstehen/calls.sqlite or $VERSTEHEN_CACHE); and `resume=` (a run
folder it stopped in, to go on with from its cache). Each writes the same run folder the CLI
writes, so the commands that read run folders (`annotate`, `potemkin score`, `imagine
matrix|analyze`, `report`, `export`) work on it; `records_frame(run_dir)` and
`results_frame(run_dir)` read any run folder into pandas DataFrames (the `frames` extra). A
model is a name (`local/smollm2-135m`, `openai/gpt-4o-mini`) or a Model object. The commands
that call no model have twins here too (`certify_scores`, `bounds`, `plan`): a command's
`--json` is its twin's result's `to_dict()`.
"""

from verstehen.auditing.api import audit, audit_async
from verstehen.auditing.results import AuditResult, TargetAudit
from verstehen.engine.settings import EngineSettings
from verstehen.errors import UserError
from verstehen.export.exported import results_frame
from verstehen.export.frames import records_frame
from verstehen.methods.certification.api import (
    BoundsResult,
    CertifyScoresResult,
    NearbyCriterion,
    PlanResult,
    bounds,
    certify,
    certify_async,
    certify_scores,
    plan,
)
from verstehen.methods.certification.results import CertifyResult, ScopeResult
from verstehen.methods.certification.verdict import Criterion, Decision, Verdict
from verstehen.methods.consistency.api import consistency, consistency_async
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.imagination.api import (
    imagine_analyze,
    imagine_answer,
    imagine_answer_async,
    imagine_generate,
    imagine_generate_async,
    imagine_matrix,
)
from verstehen.methods.imagination.results import (
    ImagineAnalyzeResult,
    ImagineAnswerResult,
    ImagineGenerateResult,
    ImagineMatrixResult,
)
from verstehen.methods.potemkin.api import (
    annotate_export,
    annotate_import,
    potemkin_incoherence,
    potemkin_incoherence_async,
    potemkin_run,
    potemkin_run_async,
    potemkin_score,
    potemkin_selfjudge,
    potemkin_selfjudge_async,
)
from verstehen.methods.potemkin.results import (
    PotemkinIncoherenceResult,
    PotemkinRunResult,
    PotemkinSelfjudgeResult,
)
from verstehen.methods.potemkin.stats import PotemkinScores
from verstehen.models import DEFAULT_MODEL, Model, get_model
from verstehen.viewer.page import write_report
from verstehen.viewer.runs import RunLine, list_runs

__all__ = [
    "DEFAULT_MODEL",
    "AuditResult",
    "BoundsResult",
    "CertifyResult",
    "CertifyScoresResult",
    "ConsistencyResult",
    "Criterion",
    "Decision",
    "EngineSettings",
    "ImagineAnalyzeResult",
    "ImagineAnswerResult",
    "ImagineGenerateResult",
    "ImagineMatrixResult",
    "Model",
    "NearbyCriterion",
    "PlanResult",
    "PotemkinIncoherenceResult",
    "PotemkinRunResult",
    "PotemkinScores",
    "PotemkinSelfjudgeResult",
    "RunLine",
    "ScopeResult",
    "TargetAudit",
    "UserError",
    "Verdict",
    "annotate_export",
    "annotate_import",
    "audit",
    "audit_async",
    "bounds",
    "certify",
    "certify_async",
    "certify_scores",
    "consistency",
    "consistency_async",
    "get_model",
    "imagine_analyze",
    "imagine_answer",
    "imagine_answer_async",
    "imagine_generate",
    "imagine_generate_async",
    "imagine_matrix",
    "list_runs",
    "plan",
    "potemkin_incoherence",
    "potemkin_incoherence_async",
    "potemkin_run",
    "potemkin_run_async",
    "potemkin_score",
    "potemkin_selfjudge",
    "potemkin_selfjudge_async",
    "records_frame",
    "results_frame",
    "write_report",
]
