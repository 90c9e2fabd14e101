"""No container runtime here: keep docker-compose.yml, its override example and the Dockerfile honest by checking
what compose would do with them (variable interpolation, who writes ./reports, the order `docker compose run
harness` starts services in) and by running the services' exact command lines locally (same entry points and
arguments; loopback instead of service names), in that order, with the environment the README's commands set."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
OVERRIDE_TEXT = (ROOT / "docs" / "examples" / "compose-my-client.yml").read_text(encoding="utf-8")
#: The README's compose flow, word for word (the test runs its first two lines).
FLOW = [
    "mkdir -p reports",
    'export A2A_LAB_UID="$(id -u)" A2A_LAB_GID="$(id -g)" A2A_LAB_ADMIN_TOKEN="$(openssl rand -hex 32)"',
    "docker compose run --rm harness",
    "docker compose down",
]


class Override:
    """Compose's `!override` tag: the value replaces the base file's instead of merging with it."""

    def __init__(self, value: Any) -> None:
        self.value = value


class _Loader(yaml.SafeLoader):
    pass


def _override(loader: yaml.SafeLoader, node: yaml.Node) -> Override:
    if isinstance(node, yaml.MappingNode):
        return Override(loader.construct_mapping(node, deep=True))
    assert isinstance(node, yaml.SequenceNode), "!override on a mapping or a list"
    return Override(loader.construct_sequence(node, deep=True))


_Loader.add_constructor("!override", _override)


def load(text: str) -> dict[str, Any]:
    return yaml.load(text, Loader=_Loader)  # a SafeLoader with one more tag


def merge(base: Any, over: Any) -> Any:
    """Compose's merge of an override file: mappings merge key by key, `!override` replaces."""
    if isinstance(over, Override):
        return over.value
    if isinstance(base, dict) and isinstance(over, dict):
        return {
            k: merge(base[k], over[k]) if k in base and k in over else over.get(k, base.get(k)) for k in base | over
        }
    return over


class ComposeError(ValueError):
    pass


_TEMPLATE = re.compile(r"\$(?:(\$)|\{([^}]*)\}|([_A-Za-z][_A-Za-z0-9]*)|(.?))")


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's variable interpolation: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR:?error}`; anything
    else after a `$` is an invalid template (compose refuses the file)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(m: re.Match[str]) -> str:
        escaped, braced, named, invalid = m.groups()
        if escaped:
            return "$"
        if invalid is not None:
            raise ComposeError(f"invalid template: {value!r}")
        parts = re.fullmatch(r"([_A-Za-z][_A-Za-z0-9]*)(?:(:-|:\?)(.*))?", braced or named, re.S)
        if parts is None:
            raise ComposeError(f"invalid substitution: {m.group(0)!r}")
        name, op, arg = parts.groups()
        got = env.get(name, "")
        if op == ":?" and not got:
            raise ComposeError(f"required variable {name} is missing a value: {arg}")
        return got or (arg if op == ":-" else "")

    return _TEMPLATE.sub(one, value)


def flow_env(tmp_path: Path) -> dict[str, str]:
    """The environment after the README's first two lines, run in tmp_path."""
    script = "\n".join([*FLOW[:2], "env -0"])
    out = subprocess.run(["bash", "-ec", script], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


def start_order(services: dict[str, Any], target: str) -> list[tuple[str, str]]:
    """What `docker compose run target` starts, in order, each with the condition compose waits for."""
    order: list[tuple[str, str]] = []

    def visit(name: str, condition: str) -> None:
        for dep, spec in (services[name].get("depends_on") or {}).items():
            visit(dep, spec["condition"])
        if name not in [n for n, _ in order]:
            order.append((name, condition))

    visit(target, "run")
    return order


COMPOSE = load(COMPOSE_TEXT)


def test_the_readme_flow_is_run_not_up_with_exit_code_from() -> None:
    block = re.search(r"```sh\n(mkdir -p reports\n.*?)```", README, re.S)
    assert block, "the README shows the compose flow"
    assert [line.split("  #")[0].rstrip() for line in block.group(1).strip().splitlines()] == FLOW
    # `up --exit-code-from` implies --abort-on-container-exit: the stack stops when example-client exits 0.
    commands = [line for line in README.splitlines() + COMPOSE_TEXT.splitlines() if "docker compose" in line]
    assert not [c for c in commands if "--abort-on-container-exit" in c or ("--exit-code-from" in c and "Not" not in c)]


def test_harness_waits_for_a_healthy_server_and_a_client_that_finished() -> None:
    assert set(COMPOSE["services"]) == {"server", "example-client", "harness"}
    assert start_order(COMPOSE["services"], "harness") == [
        ("server", "service_healthy"),
        ("example-client", "service_completed_successfully"),
        ("harness", "run"),
    ]


def test_no_default_token_and_the_port_on_loopback_only(tmp_path: Path) -> None:
    env = flow_env(tmp_path)
    assert re.fullmatch(r"[0-9a-f]{64}", env["A2A_LAB_ADMIN_TOKEN"])
    for missing in ("A2A_LAB_ADMIN_TOKEN", "A2A_LAB_UID", "A2A_LAB_GID"):
        with pytest.raises(ComposeError, match=f"required variable {missing} "):
            interpolate(COMPOSE, {k: v for k, v in env.items() if k != missing})
    assert "change-me" not in COMPOSE_TEXT + README
    ports = [p for s in COMPOSE["services"].values() for p in s.get("ports", [])]
    assert ports == ["127.0.0.1:8000:8000"]


def test_whoever_writes_the_reports_folder_writes_it_as_the_user(tmp_path: Path) -> None:
    """A bind mount keeps the host's owners: the image's user (uid 10001) usually cannot write a Linux user's
    ./reports, so every service that mounts it runs as the user the README's commands name."""
    env = flow_env(tmp_path)
    assert (tmp_path / "reports").is_dir(), "created by the user before compose could create it as root"
    base = interpolate(COMPOSE, env)
    merged = interpolate(merge(COMPOSE, load(OVERRIDE_TEXT)), env)
    for services in (base["services"], merged["services"]):
        writers = [n for n, s in services.items() if "./reports:/reports" in s.get("volumes", [])]
        assert writers and "server" not in writers
        for name in writers:
            assert services[name]["user"] == f"{os.getuid()}:{os.getgid()}", name
        assert all(v == "./reports:/reports" for s in services.values() for v in s.get("volumes", []))


def test_the_override_example_puts_your_client_in_the_example_clients_place() -> None:
    services = merge(COMPOSE, load(OVERRIDE_TEXT))["services"]
    assert start_order(services, "harness") == [
        ("server", "service_healthy"),
        ("my-client", "service_completed_successfully"),
        ("harness", "run"),
    ]
    command = services["my-client"]["command"]
    assert command[:3] == ["a2a-lab", "drive", "--server"] and command[-2:] == ["--run-file", "/reports/run.json"]
    dockerfile = ROOT / services["my-client"]["build"]["dockerfile"]
    assert "pip install --no-cache-dir a2a-lab" in dockerfile.read_text(encoding="utf-8")


def _local(argv: list[str], server_url: str, reports: Path) -> list[str]:
    """Compose's network names and mounts, mapped onto this machine."""
    out = [arg.replace("http://server:8000", server_url).replace("/reports", str(reports)) for arg in argv]
    if out[0] == "a2a-lab":
        out = [sys.executable, "-m", "a2a_lab.harness.cli", *out[1:]]
    return out


def test_dockerfile_installs_the_project_as_non_root_with_a_healthcheck() -> None:
    docker = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert re.search(r"^FROM python:3\.\d+-slim", docker, re.M)
    assert "pip install --no-cache-dir ." in docker and re.search(r"^USER lab", docker, re.M)
    assert "HEALTHCHECK" in docker and "agent-card.json" in docker
    copied = re.findall(r"^COPY (\S+)", docker, re.M)
    for folder in ("protocol", "server", "harness", "scenarios", "pyproject.toml"):
        assert folder in copied, f"the image must contain {folder}"


def test_compose_services_work_together(tmp_path: Path) -> None:
    """The services' command lines, in the order `docker compose run harness` starts them, with the README's env."""
    flow = flow_env(tmp_path)
    env = {**os.environ, **{k: v for k, v in flow.items() if k.startswith("A2A_LAB_")}}
    services = interpolate(COMPOSE, flow)["services"]
    assert [name for name, _ in start_order(services, "harness")] == ["server", "example-client", "harness"]
    tmp_path = tmp_path / "reports"
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
