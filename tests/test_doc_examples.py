"""docs/examples and the install lines of every document: each points at something that exists.

No package index serves a2a-lab: an install line names the checkout (`.`, `'.[test]'`), a path a Dockerfile copied
the project to, a checkout of this repository a workflow made, or the Action's own checkout; never `a2a-lab` by
name. The example workflow uses only the inputs the Action has and checks a2a-lab out at the ref it uses the Action
at; the CI guide (docs/how-to/ci-gate.md) names every input and output of the Action;
docs/examples/my-client.Dockerfile copies the project's source folders as the project's own Dockerfile does (and
builds, where docker runs). tests/test_action.py runs the workflow's and the Action's steps; tests/test_compose.py
merges and runs the compose override; tests/test_readme_examples.py runs the shell blocks of the README and of the
docs site.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
WORKFLOW_FILE = ROOT / "docs" / "examples" / "a2a-conformance.yml"
WORKFLOW = yaml.safe_load(WORKFLOW_FILE.read_text(encoding="utf-8"))
CI_GUIDE = (ROOT / "docs" / "how-to" / "ci-gate.md").read_text(encoding="utf-8")
OWN = "a2a-lab/a2a-lab"
SOURCE_FOLDERS = tuple(
    tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]["package-dir"].values()
)
#: Every file a user copies an install line from.
DOCUMENTS = sorted(
    {
        ROOT / "README.md",
        ROOT / "Dockerfile",
        ROOT / "action.yml",
        ROOT / "docker-compose.yml",
        *(ROOT / "docs").rglob("*.md"),
        *(p for p in (ROOT / "docs" / "examples").iterdir() if p.is_file()),
    }
)
#: `pip install ARGS` (after `python -m`, `RUN`, a backtick, ...), up to the end of the command.
PIP_INSTALL = re.compile(r"\bpip install\b([^`\n&;|)]*)")
#: a2a-lab named as a package an index would serve: `a2a-lab`, `a2a-lab[grpc]`, `a2a-lab==0.1.0`.
BY_NAME = re.compile(r"""^["']?a2a-lab(\[[^\]]*\])?([=<>!~].*)?["']?$""")


def install_targets(text: str) -> list[str]:
    """What each `pip install` line of a text installs: its arguments that are not options."""
    found: list[str] = []
    for args in PIP_INSTALL.findall(text):
        try:
            words = shlex.split(args, comments=True)
        except ValueError:  # an unbalanced quote in prose around the command: read it word by word
            words = args.split()
        found += [w for w in words if not w.startswith("-")]
    return found


def test_no_document_installs_a2a_lab_by_name() -> None:
    named = {
        f"{doc.relative_to(ROOT)}: pip install {target}"
        for doc in DOCUMENTS
        for target in install_targets(doc.read_text(encoding="utf-8"))
        if BY_NAME.match(target)
    }
    assert not named, f"no package index serves a2a-lab; install the checkout, a path or the Action's checkout: {named}"


def test_the_check_would_catch_an_install_by_name() -> None:
    bad = "See `pip install a2a-lab`; RUN pip install --no-cache-dir 'a2a-lab[grpc]'\n- run: pip install ./x a2a-lab\n"
    assert [t for t in install_targets(bad) if BY_NAME.match(t)] == ["a2a-lab", "a2a-lab[grpc]", "a2a-lab"]
    assert not [t for t in install_targets("pip install -e '.[test]' && pytest; pip install .") if BY_NAME.match(t)]


def _copied(dockerfile: Path) -> dict[str, str]:
    """A Dockerfile's COPY lines: {absolute destination: source}; a relative destination is under the WORKDIR, a
    destination ending in / receives the source by its name."""
    text = dockerfile.read_text(encoding="utf-8")
    workdir = re.search(r"^WORKDIR (\S+)", text, re.M)
    out: dict[str, str] = {}
    for sources, destination in re.findall(r"^COPY (\S+(?: \S+)*) (\S+)$", text, re.M):
        where = Path(workdir.group(1) if workdir else "/") / destination
        for source in sources.split():
            out[(where / source if destination.endswith("/") else where).as_posix()] = source
    return out


@pytest.mark.parametrize("dockerfile", [ROOT / "Dockerfile", ROOT / "docs" / "examples" / "my-client.Dockerfile"])
def test_a_dockerfile_installs_what_it_copied(dockerfile: Path) -> None:
    text = dockerfile.read_text(encoding="utf-8")
    copied = _copied(dockerfile)
    workdir = re.search(r"^WORKDIR (\S+)", text, re.M)
    for target in install_targets(text):
        path = (Path(workdir.group(1) if workdir else "/") / target).as_posix()
        assert any(path == dest or dest.startswith(path.rstrip("/") + "/") for dest in copied), (
            f"{dockerfile.name}: pip install {target}: nothing was copied there ({copied})"
        )


def test_the_client_image_copies_the_project_as_its_dockerfile_does() -> None:
    """my-client.Dockerfile is built with the a2a-lab checkout as its context (docs/examples/compose-my-client.yml):
    it copies every source folder pyproject.toml maps, as the project's own Dockerfile does."""
    sources = set(_copied(ROOT / "docs" / "examples" / "my-client.Dockerfile").values())
    assert {*SOURCE_FOLDERS, "pyproject.toml", "README.md"} <= sources
    assert {*SOURCE_FOLDERS, "pyproject.toml", "README.md"} <= set(_copied(ROOT / "Dockerfile").values())
    override = yaml.safe_load(
        (ROOT / "docs" / "examples" / "compose-my-client.yml").read_text(encoding="utf-8").replace("!override", "")
    )
    build = override["services"]["my-client"]["build"]
    assert build["context"] == "." and (ROOT / build["dockerfile"]).is_file()


def test_the_example_workflow_uses_only_the_actions_inputs_and_installs_from_its_ref() -> None:
    uses = [(job, step) for job, spec in WORKFLOW["jobs"].items() for step in spec["steps"] if "uses" in step]
    own = [(job, step) for job, step in uses if step["uses"].split("@")[0] == OWN]
    assert own, "the example uses the Action"
    refs = {step["uses"].split("@")[1] for _, step in own}
    for _, step in own:
        unknown = set(step.get("with") or {}) - set(ACTION["inputs"])
        assert not unknown, f"inputs the Action does not have: {unknown}"
        missing = {n for n, spec in ACTION["inputs"].items() if spec.get("required")} - set(step.get("with") or {})
        assert not missing, f"required inputs not given: {missing}"
    outputs = set(re.findall(r"steps\.[\w-]+\.outputs\.([\w-]+)", WORKFLOW_FILE.read_text(encoding="utf-8")))
    assert outputs <= set(ACTION["outputs"]), f"outputs the Action does not have: {outputs - set(ACTION['outputs'])}"
    # Where a job installs a2a-lab itself, it checks this repository out at the Action's ref and installs that.
    checkouts = {
        step["with"]["path"]: step["with"]
        for _, step in uses
        if step["uses"].startswith("actions/checkout@") and (step.get("with") or {}).get("repository") == OWN
    }
    installs = [t for t in install_targets(WORKFLOW_FILE.read_text(encoding="utf-8"))]
    assert installs, "the report job installs a2a-lab"
    for target in installs:
        path = target.removeprefix("./").strip("/")
        assert path in checkouts, f"pip install {target}: not a checkout of {OWN} ({list(checkouts)})"
        assert checkouts[path]["ref"] in refs, f"{OWN} checked out at {checkouts[path]['ref']}, the Action at {refs}"


def test_the_ci_guide_names_every_input_and_output_of_the_action() -> None:
    section = CI_GUIDE.split("\n## 3. On GitHub: the Action\n", 1)[1].split("\n## ", 1)[0]
    for kind in ("inputs", "outputs"):
        unnamed = [
            name for name in ACTION[kind] if not re.search(rf"`{re.escape(name)}`|\b{re.escape(name)}:", section)
        ]
        assert not unnamed, f"docs/how-to/ci-gate.md's Action section does not name the Action's {kind}: {unnamed}"


def test_the_client_image_builds_where_docker_runs(tmp_path: Path) -> None:
    """docs/examples/my-client.Dockerfile, built in a copy of the project with a stand-in client package."""
    if shutil.which("docker") is None:
        pytest.skip("docker is not installed")
    if subprocess.run(["docker", "info"], capture_output=True, timeout=60).returncode != 0:
        pytest.skip("the docker daemon is not running (docker info fails)")
    dockerfile = ROOT / "docs" / "examples" / "my-client.Dockerfile"
    base = re.search(r"^FROM (\S+)", dockerfile.read_text(encoding="utf-8"), re.M)
    assert base
    if subprocess.run(["docker", "image", "inspect", base.group(1)], capture_output=True, timeout=60).returncode:
        pytest.skip(f"the base image {base.group(1)} is not here, and pulling it needs the internet")
    project = tmp_path / "project"
    for name in ("pyproject.toml", "README.md"):
        project.mkdir(exist_ok=True)
        shutil.copy(ROOT / name, project / name)
    for folder in SOURCE_FOLDERS:
        shutil.copytree(ROOT / folder, project / folder, ignore=shutil.ignore_patterns("__pycache__"))
    client = project / "my-client"
    client.mkdir()
    (client / "pyproject.toml").write_text(
        '[project]\nname = "my-client"\nversion = "0"\n[project.scripts]\nmy-client = "my_client:main"\n', "utf-8"
    )
    (client / "my_client.py").write_text("def main() -> None:\n    print('stand-in')\n", "utf-8")
    built = subprocess.run(
        ["docker", "build", "-f", str(dockerfile), str(project)], capture_output=True, text=True, timeout=1800
    )
    assert built.returncode == 0, built.stderr[-3000:]
