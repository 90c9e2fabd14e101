"""The protocol package's public API: `__all__` is exactly the module list its docstring documents."""

from __future__ import annotations

import importlib
import pkgutil
import re

import a2a_lab.protocol as protocol

_LISTED = re.compile(r"^- (\w+): \S", re.MULTILINE)


def test_all_is_what_the_docstring_documents() -> None:
    documented = _LISTED.findall(protocol.__doc__ or "")
    assert documented == sorted(documented)
    assert sorted(protocol.__all__) == documented
    assert len(set(protocol.__all__)) == len(protocol.__all__)


def test_every_public_name_resolves() -> None:
    for name in protocol.__all__:
        module = importlib.import_module(f"a2a_lab.protocol.{name}")
        assert getattr(protocol, name) is module


def test_every_public_module_is_listed() -> None:
    """A module whose name does not start with `_` is public: a new one is documented and exported."""
    modules = {m.name for m in pkgutil.iter_modules(protocol.__path__) if not m.name.startswith("_")}
    assert modules == set(protocol.__all__)


def test_star_import_gives_the_modules() -> None:
    namespace: dict[str, object] = {}
    exec("from a2a_lab.protocol import *", namespace)
    assert {k for k in namespace if k != "__builtins__"} == set(protocol.__all__)
