"""No container runtime here: keep docker-compose.yml and the Dockerfile honest by running their exact
command lines locally (same entry points and arguments; loopback instead of service names) together."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def _local(argv: list[str], server_url: str, reports: Path) -> list[str]:
    """Compose's network names and mounts, mapped onto this machine."""
    out = []
    for arg in argv:
        arg = arg.replace("http://server:8000", server_url).replace("/reports", str(reports))
        out.append(arg)
    if out[0] == "a2a-lab":
        out = [sys.executable, "-m", "a2a_lab.harness.cli", *out[1:]]
    return out


def test_services_are_the_three_the_readme_names() -> None:
    assert set(COMPOSE["services"]) == {"server", "example-client", "harness"}
    assert COMPOSE["services"]["example-client"]["depends_on"]["server"]["condition"] == "service_healthy"
    assert (
        COMPOSE["services"]["harness"]["depends_on"]["example-client"]["condition"] == "service_completed_successfully"
    )


def test_dockerfile_installs_the_project_as_non_root_with_a_healthcheck() -> None:
    docker = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.\d+-slim", docker, re.M)
    assert "pip install --no-cache-dir ." in docker and re.search(r"^USER lab", docker, re.M)
    assert "HEALTHCHECK" in docker and "agent-card.json" in docker
    copied = re.findall(r"^COPY (\S+)", docker, re.M)
    for folder in ("protocol", "server", "harness", "scenarios", "pyproject.toml"):
        assert folder in copied, f"the image must contain {folder}"


def test_compose_services_work_together(tmp_path: Path) -> None:
    env = {**os.environ, "A2A_LAB_ADMIN_TOKEN": "compose-test-token"}
    services = COMPOSE["services"]
    server_argv = list(services["server"]["command"])
    # The server listens on 0.0.0.0:8000 in its container; here on loopback and a free port.
    host_i, port_i = server_argv.index("--host") + 1, server_argv.index("--port") + 1
    server_argv[host_i], server_argv[port_i] = "127.0.0.1", "0"
    server = subprocess.Popen(_local(server_argv, "", tmp_path), env=env, stderr=subprocess.PIPE, text=True)
    try:
        url = None
        assert server.stderr is not None
        for line in server.stderr:
            found = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
            if found:
                url = found.group(1)
                break
        assert url, "the server did not report its address"
        cmd, interpreter, flag, code = services["server"]["healthcheck"]["test"]
        assert (cmd, interpreter, flag) == ("CMD", "python", "-c")
        health = subprocess.run(
            [sys.executable, "-c", code.replace("http://127.0.0.1:8000", url)],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert health.returncode == 0, health.stderr
        drive = subprocess.run(
            [
                *_local(services["example-client"]["command"], url, tmp_path),
                "--scenario",
                "spec/*",
                "--scenario",
                "quirks/*",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert drive.returncode == 0, drive.stderr
        run_file = tmp_path / "run.json"
        assert json.loads(run_file.read_text())["run"] == drive.stdout.strip()
        assert run_file.stat().st_mode & 0o777 == 0o600, "the run file holds the run's token: this user's only"
        score = subprocess.run(
            [*_local(services["harness"]["command"], url, tmp_path), "--scenario", "spec/*", "--scenario", "quirks/*"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert score.returncode == 0, score.stdout + score.stderr
        report = json.loads((tmp_path / "report.json").read_text())
        assert report["summary"]["gate"] == "passed" and report["summary"]["scenarios"] >= 6
        assert (tmp_path / "junit.xml").exists() and (tmp_path / "index.html").exists()
    finally:
        server.terminate()
        server.wait(10)
