"""Multiple-choice questions from a Hugging Face dataset on disk: `hf:PATH[#SPLIT]`, PATH a folder
that `datasets` wrote with `save_to_disk` (a DatasetDict, or one Dataset), or a folder of Parquet
or JSON (Lines) files, split by their names as `datasets.load_dataset(PATH)` splits them
(`validation.jsonl`, `data/test-00000-of-00001.parquet`, ...; files with no split in their name
are the split "train"). PATH starts with `/`, `./`, `../` or `~`, as no Hub dataset name does,
so `hf:tau/commonsense_qa` always names the Hub's dataset, even beside a folder of that name.

Pinned by content, as a Hub dataset is pinned by commit: a run records the spec as
`hf:PATH@sha256:HASH#SPLIT`, HASH the content hash of the files the dataset is made of (the
SHA-256 over one line per file, path under the folder, NUL, the file's SHA-256: the hash
run.json records of an input folder); given again, that spec reads the folder only while it
holds the same content. The split is chosen as for the cache: "test", else the only one.

Nothing is written and nothing is downloaded: a saved dataset's arrow files are memory-mapped by
`datasets.load_from_disk`, Parquet files read by pyarrow, JSON files by `json`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.data.hf import import_datasets, rows_items
from verstehen.data.items import MCQSource
from verstehen.engine.store.inputs import content_sha256
from verstehen.errors import UserError
from verstehen.textfiles import read_text

STARTS = ("/", "./", "../", "~")
_PIN = re.compile(r"(?P<path>.+)@sha256:(?P<sha>[0-9a-f]{64})")
_SPLIT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
DATA_FILES = (".parquet", ".jsonl", ".json")
FORM = "hf:PATH[#SPLIT], PATH a folder starting with /, ./, ../ or ~"


def is_local_spec(source: str | Path) -> bool:
    """Whether `source` is `hf:` followed by a path (a dataset on disk), not a Hub name."""
    body = str(source).removeprefix("hf:")
    return str(source).startswith("hf:") and (body in (".", "..") or body.startswith(STARTS))


@dataclass(frozen=True)
class LocalSpec:
    """A parsed `hf:PATH[@sha256:HASH][#SPLIT]`: the path as given, the pinned content hash
    and the split (None: not given)."""

    path: str
    sha256: str | None = None
    split: str | None = None

    def __str__(self) -> str:
        return (f"hf:{self.path}" + (f"@sha256:{self.sha256}" if self.sha256 else "")
                + (f"#{self.split}" if self.split else ""))

    @property
    def folder(self) -> Path:
        """The folder the path names (`~` expanded)."""
        return Path(self.path).expanduser()


def parse_local_spec(text: str) -> LocalSpec:
    """The parts of `hf:PATH[@sha256:HASH][#SPLIT]`; the split follows the last `#` unless the
    whole path is a folder. A malformed one is a UserError."""
    body = text.removeprefix("hf:")
    head, hashmark, split = body.rpartition("#")
    if not hashmark or Path(body).expanduser().is_dir():
        head, hashmark, split = body, "", ""
    if hashmark and not _SPLIT.fullmatch(split):
        raise UserError(f"{text}: bad SPLIT {split!r}: expected {FORM}")
    pinned = _PIN.fullmatch(head)
    path, sha = (pinned["path"], pinned["sha"]) if pinned else (head, None)
    return LocalSpec(path, sha, split or None)


@dataclass(frozen=True)
class LocalDataset:
    """A dataset on disk: each split's files (a saved split's folder, or its data files), and
    every file its content hash covers, in order."""

    folder: Path
    saved: bool
    splits: dict[str, list[Path]]
    files: list[Path]

    def sha256(self) -> str:
        """The content hash of the files the dataset is made of."""
        return content_sha256(self.folder, self.files)


def local_dataset(spec: LocalSpec) -> LocalDataset:
    """The splits and files of the folder `spec` names; UserError for a folder that is no
    dataset verstehen reads."""
    folder = spec.folder
    if not folder.exists():
        raise UserError(f"{spec}: no such folder {folder} (expected {FORM})")
    if not folder.is_dir():
        raise UserError(f"{spec}: {folder} is a file, not a folder: give the folder that holds "
                        "the dataset (or a .jsonl/.csv questions file as a path, without hf:)")
    if (folder / "dataset_dict.json").is_file():
        names = _saved_splits(spec, folder / "dataset_dict.json")
        splits = {name: [folder / name] for name in names}
        files = [folder / "dataset_dict.json",
                 *(f for name in names for f in _saved_files(spec, folder / name))]
        return LocalDataset(folder, True, splits, files)
    if (folder / "state.json").is_file():
        files = _saved_files(spec, folder)
        split = _read_json(spec, folder / "state.json").get("_split")
        return LocalDataset(folder, True, {split if isinstance(split, str) and split
                                           else "train": [folder]}, files)
    splits = _data_files(spec, folder)
    return LocalDataset(folder, False, splits,
                        sorted({f for paths in splits.values() for f in paths}))


def _read_json(spec: LocalSpec, path: Path) -> dict[str, Any]:
    """A JSON object file of a saved dataset; UserError for anything else."""
    try:
        value = json.loads(read_text(path, "dataset file"))
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise UserError(f"{spec}: {path} is not the JSON object `save_to_disk` writes: save "
                        "the dataset again")
    return value


def _saved_splits(spec: LocalSpec, path: Path) -> list[str]:
    """The split names of a saved DatasetDict (dataset_dict.json), each a folder beside it."""
    names = _read_json(spec, path).get("splits")
    if not isinstance(names, list) or not names or not all(
            isinstance(n, str) and _SPLIT.fullmatch(n) and (path.parent / n).is_dir()
            for n in names):
        raise UserError(f"{spec}: {path} does not list split folders of this folder: save the "
                        "dataset again")
    return names


def _saved_files(spec: LocalSpec, folder: Path) -> list[Path]:
    """A saved Dataset's files: state.json, dataset_info.json and the arrow files state.json
    names."""
    state = _read_json(spec, folder / "state.json")
    names = [entry.get("filename") if isinstance(entry, dict) else None
             for entry in state.get("_data_files") or []]
    arrows = [folder / n for n in names if isinstance(n, str) and n == Path(n).name]
    if not names or len(arrows) != len(names) or not all(a.is_file() for a in arrows):
        raise UserError(f"{spec}: {folder / 'state.json'} names no arrow files of its folder: "
                        "save the dataset again")
    info = [folder / "dataset_info.json"] if (folder / "dataset_info.json").is_file() else []
    return [folder / "state.json", *info, *arrows]


def _data_files(spec: LocalSpec, folder: Path) -> dict[str, list[Path]]:
    """Each split's Parquet and JSON files, found by `datasets`' own rules of split names."""
    datasets = import_datasets(str(spec))
    try:
        patterns = datasets.data_files.get_data_patterns(str(folder))
        found = datasets.data_files.DataFilesDict.from_patterns(patterns, base_path=str(folder))
    except (FileNotFoundError, datasets.exceptions.DataFilesNotFoundError,
            datasets.data_files.EmptyDatasetError):
        found = {}
    splits = {str(name): sorted(Path(f) for f in files if f.lower().endswith(DATA_FILES))
              for name, files in found.items()}
    splits = {name: files for name, files in splits.items() if files}
    if not splits:
        raise UserError(f"{spec}: {folder} holds no dataset verstehen reads: a folder written "
                        "by save_to_disk, or Parquet (.parquet) or JSON (.jsonl, .json) files")
    return splits


def _pick_split(spec: LocalSpec, dataset: LocalDataset) -> str:
    names = sorted(dataset.splits)
    if spec.split is not None:
        if spec.split not in dataset.splits:
            raise UserError(f"{spec}: no split {spec.split!r}; the folder has {', '.join(names)}")
        return spec.split
    if "test" in dataset.splits or len(names) == 1:
        return "test" if "test" in dataset.splits else names[0]
    raise UserError(f"{spec}: name a split, one of {', '.join(names)}: e.g. "
                    f"hf:{spec.path}#{names[0]}")


def resolve_local(text: str) -> tuple[LocalSpec, LocalDataset]:
    """The spec pinned to the folder's content hash and the split it reads, and the dataset;
    UserError when a pinned hash is not the folder's now."""
    spec = parse_local_spec(text)
    dataset = local_dataset(spec)
    now = dataset.sha256()
    if spec.sha256 is not None and spec.sha256 != now:
        raise UserError(f"{spec}: the folder does not hold what this spec was pinned to (its "
                        f"content hash is {now[:12]}..., not {spec.sha256[:12]}...): give "
                        f"hf:{spec.path} to read what it holds now")
    return LocalSpec(spec.path, now, _pick_split(spec, dataset)), dataset


def pin_local_spec(text: str) -> str:
    """`text` with the folder's content hash and the split it reads (no row is read)."""
    return str(resolve_local(text)[0])


def local_files(text: str) -> tuple[Path, list[Path]]:
    """The folder a spec names and the files its content hash covers (the folder alone when
    it is no readable dataset: hashing it then fails, as for any input that cannot be read)."""
    spec = parse_local_spec(text)
    try:
        return spec.folder, local_dataset(spec).files
    except UserError:
        return spec.folder, [spec.folder]


def load_local_mcq(text: str) -> MCQSource:
    """The multiple-choice questions of a dataset on disk, with the spec pinned."""
    pinned, dataset = resolve_local(text)
    split = str(pinned.split)
    columns, rows = (_saved_rows(pinned, dataset.splits[split][0]) if dataset.saved
                     else _file_rows(pinned, dataset.splits[split]))
    return MCQSource(rows_items(columns, rows, str(pinned), split), str(pinned))


def _saved_rows(spec: LocalSpec, folder: Path) -> tuple[list[str], list[dict[str, Any]]]:
    datasets = import_datasets(str(spec))
    try:
        rows = datasets.load_from_disk(str(folder))
    # what `datasets` raises on damaged arrow or state files
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError) as e:
        reason = (str(e).strip().splitlines() or [""])[0][:300]
        raise UserError(f"{spec}: {folder} cannot be read ({type(e).__name__}: {reason}); "
                        "save the dataset again") from e
    if not isinstance(rows, datasets.Dataset):
        raise UserError(f"{spec}: {folder} holds several splits: name the folder above it")
    return list(rows.column_names), rows.to_list()


def _file_rows(spec: LocalSpec, files: list[Path]) -> tuple[list[str], list[dict[str, Any]]]:
    """The rows of a split's files in order, each with every column any file has (None where
    a row has none, as `datasets` fills them)."""
    read: list[dict[str, Any]] = []
    for path in files:
        read += _parquet_rows(spec, path) if path.suffix.lower() == ".parquet" else (
            _json_rows(spec, path))
    columns = list(dict.fromkeys(key for row in read for key in row))
    return columns, [{c: row.get(c) for c in columns} for row in read]


def _parquet_rows(spec: LocalSpec, path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet

    try:
        rows = pyarrow.parquet.read_table(path).to_pylist()
    except (OSError, ValueError) as e:  # pyarrow's ArrowInvalid is a ValueError
        reason = (str(e).strip().splitlines() or [""])[0][:300]
        raise UserError(f"{spec}: {path} is not a Parquet file that can be read ({reason})") \
            from e
    return [row for row in rows if isinstance(row, dict)]


def _json_rows(spec: LocalSpec, path: Path) -> list[dict[str, Any]]:
    """A JSON file's rows: a list of objects, or one object a line (JSON Lines)."""
    text = read_text(path, "dataset file")
    try:
        if text.lstrip().startswith("["):
            rows, lines = json.loads(text), None
        else:
            lines = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
            rows = [json.loads(line) for _, line in lines]
    except ValueError as e:
        raise UserError(f"{spec}: {path} is neither a JSON list of rows nor JSON Lines "
                        f"({e})") from None
    objects: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            where = f"line {lines[i][0]}" if lines else f"item {i}"
            raise UserError(f"{spec}: {path} {where} is not a JSON object (a row)")
        objects.append(row)
    return objects
