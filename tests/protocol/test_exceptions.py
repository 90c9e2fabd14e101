"""Every exception class a2a-lab defines derives from LabError, and LabError's docstring draws exactly them."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

from a2a_lab.protocol import exceptions
from a2a_lab.protocol.exceptions import LabError

PACKAGES = ("a2a_lab.protocol", "a2a_lab.contract", "a2a_lab.server", "a2a_lab.harness")
#: Folders of the checkout as the package's names (setuptools package-dir).
FOLDERS = {package.rsplit(".", 1)[1]: package for package in PACKAGES}

#: Not LabErrors, on purpose (the docstring says why, under "Outside the tree").
OUTSIDE = {
    "a2a_lab.harness.client_judging.fuzz.search.BudgetSpent",  # a BaseException, so hypothesis lets it through
}

_ENTRY = re.compile(r"^(?P<indent>[│├└─ ]*)(?P<name>\w+) \.+ (?P<file>[\w/]+)\.py *(\[(?P<base>\w+)\])?")


def _defined() -> dict[str, type[BaseException]]:
    """Every exception class defined at the top level of a module of the package, by its dotted name."""
    found: dict[str, type[BaseException]] = {}
    for package in PACKAGES:
        names = [package] + [
            m.name
            for m in pkgutil.walk_packages(importlib.import_module(package).__path__, f"{package}.")
            if not m.name.endswith(".__main__")  # importing it runs the command line
        ]
        for name in names:
            module = importlib.import_module(name)
            for attr, value in vars(module).items():
                if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == name:
                    found[f"{name}.{attr}"] = value
    return found


def _module(file: str) -> str:
    top, _, rest = file.partition("/")
    return ".".join([FOLDERS[top], *rest.split("/")]) if rest else FOLDERS[top]


def _drawn() -> tuple[dict[str, tuple[str | None, str | None]], set[str]]:
    """The docstring's tree as {dotted name: (dotted name of its parent (None under LabError), the standard base it
    keeps)}, and the names it lists outside the tree."""
    doc = exceptions.__doc__ or ""
    tree, _, outside = doc.partition("Outside the tree")
    drawn: dict[str, tuple[str | None, str | None]] = {}
    stack: list[tuple[int, str]] = []
    for line in tree.splitlines():
        match = _ENTRY.match(line)
        if not match:
            continue
        depth = len(match["indent"])
        name = f"{_module(match['file'])}.{match['name']}"
        while stack and stack[-1][0] >= depth:
            stack.pop()
        drawn[name] = (stack[-1][1] if stack else None, match["base"])
        stack.append((depth, name))
    listed = set()
    for line in outside.splitlines():
        match = _ENTRY.match(line.removeprefix("- "))
        if match:
            listed.add(f"{_module(match['file'])}.{match['name']}")
    return drawn, listed


def test_every_exception_class_is_a_lab_error() -> None:
    defined = _defined()
    assert "a2a_lab.protocol.exceptions.LabError" in defined
    strays = [name for name, cls in defined.items() if not issubclass(cls, LabError) and name not in OUTSIDE]
    assert strays == []
    assert set(defined) >= OUTSIDE
    assert not any(issubclass(defined[name], LabError) for name in OUTSIDE)


def test_the_docstring_draws_exactly_the_subclasses() -> None:
    defined = _defined()
    drawn, outside = _drawn()
    subclasses = {name for name, cls in defined.items() if issubclass(cls, LabError) and cls is not LabError}
    assert set(drawn) == subclasses
    assert outside == OUTSIDE
    for name, (parent, base) in drawn.items():
        cls = defined[name]
        expected = defined[parent] if parent else LabError
        assert cls.__bases__[0] is expected, f"{name} drawn under {parent or 'LabError'}"
        assert [b.__name__ for b in cls.__bases__[1:]] == ([base] if base else []), f"{name}'s standard base"


def test_standard_bases_are_kept() -> None:
    """`except ValueError` (and OSError, RuntimeError) still catches what it caught before LabError."""
    defined = _defined()
    for name in ("a2a_lab.contract.loader.reader.ScenarioError", "a2a_lab.protocol.protobuf.DecodeError"):
        assert issubclass(defined[name], ValueError)
    assert issubclass(defined["a2a_lab.server.hosting.PortInUse"], OSError)
    assert issubclass(defined["a2a_lab.harness.client_judging.remote.RemoteError"], RuntimeError)
    assert not issubclass(defined["a2a_lab.harness.client_judging.fuzz.search.BudgetSpent"], Exception)
