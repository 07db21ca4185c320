"""Every file verstehen writes goes through `engine/store/safe_files.py` (issue 43): an AST walk
over `src/` finds any other way of opening a file for writing (`open` or `Path.open` with a
writing mode, `os.open` with writing flags, `Path.write_text`/`write_bytes`/`touch`,
`shutil.copy*`/`move`, `os.replace`/`rename`, a library handed a path of its own: `savefig`,
`write_table`, `to_parquet`, `write_eval_log`, `csv.writer`, `json.dump`, ...). A library may
write only into what `safe_files` hands it (`writing`, `writing_text`, `temporary_path`), an
in-memory buffer, or the standard streams."""

from __future__ import annotations

import ast
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "verstehen"
# the only places allowed to open files for writing their own way, and why
ALLOWED = {
    # the writer module itself
    "engine/store/safe_files.py": "the one way to write",
    # a separate confined child process with its own rules (the sandbox's tests check them);
    # it never writes verstehen's files
    "methods/certification/sandbox_child/": "the sandbox child",
}
# the call cache is a SQLite database: SQLite writes its file, journal and WAL by its own
# atomic means (`sqlite3.connect` is the one call allowed there, nothing else)
ALLOWED_CALLS = {("engine/cache/store.py", "sqlite3.connect"),
                 ("engine/cache/writes.py", "sqlite3.connect"),
                 # llama.cpp writes a converted copy of the weights to a name of its own (the
                 # pid's), renamed into place; models/ sits below engine.store in the imports
                 # (engine.store.naming reads models.served_at), so it cannot import safe_files
                 ("models/local.py", "os.replace")}
# what safe_files hands a library to write into
HANDED = {"writing", "writing_text", "temporary_path"}
IN_MEMORY = {"BytesIO", "StringIO"}
STREAMS = {"sys.stdout", "sys.stderr"}
# a library call writing a file -> the index of its destination argument (keyword name too)
LIBRARY_WRITERS = {
    "savefig": (0, "fname"), "write_table": (1, "where"), "to_parquet": (0, "path"),
    "to_csv": (0, "path_or_buf"), "to_json": (0, "path_or_buf"), "to_excel": (0, "excel_writer"),
    "to_feather": (0, "path"), "write_eval_log": (1, "location"), "writer": (0, "csvfile"),
    "DictWriter": (0, "f"), "dump": (1, "fp"), "save": (0, "file"), "write_csv": (1, "output_file"),
}
# module-level library writers matched by their module too (`json.dump`, not `x.dump`)
QUALIFIED = {"writer": {"csv"}, "DictWriter": {"csv"}, "dump": {"json", "pickle", "yaml"},
             "save": {"np", "numpy", "torch"}, "write_csv": {"pyarrow.csv", "pv"}}
PATH_WRITERS = {"write_text", "write_bytes", "touch"}
MOVES = {"os.replace", "os.rename", "os.renames", "shutil.move", "shutil.copy", "shutil.copy2",
         "shutil.copyfile", "shutil.copytree", "shutil.copyfileobj"}
WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
OPENERS = {"open", "io.open", "os.fdopen", "codecs.open", "gzip.open", "bz2.open", "lzma.open"}
TEMPFILES = {"tempfile.NamedTemporaryFile", "tempfile.TemporaryFile", "tempfile.mkstemp",
             "tempfile.SpooledTemporaryFile"}


def dotted(node: ast.expr) -> str:
    """`a.b.c` for a chain of names, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted(node.value)):
        return f"{base}.{node.attr}"
    return ""


def argument(call: ast.Call, index: int, keyword: str) -> ast.expr | None:
    """The call's argument at `index`, or given by `keyword`."""
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def writes_mode(mode: ast.expr | None) -> bool:
    """Whether an open mode may write: a literal with w, a, x or +, or any non-literal."""
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(c in mode.value for c in "wax+")
    return True


def writes_flags(flags: ast.expr | None, constants: dict[str, ast.expr]) -> bool:
    """Whether os.open flags may write: a writing O_ flag among them (the module's constants
    read), or flags that cannot be read so."""
    if flags is None:
        return False
    names = flag_names(flags, constants)
    return names is None or bool(names & WRITE_FLAGS)


def flag_names(expr: ast.expr, constants: dict[str, ast.expr]) -> set[str] | None:
    """The O_ names an os.open flags expression may hold (None: not only O_ names)."""
    if isinstance(expr, ast.Constant) and isinstance(expr.value, int):
        return set()
    name = dotted(expr).removeprefix("os.")
    if name.startswith("O_"):
        return {name}
    if name in constants:
        return flag_names(constants[name], {k: v for k, v in constants.items() if k != name})
    parts = {ast.BinOp: lambda e: [e.left, e.right], ast.UnaryOp: lambda e: [e.operand],
             ast.IfExp: lambda e: [e.body, e.orelse]}.get(type(expr))
    if parts is None:
        return None
    found: set[str] = set()
    for part in parts(expr):
        names = flag_names(part, constants)
        if names is None:
            return None
        found |= names
    return found


def module_constants(tree: ast.Module) -> dict[str, ast.expr]:
    """The module's `NAME = expr` at its top level."""
    return {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
            for t in node.targets if isinstance(t, ast.Name)}


def handed_names(tree: ast.AST) -> set[str]:
    """Names bound by `with writing(...)/writing_text(...)/temporary_path(...) as NAME` or
    `NAME = io.BytesIO()`: what a library may be given to write into."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                call = item.context_expr
                if isinstance(call, ast.Call) and dotted(call.func).split(".")[-1] in HANDED \
                        and isinstance(item.optional_vars, ast.Name):
                    names.add(item.optional_vars.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and dotted(node.value.func).split(".")[-1] in IN_MEMORY:
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def safe_destination(node: ast.expr | None, handed: set[str]) -> bool:
    """A destination safe_files handed out, an in-memory buffer, a standard stream (`str(path)`
    and `os.fspath(path)` of one too), or none (`frame.to_json()` returns the text)."""
    if node is None:
        return True
    if isinstance(node, ast.Call) and dotted(node.func) in {"str", "os.fspath"} and node.args:
        return safe_destination(node.args[0], handed)
    if isinstance(node, ast.Call) and dotted(node.func).split(".")[-1] in IN_MEMORY:
        return True
    return (isinstance(node, ast.Name) and node.id in handed) or dotted(node) in STREAMS


def raw_writes(source: str) -> Iterator[tuple[int, str]]:
    """(line, what) for each way `source` opens a file for writing other than through
    safe_files."""
    tree = ast.parse(source)
    handed = handed_names(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        attr = node.func.attr if isinstance(node.func, ast.Attribute) else name
        owner = name.rpartition(".")[0]
        if name in OPENERS and writes_mode(argument(node, 1, "mode")) \
                and not _devnull(node.args[0] if node.args else None):
            yield node.lineno, f"{name}(..., mode) for writing"
        elif attr == "open" and name not in OPENERS and name != "os.open" \
                and writes_mode(argument(node, 0, "mode")) \
                and isinstance(argument(node, 0, "mode"), ast.Constant):
            yield node.lineno, "Path.open(mode) for writing"
        elif name in {"os.open", "open_regular"} \
                and writes_flags(argument(node, 1, "flags"), module_constants(tree)) \
                and not _devnull(node.args[0] if node.args else None):
            yield node.lineno, f"{name} with writing flags"
        elif attr in PATH_WRITERS and isinstance(node.func, ast.Attribute):
            yield node.lineno, f"Path.{attr}"
        elif name in MOVES or name in TEMPFILES or name in {"os.truncate", "sqlite3.connect"}:
            yield node.lineno, name
        elif attr in LIBRARY_WRITERS and (attr not in QUALIFIED or owner in QUALIFIED[attr]) \
                and not safe_destination(argument(node, *LIBRARY_WRITERS[attr]), handed):
            yield node.lineno, f"{name or attr} writing to a path of its own"


def _devnull(node: ast.expr | None) -> bool:
    """`os.devnull`: no file is written there."""
    return node is not None and dotted(node) == "os.devnull"


def allowed(relative: str, what: str) -> bool:
    """Whether the allow-lists let this module write this way."""
    return any(relative.startswith(prefix) for prefix in ALLOWED) or \
        (relative, what) in ALLOWED_CALLS


def scan(root: Path) -> list[str]:
    """`file:line: what` for every raw write under the package folder `root`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).as_posix()
        for line, what in raw_writes(path.read_text(encoding="utf-8")):
            if not allowed(relative, what):
                found.append(f"{relative}:{line}: {what}")
    return found


def test_src_writes_files_only_through_safe_files():
    """No module of the package (but the allowed ones) opens a file for writing its own way."""
    assert scan(SRC) == []


@pytest.mark.parametrize("snippet", [
    'open(path, "w")', 'open(path, "ab")', 'open(path, mode="x")', 'open(path, "r+")',
    'open(path, mode)', 'io.open(path, "wb")', 'os.fdopen(fd, "w")',
    'Path(path).write_text("x")', 'path.write_bytes(b"x")', 'Path(p).touch()',
    'path.open("w", encoding="utf-8")', 'Path(p).open(mode="a")',
    'os.open(path, os.O_WRONLY | os.O_CREAT)', 'os.open(path, flags)',
    'open_regular(path, os.O_RDWR | os.O_CREAT)',
    'shutil.copy(a, b)', 'shutil.copyfile(a, b)', 'os.replace(a, b)', 'os.rename(a, b)',
    'fig.savefig(path, format="png")', 'parquet.write_table(table, path)',
    'frame.to_parquet(path)', 'write_eval_log(log, str(path), format="eval")',
    'json.dump(value, handle)', 'csv.writer(path.open("w"))', 'tempfile.mkstemp()',
    'with path.open("w") as handle:\n    csv.writer(handle).writerow(row)',
])
def test_each_raw_way_of_writing_is_found(snippet):
    """The walk finds each way of writing a file that bypasses safe_files."""
    assert list(raw_writes(snippet)), snippet


@pytest.mark.parametrize("snippet", [
    'open(path)', 'open(path, "rb")', 'path.open("rb")', 'os.open(path, os.O_RDONLY)',
    'open(open_regular(path), "rb")', 'RunStore.open(path)', 'open_regular(path)',
    'os.dup2(os.open(os.devnull, os.O_WRONLY), 1)', 'json.dump(value, sys.stdout)',
    'with writing(path, "x") as handle:\n    parquet.write_table(table, handle)',
    'with writing(path, "x") as handle:\n    fig.savefig(handle, format="png")',
    'with temporary_path(path, "x") as partial:\n    write_eval_log(log, str(partial))',
    'with writing_text(path, "x") as handle:\n    csv.writer(handle)',
    'buffer = io.BytesIO()\nfig.savefig(buffer)', 'write_file(path, data, "x")',
    'json.dumps(value)', 'text.encode().decode()',
])
def test_what_safe_files_hands_out_and_reading_pass(snippet):
    """Reading, writing into what safe_files hands out, a buffer or stdout are not flagged."""
    assert list(raw_writes(snippet)) == [], snippet


def test_a_raw_write_added_to_a_copy_of_src_fails_the_check(tmp_path):
    """A module with `open(path, "w")` and one with `Path(...).write_text(...)`, added to a
    copy of the package, are each found by the same scan that passes on `src/`."""
    copy = tmp_path / "verstehen"
    shutil.copytree(SRC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    (copy / "export" / "sneaky.py").write_text(
        'def dump(path, text):\n    with open(path, "w") as f:\n        f.write(text)\n')
    (copy / "viewer" / "sneaky.py").write_text(
        'from pathlib import Path\n\n\ndef dump(path, text):\n'
        '    Path(path).write_text(text)\n')
    assert scan(copy) == ['export/sneaky.py:2: open(..., mode) for writing',
                          'viewer/sneaky.py:5: Path.write_text']
