"""Run folders (`RunStore`: run.json, records.jsonl, summary.json), what their files may hold,
what a run is called (`naming`), and the status of the runs this process is making."""

from verstehen.engine.store.files import DROPPED_FILE
from verstehen.engine.store.naming import (
    default_runs_dir,
    new_run_id,
    package_versions,
    without_secrets,
)
from verstehen.engine.store.run import RunStore
from verstehen.engine.store.status import marked_on_error, stop_active_runs, stopped_runs

__all__ = ["DROPPED_FILE", "RunStore", "default_runs_dir", "marked_on_error", "new_run_id",
           "package_versions", "stop_active_runs", "stopped_runs", "without_secrets"]
