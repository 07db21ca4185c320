"""Multiple-choice questions from a Hugging Face dataset in the local cache:
`hf:DATASET[:CONFIG][@REVISION][#SPLIT]`, e.g. `hf:tau/commonsense_qa#validation`,
`hf:cais/mmlu:all@main#test`.

Always offline: HF_HUB_OFFLINE and HF_DATASETS_OFFLINE are set to 1 before `datasets` is
imported, and the rows are read from the build `datasets.load_dataset` left in its cache
(HF_DATASETS_CACHE, else HF_HOME/datasets, else ~/.cache/huggingface/datasets: the folder
`<namespace>___<name>/<config>/<version>/<commit>/`), through the `Cache` builder that
`load_dataset` itself uses offline. Nothing is ever downloaded; a dataset that is not cached is
one line saying how to fetch it on a machine with network.

Defaults: the config is the only one cached (or "default"); the revision is the most recently
built one (as `load_dataset` picks offline); the split is "test", else the only one. REVISION is
a commit (or its first 7+ hex digits) or a branch or tag the hub cache (HF_HUB_CACHE, else
HF_HOME/hub) maps to a commit. The split follows `#`, the one character that no dataset, config
or revision name holds and that a shell reads as a comment only at the start of a word.

Rows: CSQA/ARC columns (question, choices {label, text}, answerKey, id) or MMLU columns
(question, choices, answer, subject), read by the row readers of the local files
(`verstehen.data.items`), so an MMLU row gets the id the same row has in MMLU's csv files.
"""

from __future__ import annotations

import importlib
import json
import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from verstehen.data.items import MCQItem, MCQSource, csqa_item, mmlu_item
from verstehen.errors import UserError

INSTALL = "pip install 'verstehen[hf]'"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_HEX = re.compile(r"[0-9a-f]{7,64}")
_COMMIT = re.compile(r"[0-9a-f]{40}")  # what the hub cache's refs files hold
_REF = re.compile(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*")  # a branch or tag: refs/<it>
# a dataset_info.json past this is no build's description (MMLU's, 114 configs: 200 KB)
MAX_INFO_BYTES = 64 * 2**20
SHAPES = {"CSQA/ARC": ("question", "choices", "answerKey"),
          "MMLU": ("question", "choices", "answer")}


@dataclass(frozen=True)
class HFSpec:
    """A parsed `hf:DATASET[:CONFIG][@REVISION][#SPLIT]`."""

    dataset: str
    config: str | None = None
    revision: str | None = None
    split: str | None = None

    def __str__(self) -> str:
        return (f"hf:{self.dataset}" + (f":{self.config}" if self.config else "")
                + (f"@{self.revision}" if self.revision else "")
                + (f"#{self.split}" if self.split else ""))

    def fetch_command(self) -> str:
        """The Python line that puts this dataset in the cache on a machine with network."""
        args = [repr(self.dataset)] + ([repr(self.config)] if self.config else [])
        if self.revision:
            args.append(f"revision={self.revision!r}")
        return f"python -c \"import datasets; datasets.load_dataset({', '.join(args)})\""


def parse_hf_spec(text: str) -> HFSpec:
    """The parts of `hf:DATASET[:CONFIG][@REVISION][#SPLIT]`; a malformed one is a UserError."""
    body = text.removeprefix("hf:")
    head, hashmark, split = body.partition("#")
    head, at, revision = head.partition("@")
    dataset, colon, config = head.partition(":")
    parts = dataset.split("/")
    empty = [name for name, sep, value in (("CONFIG", colon, config), ("REVISION", at, revision),
                                           ("SPLIT", hashmark, split)) if sep and not value]
    if len(parts) > 2 or not all(_NAME.fullmatch(p) for p in parts) or empty:
        problem = f"empty {empty[0]}" if empty else f"bad dataset name {dataset!r}"
        raise UserError(f"{text}: {problem}: expected hf:DATASET[:CONFIG][@REVISION][#SPLIT], "
                        "e.g. hf:tau/commonsense_qa#validation")
    return HFSpec(dataset, config or None, revision or None, split or None)


def _env_path(*names: str) -> Path | None:
    value = next((os.environ[n] for n in names if os.environ.get(n)), None)
    return Path(value).expanduser() if value else None


def _hf_home() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME") or "~/.cache"
    return _env_path("HF_HOME") or Path(xdg).expanduser() / "huggingface"


def datasets_cache() -> Path:
    """Where `datasets` keeps its builds, by the variables it reads itself."""
    return _env_path("HF_DATASETS_CACHE") or _hf_home() / "datasets"


def hub_cache() -> Path:
    """Where `huggingface_hub` keeps repository files and the refs (branch -> commit)."""
    return _env_path("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE") or _hf_home() / "hub"


def import_datasets(spec: str) -> ModuleType:
    """The `datasets` module, imported offline (the variables set first, and its flag too when
    it was imported before); a missing library is one line naming the extra."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["HF_DATASETS_OFFLINE"] = "1"
    try:
        datasets = importlib.import_module("datasets")  # a ModuleType: the extra may be absent
    except ImportError:
        raise UserError(f"{spec}: reading Hugging Face datasets needs the datasets library: "
                        f"{INSTALL}") from None
    datasets.config.HF_HUB_OFFLINE = True
    return datasets


@dataclass(frozen=True)
class CachedBuild:
    """One build of a dataset in the datasets cache."""

    directory: Path
    config: str
    revision: str       # the folder's name: the Hub commit the build was made from
    dataset_name: str   # the name its arrow files carry
    splits: tuple[str, ...]


def _builds(spec: HFSpec, root: Path) -> list[CachedBuild]:
    """The complete builds under <namespace>___<name>/, newest last; UserError for a build
    whose description is malformed (which build it is cannot be told)."""
    builds = []
    for info_file in root.glob("*/*/*/dataset_info.json"):
        folder = info_file.parent
        if folder.name.endswith(".incomplete"):
            continue
        info = _read_info(spec, info_file)
        # a folder named after its config: what load_dataset(name, config) built, not a build
        # with custom data_files ("default-<hash>"), as datasets' own cache lookup keeps
        if info.get("config_name") != folder.parent.parent.name:
            continue
        builds.append(CachedBuild(folder, folder.parent.parent.name, folder.name,
                                  str(info.get("dataset_name") or root.name.split("___")[-1]),
                                  tuple(info.get("splits") or {})))
    return sorted(builds, key=lambda b: b.directory.stat().st_mtime)


def _damaged(spec: HFSpec, path: Path, problem: str) -> UserError:
    """The refusal of a cache file that is not what `datasets` or the hub writes."""
    return UserError(f"{spec}: {path} {problem}, so the cache is damaged: delete that file's "
                     f"build (or fetch the dataset again: {spec.fetch_command()})")


def _read_info(spec: HFSpec, path: Path) -> dict[str, Any]:
    """A build's dataset_info.json: an object whose config and dataset names are text (or
    absent) and whose splits are an object of objects; UserError for anything else."""
    if not path.is_file():
        raise _damaged(spec, path, "is not a regular file")
    if path.stat().st_size > MAX_INFO_BYTES:
        raise _damaged(spec, path, f"is over {MAX_INFO_BYTES // 2**20} MiB")
    try:
        info = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _damaged(spec, path, "is not JSON text") from None
    if not isinstance(info, dict):
        raise _damaged(spec, path, f"holds {_json_kind(info)}, not a JSON object")
    for field in ("config_name", "dataset_name"):
        if not isinstance(info.get(field), str | None):
            raise _damaged(spec, path, f"gives {field} as {_json_kind(info[field])}")
    splits = info.get("splits")
    if not isinstance(splits, dict | None) or not all(
            isinstance(v, dict) for v in (splits or {}).values()):
        raise _damaged(spec, path, "gives splits that are not an object of splits")
    return info


def _json_kind(value: object) -> str:
    """A JSON value's kind, as a reason names it ("a list", "a number")."""
    kinds = {bool: "a boolean", int: "a number", float: "a number", str: "a text",
             list: "a list", dict: "an object", type(None): "null"}
    return kinds.get(type(value), type(value).__name__)


def _hub_ref(spec: HFSpec) -> str | None:
    """The commit the hub cache maps spec's revision (a branch or tag) to, as recorded when
    the dataset was fetched; None when it maps none."""
    revision = str(spec.revision)
    if not _REF.fullmatch(revision) or {".", ".."} & set(revision.split("/")):
        return None
    ref = hub_cache() / f"datasets--{spec.dataset.replace('/', '--')}" / "refs" / revision
    if not ref.is_file():
        return None
    with ref.open("rb") as file:
        head = file.read(100)
    try:
        commit = head.decode("ascii").strip()
    except UnicodeDecodeError:
        raise _damaged(spec, ref, "is not text") from None
    if not _COMMIT.fullmatch(commit):
        raise _damaged(spec, ref, "does not name a commit (40 hexadecimal digits)")
    return commit


def _names(values: Iterable[str]) -> str:
    return ", ".join(sorted(set(values)))


def _not_cached(spec: HFSpec, what: str, cached: str | None = None) -> UserError:
    have = f"; cached: {cached}" if cached else ""
    return UserError(f"{spec}: {what} is not in the local Hugging Face datasets cache "
                     f"({datasets_cache()}{have}) and verstehen never downloads: on a machine "
                     f"with network run {spec.fetch_command()}, then copy its datasets cache "
                     "here or point HF_DATASETS_CACHE at it")


def _pick_config(spec: HFSpec, builds: list[CachedBuild]) -> list[CachedBuild]:
    configs = {b.config for b in builds}
    if spec.config is not None:
        if spec.config not in configs:
            raise _not_cached(spec, f"config {spec.config!r}", _names(configs))
        config = spec.config
    elif len(configs) == 1 or "default" in configs:
        config = next(iter(configs)) if len(configs) == 1 else "default"
    else:
        raise UserError(f"{spec}: several configs are cached ({_names(configs)}): name one, "
                        f"e.g. hf:{spec.dataset}:{sorted(configs)[0]}")
    return [b for b in builds if b.config == config]


def _pick_revision(spec: HFSpec, builds: list[CachedBuild]) -> CachedBuild:
    if spec.revision is None:
        return builds[-1]  # the newest, as load_dataset picks offline
    wanted = _hub_ref(spec) or spec.revision
    found = [b for b in builds if b.revision == wanted]
    if not found and _HEX.fullmatch(wanted):
        found = [b for b in builds if b.revision.startswith(wanted)]
    if len({b.revision for b in found}) != 1:
        raise _not_cached(spec, f"revision {spec.revision!r}", _names(b.revision for b in builds))
    return found[-1]


def _pick_split(spec: HFSpec, build: CachedBuild) -> str:
    if spec.split is not None:
        if spec.split not in build.splits:
            raise UserError(f"{spec}: no split {spec.split!r}; the cached build has "
                            f"{_names(build.splits)}")
        return spec.split
    if "test" in build.splits or len(build.splits) == 1:
        return "test" if "test" in build.splits else build.splits[0]
    raise UserError(f"{spec}: name a split, one of {_names(build.splits)}: e.g. "
                    f"{spec}#{sorted(build.splits)[0]}")


def resolve(text: str) -> tuple[HFSpec, CachedBuild]:
    """The spec pinned to the config, revision and split it reads, and the cached build."""
    spec = parse_hf_spec(text)
    datasets = import_datasets(text)
    namespace, _, name = spec.dataset.rpartition("/")
    folder = "___".join([*([namespace] if namespace else []),
                         datasets.naming.camelcase_to_snakecase(name)])
    builds = _builds(spec, datasets_cache() / folder)
    if not builds:
        raise _not_cached(spec, "the dataset") if not Path(spec.dataset).is_dir() else UserError(
            f"{spec}: the Hub dataset {spec.dataset!r} is not in the local Hugging Face datasets "
            f"cache ({datasets_cache()}) and verstehen never downloads; {spec.dataset} is a "
            f"folder here: for the dataset on disk write hf:./{spec.dataset}")
    build = _pick_revision(spec, _pick_config(spec, builds))
    expected = folder.split("___")[-1]  # the name `datasets` gives the builds of this dataset
    if build.dataset_name != expected:
        raise UserError(f"{spec}: the cached build in {build.directory} is of dataset "
                        f"{build.dataset_name!r}, not {expected!r} (hf:{spec.dataset}): it "
                        "would be read under the wrong name; delete it and fetch the dataset "
                        f"again: {spec.fetch_command()}")
    pinned = HFSpec(spec.dataset, build.config, build.revision, _pick_split(spec, build))
    return pinned, build


def pin_hf_spec(text: str) -> str:
    """`text` with the config, revision and split that loading it reads, e.g.
    hf:tau/commonsense_qa:default@<commit>#validation (no row is read)."""
    return str(resolve(text)[0])


def load_hf_mcq(text: str) -> MCQSource:
    """The multiple-choice questions of an `hf:` spec, read offline from the local cache."""
    pinned, build = resolve(text)
    datasets = import_datasets(text)
    from datasets.packaged_modules.cache.cache import Cache

    try:
        builder = Cache(cache_dir=str(build.directory.parents[3]), repo_id=pinned.dataset,
                        dataset_name=build.dataset_name, config_name=build.config,
                        version=build.directory.parent.name, hash=build.revision)
        rows = builder.as_dataset(split=pinned.split)
    # what `datasets` raises on damaged arrow files or split fields of the wrong type
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        reason = (str(e).strip().splitlines() or [""])[0][:300]
        raise UserError(f"{pinned}: the cached build in {build.directory} cannot be read "
                        f"({type(e).__name__}: {reason}); fetch it again") from e
    assert isinstance(rows, datasets.Dataset)
    # one conversion: faster than row by row
    items = rows_items(list(rows.column_names), rows.to_list(), str(pinned), str(pinned.split))
    return MCQSource(items, str(pinned))


def _shape(columns: list[str], source: str) -> str:
    for shape, needed in SHAPES.items():
        if all(c in columns for c in needed):
            return shape
    expected = " or ".join(f"{shape} ({', '.join(cols)})" for shape, cols in SHAPES.items())
    raise UserError(f"{source}: columns {', '.join(columns)} are no multiple-choice shape "
                    f"verstehen reads: expected {expected}")


def rows_items(columns: list[str], rows: list[dict[str, Any]], source: str,
               split: str) -> list[MCQItem]:
    """The questions of one split's rows (each with every one of `columns`), of the CSQA/ARC
    or MMLU shape; `source` (the pinned spec) starts each error line."""
    shape = _shape(columns, source)
    per_subject: Counter[str] = Counter()
    items = []
    for index, row in enumerate(rows):
        where = f"{source} row {index}"
        if shape == "CSQA/ARC":
            items.append(csqa_item(_csqa_row(row, where, f"{split}:{index}"), where,
                                   f"split {split} has no answer key; name a split with "
                                   "answers (#SPLIT)"))
        else:
            subject = row.get("subject")
            if isinstance(subject, str) and subject:
                # numbered within its subject, as MMLU's <subject>_<split>.csv numbers it
                row = {**row, "split": split, "idx": per_subject[subject]}
                per_subject[subject] += 1
            items.append(mmlu_item(row, where, f"{split}:{index}"))
    if not items:
        raise UserError(f"{source}: the split has no rows")
    seen = Counter(item.id for item in items)
    twice = next((ident for ident, n in seen.items() if n > 1), None)
    if twice is not None:
        raise UserError(f"{source}: question id {twice!r} appears twice")
    return items


def _csqa_row(row: dict[str, Any], where: str, default_id: str) -> dict[str, object]:
    """A Hub CSQA/ARC row (choices as {label: [...], text: [...]}) in the jsonl files' shape."""
    choices = row["choices"]
    if not (isinstance(choices, dict) and isinstance(choices.get("label"), list)
            and isinstance(choices.get("text"), list)
            and len(choices["label"]) == len(choices["text"])):
        raise UserError(f"{where}: choices must be {{label: [...], text: [...]}} of equal length")
    return {"id": row.get("id", default_id), "answerKey": row["answerKey"],
            "question": {"stem": row["question"],
                         "choices": [{"label": label, "text": text} for label, text
                                     in zip(choices["label"], choices["text"], strict=True)]}}
