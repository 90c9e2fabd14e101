"""The GitHub Action (action.yml) and its example workflow (docs/examples/a2a-conformance.yml), run here: every
`run:` step's shell runs as a runner would run it (bash -eo pipefail, GITHUB_OUTPUT, the step's env with the
expressions substituted), and the `uses:` steps are checked against their pins and stood in for (checkout and
setup-python do nothing here; upload-artifact and download-artifact copy folders). Nothing reaches the network:
pip installs from the action's own checkout with no index, into a venv that borrows this test environment's
packages (see `runner_env`)."""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
ACTION_TEXT = (ROOT / "action.yml").read_text(encoding="utf-8")
WORKFLOW_TEXT = (ROOT / "docs" / "examples" / "a2a-conformance.yml").read_text(encoding="utf-8")
ACTION = yaml.safe_load(ACTION_TEXT)
WORKFLOW = yaml.safe_load(WORKFLOW_TEXT)
FAKE = ROOT / "tests" / "harness" / "clients" / "fake_client.py"
#: Every third-party action the files may use, pinned to the commit of the release its comment names.
PINS = {
    "actions/checkout": ("11bd71901bbe5b1630ceea73d27597364c9af683", "v4.2.2"),
    "actions/setup-python": ("a26af69be951a213d495a4c3e4e4022e16d87065", "v5.6.0"),
    "actions/upload-artifact": ("ea165f8d65b6e75b540449e92b4886f43607fa02", "v4.6.2"),
    "actions/download-artifact": ("d3f86a106a0bac45b974a628896c90dbdf5c8093", "v4.3.0"),
}
OWN = "a2a-lab/a2a-lab"  # this repository's action, as a workflow elsewhere names it
SCENARIOS = "spec/conformant quirks/mixed-version-direct-message spec/task/submitted-needs-get-task"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def test_every_action_used_is_pinned_to_a_commit_of_a_named_release() -> None:
    for text in (ACTION_TEXT, WORKFLOW_TEXT):
        uses = re.findall(r"^\s*-?\s*uses:\s*(\S+)@(\S+)(?:\s+#\s*(\S+))?", text, re.M)
        assert uses
        for name, ref, comment in uses:
            if name == OWN:
                continue
            assert name in PINS, f"{name}: not an action these files may use"
            assert (ref, comment) == PINS[name], f"{name}@{ref} # {comment}: expected {PINS[name]}"


def test_the_action_is_composite_with_the_inputs_the_readme_names() -> None:
    assert ACTION["runs"]["using"] == "composite"
    inputs = ACTION["inputs"]
    assert inputs["client"]["required"] is True
    for name in (
        "scenarios",
        "shard",
        "baseline",
        "report-dir",
        "jobs",
        "client-mode",
        "args",
        "artifact-name",
        "a2a-lab",
    ):
        assert name in inputs and "default" in inputs[name], name
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            # Inputs reach a script through env only: an input cannot inject shell.
            assert "${{" not in step["run"], step["run"]


# ------------------------------------------------------------------------------------ a runner, in miniature


@dataclass
class Runner:
    workspace: Path
    env: dict[str, str]
    artifacts: Path
    #: Expression values: inputs.*, matrix.*, github.*, steps.<id>.outputs.*
    context: dict[str, str] = field(default_factory=dict)

    def value(self, name: str) -> str:
        if name not in self.context and not name.startswith("steps."):
            raise KeyError(f"the test's runner does not know ${{{{ {name} }}}}")
        return self.context.get(name, "")

    def sub(self, text: Any) -> str:
        return EXPRESSION.sub(lambda m: self.value(m.group(1)), str(text))

    def condition(self, text: str | None) -> bool:
        if text is None:
            return True
        result = True
        for term in (t.strip() for t in text.split("&&")):
            if term == "always()":
                continue
            found = re.fullmatch(r"(\S+) != ''", term)
            assert found, f"the test's runner cannot evaluate `{term}`"
            result = result and self.value(found.group(1)) != ""
        return result

    def run(self, step: dict[str, Any], step_id: str | None) -> int:
        script = self.workspace.parent / "step.sh"
        script.write_text(step["run"], encoding="utf-8")
        outputs = self.workspace.parent / "output.txt"
        outputs.write_text("", encoding="utf-8")
        env = {**self.env, **{k: self.sub(v) for k, v in (step.get("env") or {}).items()}}
        env["GITHUB_OUTPUT"] = str(outputs)
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if step_id:
            for line in outputs.read_text(encoding="utf-8").splitlines():
                key, _, val = line.partition("=")
                self.context[f"steps.{step_id}.outputs.{key}"] = val
        if proc.returncode:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
        return proc.returncode

    def uses(self, step: dict[str, Any]) -> int:
        name = step["uses"].split("@")[0]
        given = {k: self.sub(v) for k, v in (step.get("with") or {}).items()}
        if name == OWN:
            return self.action(given)
        if name == "actions/upload-artifact":
            shutil.copytree(self.workspace / given["path"], self.artifacts / given["name"])
        elif name == "actions/download-artifact":
            for artifact in sorted(self.artifacts.iterdir()):
                if fnmatch.fnmatch(artifact.name, given["pattern"]):
                    shutil.copytree(artifact, self.workspace / given["path"] / artifact.name)
        elif name == "actions/checkout" and given.get("repository") == OWN:
            # This repository at the action's ref: the action's own checkout stands in for it.
            shutil.copytree(self.context["github.action_path"], self.workspace / given["path"])
        else:
            assert name in ("actions/checkout", "actions/setup-python"), name
        return 0

    def steps(self, steps: list[dict[str, Any]]) -> int:
        """Run steps in order; the first that fails ends the job (later `if: always()` steps still run)."""
        code = 0
        for step in steps:
            if code and "always()" not in str(step.get("if")):
                continue
            if not self.condition(step.get("if")):
                continue
            result = self.uses(step) if "uses" in step else self.run(step, step.get("id"))
            code = code or result
        return code

    def action(self, given: dict[str, str]) -> int:
        """This repository's action with those inputs (the rest at their defaults)."""
        unknown = set(given) - set(ACTION["inputs"])
        assert not unknown, f"inputs the action does not have: {unknown}"
        saved = dict(self.context)
        for name, spec in ACTION["inputs"].items():
            self.context[f"inputs.{name}"] = given.get(name, str(spec.get("default", "")))
        try:
            return self.steps(ACTION["runs"]["steps"])
        finally:
            outputs = {k: v for k, v in self.context.items() if k.startswith("steps.run.")}
            self.context = {**saved, **outputs}


def _site_dirs() -> list[str]:
    """The site-packages folders this test process imports from: the test environment's own (a venv made by
    `pip install -e '.[test]'`, or the interpreter's), and the base interpreter's only if that environment sees it."""
    return [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages") and Path(p).is_dir()]


@pytest.fixture(scope="module")
def runner_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """A fresh Python environment to install into and the action's checkout: this repository's files, as
    `github.action_path`. The environment has no pip, setuptools or dependencies of its own: a `.pth` file lends it
    this test environment's (pip, the `test` extra's setuptools, which builds a wheel with no `wheel` package, and
    a2a-lab's dependencies), so nothing depends on the base interpreter's site-packages or its setuptools, and
    nothing comes from the network. What the action's pip installs goes into the venv itself, ahead of those."""
    base = tmp_path_factory.mktemp("runner")
    action_path = base / "action"
    shutil.copytree(
        ROOT,
        action_path,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__", "tests", "benchmarks"),
    )
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    own = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    # Plain paths, not site dirs: the test environment's own .pth files (its editable a2a-lab) are not read.
    (Path(own) / "a2a_lab_test_environment.pth").write_text("\n".join(_site_dirs()) + "\n", encoding="utf-8")
    env = {
        **{
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTEST", "VIRTUAL_ENV")) and k not in ("PYTHONPATH", "PYTHONHOME")
        },
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "PIP_NO_INDEX": "1",  # nothing from the network
        "PIP_NO_DEPS": "1",
        "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling of --no-build-isolation
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return action_path, env


def _runner(runner_env: tuple[Path, dict[str, str]], tmp_path: Path) -> Runner:
    action_path, env = runner_env
    workspace = tmp_path / "workspace"
    (workspace / "bin").mkdir(parents=True)
    runner = Runner(workspace, env, tmp_path / "artifacts")
    runner.artifacts.mkdir()
    runner.context["github.action_path"] = str(action_path)
    return runner


def test_the_example_workflow_runs_two_shards_and_merges_them(
    runner_env: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    runner = _runner(runner_env, tmp_path)
    client = runner.workspace / "bin" / "my-client"
    client.write_text(f'#!/bin/sh\nexec python "{FAKE}" "$@"\n', encoding="utf-8")
    client.chmod(0o755)
    (runner.workspace / "a2a-baseline.yaml").write_text("{}\n", encoding="utf-8")
    job = WORKFLOW["jobs"]["a2a"]
    shards = job["strategy"]["matrix"]["shard"]
    assert shards == ["1/2", "2/2"]
    for index, shard in enumerate(shards):
        runner.context.update({"matrix.shard": shard, "strategy.job-index": str(index)})
        steps = [dict(s) for s in job["steps"]]
        for step in steps:
            if step.get("uses", "").startswith(OWN):
                # A short selection for the test (the example runs the whole catalogue).
                step["with"] = {**step["with"], "scenarios": SCENARIOS, "args": "--client-supports jsonrpc@1.0"}
        assert runner.steps(steps) == 0, f"shard {shard}"
    assert sorted(p.name for p in runner.artifacts.iterdir()) == ["a2a-report-1-of-2", "a2a-report-2-of-2"]

    report_job = WORKFLOW["jobs"]["report"]
    assert report_job["needs"] == "a2a" and report_job["if"] == "always()"
    assert runner.steps(report_job["steps"]) == 0
    merged = runner.artifacts / "a2a-report-merged"
    page = (merged / "index.html").read_text(encoding="utf-8")
    assert "<b>my-client</b>" in page and "merged from 2 report(s)" in page
    cases = ET.parse(merged / "junit.xml").getroot().iter("testcase")
    assert {c.get("classname") for c in cases} == set(SCENARIOS.split())


def test_the_action_uploads_the_report_and_fails_the_job_when_the_client_fails(
    runner_env: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    runner = _runner(runner_env, tmp_path)
    (runner.workspace / "spec" / "conformant-lookalike").mkdir(parents=True)  # a shell glob would match this
    code = runner.action(
        {"client": f"python {FAKE} --defect no-header", "scenarios": "spec/conf*", "report-dir": "out/a2a"}
    )
    assert code == 1, "the gate step fails the job"
    assert runner.context["steps.run.outputs.exit-code"] == "1"
    report = json.loads((runner.artifacts / "a2a-report" / "report.json").read_text(encoding="utf-8"))
    assert [s["id"] for s in report["scenarios"]] == ["spec/conformant"] and report["summary"]["gate"] == "failed"
    assert (runner.artifacts / "a2a-report" / "index.html").exists()


def test_the_action_runs_a_loop_client(runner_env: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    """`client-mode: loop` reaches `a2a-lab run --client-mode loop` (the built-in client speaks it)."""
    runner = _runner(runner_env, tmp_path)
    code = runner.action({"client": "builtin", "client-mode": "loop", "scenarios": "spec/conf*", "report-dir": "out"})
    assert code == 0
    report = json.loads((runner.artifacts / "a2a-report" / "report.json").read_text(encoding="utf-8"))
    assert report["client_mode"] == "loop" and report["client"].endswith("--loop")
    assert [s["outcome"] for s in report["scenarios"]] == ["PASS"]
