"""Published JSON Schemas (draft 2020-12) of run folders: run.json, a line of records.jsonl and
summary.json for each kind of run folder, made from the typed results and records (never
written by hand), versioned (`SCHEMA_VERSION` in each `$id`), and a checker of folders against
them (`verstehen schema`, `check_run`)."""

from verstehen.engine.store.files import SCHEMA_VERSION
from verstehen.schema.documents import kind_schema, kind_schemas, records_type, schema_id
from verstehen.schema.folders import check_run, require_fit
from verstehen.schema.run_json import RunJson

__all__ = ["SCHEMA_VERSION", "RunJson", "check_run", "kind_schema", "kind_schemas",
           "records_type", "require_fit", "schema_id"]
