"""What `pip install .` (not only -e) ships and installs: every Python package folder, and every dependency the
whole catalogue needs, gRPC's included, so that the default install, the GitHub Action and the Docker image serve and
score every scenario."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import tomllib
from pathlib import Path

from a2a_lab.protocol import grpcwire

ROOT = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503): `a2a-sdk[grpc]==1.3.0` -> `a2a-sdk`."""
    found = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert found, requirement
    return re.sub(r"[-_.]+", "-", found.group(0)).lower()


def _distribution_of(module: str) -> str:
    """The installed distribution whose files hold `module`."""
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"{module} is not installed"
    origin = Path(spec.origin).resolve()
    for dist in importlib.metadata.distributions():
        for file in dist.files or ():
            if Path(str(dist.locate_file(file))).resolve() == origin:
                return _name(dist.metadata["Name"])
    raise AssertionError(f"no installed distribution holds {origin}")


def test_every_package_is_listed() -> None:
    config = PROJECT["tool"]["setuptools"]
    listed = set(config["packages"])
    found = set()
    for name, folder in config["package-dir"].items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_the_default_dependencies_speak_grpc() -> None:
    """Every module gRPC needs (grpcwire.missing() looks for them; without one `run` leaves the gRPC scenarios out,
    spec/conformant among them) comes from a default dependency, not from an extra."""
    dependencies = {_name(r) for r in PROJECT["project"]["dependencies"]}
    needed = {module: _distribution_of(module) for module in grpcwire.MODULES}
    assert {m: d for m, d in needed.items() if d not in dependencies} == {}, "add them to [project] dependencies"
    assert grpcwire.missing() is None


def test_the_grpc_extra_is_an_alias_of_default_dependencies() -> None:
    """`pip install 'a2a-lab[grpc]'` still works, and adds nothing the default install lacks."""
    dependencies = set(PROJECT["project"]["dependencies"])
    assert set(PROJECT["project"]["optional-dependencies"]["grpc"]) <= dependencies


def test_the_image_and_the_action_install_the_default_dependencies() -> None:
    """The Docker image and the GitHub Action install a2a-lab as `pip install .` does: its dependencies, gRPC's
    included (no --no-deps, no extra needed)."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    action = (ROOT / "action.yml").read_text(encoding="utf-8")
    image = re.findall(r"pip install[^\n&]*", dockerfile)
    assert image == ["pip install --no-cache-dir . "], image
    steps = re.findall(r"pip install [^\n]*", action)
    assert steps == ['pip install "${A2A_LAB_SPEC:-$ACTION_PATH}"'], steps
