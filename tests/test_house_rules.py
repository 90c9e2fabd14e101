"""The house's rules that a tool can check, beside the import contracts of pyproject.toml (`lint-imports`):

- no import cycle between two modules of the package, not even through a function-level import (grimp, which
  import-linter installs, reads every import, wherever it stands);
- (to come with the harness's rooms, issue 44: no cycle between the sub-packages of `harness/`, a package importing
  another when one of its modules does; `subpackage_edges` reads them, proven below);
- no module over 800 lines and no function over 80, so that no reader of the code faces a thousand-line file again.

Each rule is proven on a small package of the test's own that breaks it.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("a2a_lab.protocol", "a2a_lab.contract", "a2a_lab.server", "a2a_lab.harness")
FOLDERS = ("protocol", "contract", "server", "harness")
MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 80


def cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted: every cycle lies in one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(edges):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def module_edges(graph: grimp.ImportGraph, prefix: str) -> dict[str, set[str]]:
    return {
        m: {i for i in graph.find_modules_directly_imported_by(m) if i.startswith(prefix)}
        for m in graph.modules
        if m.startswith(prefix)
    }


def subpackage_edges(modules: Mapping[str, Iterable[str]], parent: str) -> dict[str, set[str]]:
    """`parent`'s sub-packages, each with the sub-packages its modules import (a module directly in `parent` is
    a package of its own here)."""

    def room(module: str) -> str | None:
        if not module.startswith(parent + "."):
            return None
        return ".".join(module.split(".")[: parent.count(".") + 2])

    edges: dict[str, set[str]] = {}
    for module, imported in modules.items():
        source = room(module)
        if source is None:
            continue
        edges.setdefault(source, set()).update(r for r in map(room, imported) if r is not None and r != source)
    return edges


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def test_no_module_imports_itself_back(graph: grimp.ImportGraph) -> None:
    found = cycles(module_edges(graph, "a2a_lab."))
    assert not found, "import cycles (break each by moving the shared piece down):\n" + "\n".join(map(str, found))


#: The harness's rooms (docs/explanation/architecture.md draws them); a module directly in harness/ is a room of its
#: own here (the pytest plugin, the in-process API, the deprecated refclient alias).
HARNESS = "a2a_lab.harness"


def test_no_room_of_the_harness_imports_another_back(graph: grimp.ImportGraph) -> None:
    """Rooms form a ladder, not a ring: no cycle between harness/'s sub-packages (cli and ui, client judging and
    reports, the proxy and server judging each imported each other before the rooms were drawn), nor between the
    sub-packages of any room."""
    modules = module_edges(graph, "a2a_lab.")
    rooms = subpackage_edges(modules, HARNESS)
    found = cycles(rooms)
    for room in rooms:
        found += cycles(subpackage_edges(modules, room))
    assert not found, "rooms that import each other (move the shared piece down into common/):\n" + "\n".join(
        map(str, found)
    )


def test_a_cycle_is_found_however_it_is_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "cyclic_pkg"
    (pkg / "inner").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from . import b  # hidden in a function\n    return b\n")
    (pkg / "b.py").write_text("from .inner import c\n")
    (pkg / "inner" / "__init__.py").write_text("")
    (pkg / "inner" / "c.py").write_text("from .. import a\n")
    (pkg / "d.py").write_text("from . import b\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    g = grimp.build_graph("cyclic_pkg", cache_dir=None)
    modules = module_edges(g, "cyclic_pkg.")
    assert cycles(modules) == [["cyclic_pkg.a", "cyclic_pkg.b", "cyclic_pkg.inner.c"]]
    assert cycles(subpackage_edges(modules, "cyclic_pkg")) == [["cyclic_pkg.a", "cyclic_pkg.b", "cyclic_pkg.inner"]]
    assert cycles({"x": {"y"}, "y": set()}) == []


def oversized(folders: Iterable[Path]) -> list[str]:
    """Every module over MAX_MODULE_LINES lines and every function over MAX_FUNCTION_LINES, as `path: what`."""
    found: list[str] = []
    for folder in folders:
        for path in sorted(folder.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = path.relative_to(folder.parent)
            if (lines := text.count("\n")) > MAX_MODULE_LINES:
                found.append(f"{name}: {lines} lines (at most {MAX_MODULE_LINES}: split it by job)")
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        found.append(
                            f"{name}:{node.lineno}: {node.name}() is {length} lines (at most {MAX_FUNCTION_LINES})"
                        )
    return found


def test_no_module_or_function_is_too_long() -> None:
    found = oversized(ROOT / f for f in FOLDERS)
    assert not found, "\n".join(found)


def test_a_long_module_and_a_long_function_are_found(tmp_path: Path) -> None:
    folder = tmp_path / "pkg"
    folder.mkdir()
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    (folder / "long_function.py").write_text(f"def f():\n{body}")
    (folder / "long_module.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (folder / "fine.py").write_text(f"def g():\n{body[: -len(body.splitlines(True)[-1])]}")
    found = oversized([folder])
    assert found == [
        "pkg/long_function.py:1: f() is 81 lines (at most 80)",
        f"pkg/long_module.py: {MAX_MODULE_LINES + 1} lines (at most {MAX_MODULE_LINES}: split it by job)",
    ]
