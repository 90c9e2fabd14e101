"""One client, one verdict, whatever the path (issue 27, part 4): `a2a-lab run`, `run --server` and `drive` + `score`
judge the same client the same way, scenario by scenario, because the run file carries what scoring reads of the
client's processes (exit codes, timeouts, output tails, A2A_LAB_RESULT) and `score` scores exactly what was driven.
And the client's environment is an allow-list (issue 28, part 3). Real `a2a-lab` processes, a real `a2a-lab serve` on
loopback, real client processes."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.harness.cli import presets
from a2a_lab.harness.client_judging import process, runner
from a2a_lab.harness.common.model import MISSES
from a2a_lab.harness.pytest_plugin import Lab
from a2a_lab.server.push import target_refusal
from a2a_lab.server.shared import CatalogueApp

from .lab_serve import Served, a2a_lab, differences, lab_server, outcomes

FAKE = Path(__file__).parent / "clients" / "fake_client.py"
#: Scenarios whose verdict rests on the client's result file (RESULT-MATCHES / RESULT-EXPECTED), on its exit code, or
#: on neither.
SCENARIOS = [
    "errors/html-500-page",
    "responses/input-required",
    "spec/conformant",
    "quirks/mixed-version-direct-message",
]
CLIENTS = {
    "builtin": "builtin",
    # Writes a result whose state and text differ from what the server sent: RESULT-MATCHES fails, on every path.
    "wrong-result": shlex.join([sys.executable, str(FAKE), "--defect", "wrong-result"]),
}


def selection(ids: list[str]) -> list[str]:
    return [a for sid in ids for a in ("--scenario", sid)]


@pytest.fixture(scope="module")
def shared() -> Iterator[Served]:
    with lab_server() as served:
        yield served


def three_ways(
    served: Served, client: str, ids: list[str], folder: Path
) -> dict[str, subprocess.CompletedProcess[str]]:
    """The same client over the same scenarios: `run` (a server of its own per scenario), `run --server`, and
    `drive` then `score`; each writes folder/<way>.json."""
    folder.mkdir(parents=True, exist_ok=True)
    admin = {"A2A_LAB_ADMIN_TOKEN": served.admin_token}
    done = {
        "run": a2a_lab("run", "--client", client, *selection(ids), "--json", str(folder / "run.json")),
        "run --server": a2a_lab(
            "run",
            "--server",
            served.url,
            "--client",
            client,
            *selection(ids),
            "--json",
            str(folder / "run --server.json"),
            env=admin,
        ),
    }
    run_file = folder / "run-file.json"
    drive = a2a_lab(
        "drive", "--server", served.url, "--client", client, *selection(ids), "--run-file", str(run_file), env=admin
    )
    assert drive.returncode == 0, drive.stderr
    done["drive + score"] = a2a_lab(
        "score", "--server", served.url, "--run-file", str(run_file), "--json", str(folder / "drive + score.json")
    )
    return done


@pytest.mark.parametrize("name", list(CLIENTS))
def test_run_run_server_and_drive_score_give_one_verdict(shared: Served, name: str, tmp_path: Path) -> None:
    done = three_ways(shared, CLIENTS[name], SCENARIOS, tmp_path)
    verdicts = {way: outcomes(tmp_path / f"{way}.json") for way in done}
    for way in ("run --server", "drive + score"):
        assert differences(verdicts["run"], verdicts[way]) == [], way
    assert {way: proc.returncode for way, proc in done.items()} == dict.fromkeys(done, 0 if name == "builtin" else 1)
    judged = verdicts["drive + score"]
    if name == "builtin":
        assert {v["outcome"] for v in judged.values()} == {"PASS"}, judged
    else:  # the lie is caught on every path, from the result file `drive` handed over
        assert judged["responses/input-required"]["outcome"] == "FAIL"
        assert "RESULT-MATCHES" in judged["responses/input-required"]["missed"]
    report = json.loads((tmp_path / "drive + score.json").read_text(encoding="utf-8"))
    driven = {s["id"]: s["client"] for s in report["scenarios"]}
    assert all(c["command"] and c["exit_code"] is not None for c in driven.values()), "the client's runs travelled"


def test_score_scores_exactly_what_was_driven(shared: Served, tmp_path: Path) -> None:
    run_file = tmp_path / "run.json"
    drive = a2a_lab(
        "drive", "--server", shared.url, *selection(["responses/direct-message", "spec/conformant"]),
        "--run-file", str(run_file), env={"A2A_LAB_ADMIN_TOKEN": shared.admin_token},
    )  # fmt: skip
    assert drive.returncode == 0, drive.stderr
    score = a2a_lab("score", "--server", shared.url, "--run-file", str(run_file), "--json", str(tmp_path / "all.json"))
    assert score.returncode == 0, score.stdout + score.stderr
    assert list(outcomes(tmp_path / "all.json")) == ["responses/direct-message", "spec/conformant"]
    assert "NO_CONTACT" not in score.stdout
    # --scenario narrows what was driven ...
    one = a2a_lab(
        "score",
        "--server",
        shared.url,
        "--run-file",
        str(run_file),
        "--scenario",
        "spec/*",
        "--json",
        str(tmp_path / "one.json"),
    )
    assert one.returncode == 0 and list(outcomes(tmp_path / "one.json")) == ["spec/conformant"], one.stderr
    # ... and a scenario that was not driven is a usage error, not a NO_CONTACT.
    other = a2a_lab("score", "--server", shared.url, "--run-file", str(run_file), "--scenario", "push/*")
    assert other.returncode == 2, other.stdout + other.stderr
    assert other.stderr.strip() == (
        f"a2a-lab: {run_file}: none of the 2 scenario(s) driven in this run matches --scenario push/* (minus nothing); "
        "leave --scenario out to score all that were driven"
    )


def test_drive_exits_2_when_the_client_never_started_and_score_agrees_with_run(shared: Served, tmp_path: Path) -> None:
    missing = shlex.join([sys.executable, str(tmp_path / "missing.py")])
    ids = ["spec/conformant", "spec/tck-sut"]
    run_file = tmp_path / "run.json"
    admin = {"A2A_LAB_ADMIN_TOKEN": shared.admin_token}
    drive = a2a_lab(
        "drive", "--server", shared.url, "--client", missing, *selection(ids), "--run-file", str(run_file), env=admin
    )
    assert drive.returncode == 2, drive.stderr
    said = drive.stderr.rpartition("a2a-lab: the client never started: ")[2]
    assert said.startswith("it exited 2 before any request, in all 2 scenario(s)") and "can't open file" in said
    assert "fix the --client command" in said
    score = a2a_lab("score", "--server", shared.url, "--run-file", str(run_file))
    run = a2a_lab("run", "--client", missing, *selection(ids))
    assert score.returncode == run.returncode == 2
    assert "the client never started" in score.stderr and "the client never started" in run.stderr
    # A client that starts and makes no call is scored (NO_CONTACT, exit 1) on every path, not a usage error.
    drive = a2a_lab(
        "drive", "--server", shared.url, "--client", "true", *selection(ids), "--run-file", str(run_file), env=admin
    )
    assert drive.returncode == 0, drive.stderr
    score = a2a_lab("score", "--server", shared.url, "--run-file", str(run_file))
    run = a2a_lab("run", "--client", "true", *selection(ids))
    assert score.returncode == run.returncode == 1 and "NO_CONTACT" in score.stdout


@pytest.mark.parametrize(
    "content, says",
    [
        ("not json", 'a run file is JSON {"run": ID, "token": TOKEN, ...}, as `a2a-lab drive --run-file` writes it'),
        (
            json.dumps({"run": "r", "token": "t", "client": "c", "seed": 0, "scenarios": [{"id": 1}]}),
            "the run file's scenarios cannot be read (scenarios[0]: an object with an id of its own); drive the "
            "client again with `a2a-lab drive --run-file`",
        ),
        (
            json.dumps(
                {
                    "run": "r",
                    "token": "t",
                    "client": "c",
                    "seed": 0,
                    "scenarios": [{"id": "spec/conformant", "client": {}}],
                }
            ),
            "the run file's scenarios cannot be read (scenarios[0].client: no command)",
        ),
    ],
    ids=["not-json", "bad-id", "no-client-run"],
)
def test_a_broken_run_file_is_a_usage_error(shared: Served, content: str, says: str, tmp_path: Path) -> None:
    path = tmp_path / "run.json"
    path.write_text(content, encoding="utf-8")
    score = a2a_lab("score", "--server", shared.url, "--run-file", str(path))
    assert score.returncode == 2 and says in score.stderr and str(path) in score.stderr, score.stderr


# ==================================================================================== the client's environment

ENV_DUMP = f"""\
import json, os, sys
json.dump(dict(os.environ), open(os.environ["DUMP_TO"], "w"))
if os.environ.get("NEEDED") != "yes":
    sys.exit("NEEDED is not set")
os.execv(sys.executable, [sys.executable, {str(FAKE)!r}, *sys.argv[1:]])  # then a correct client
"""


def test_the_client_gets_the_allow_list_what_it_is_given_and_the_handshake(tmp_path: Path) -> None:
    client = tmp_path / "env_dump.py"
    client.write_text(ENV_DUMP, encoding="utf-8")
    dump = tmp_path / "env.json"
    harness_env = {
        "A2A_LAB_ADMIN_TOKEN": "admin-token-of-the-shared-server-0123456789",
        "A2A_LAB_RUN_TOKEN": "a-run-token-0123456789",
        "GITHUB_TOKEN": "ghp_0123456789",
        "NODE_AUTH_TOKEN": "npm-publish-0123456789",
        "AWS_SECRET_ACCESS_KEY": "aws-0123456789",
        "HTTPS_PROXY": "http://proxy.invalid:3128",
        "http_proxy": "http://proxy.invalid:3128",
        "NEEDED": "yes",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NODE_OPTIONS": "--no-warnings",
    }
    command = shlex.join([sys.executable, str(client)])
    given = ["--client-env", "NEEDED", "--client-env", f"DUMP_TO={dump}", "--client-env", "EXTRA=x=y"]
    passes = a2a_lab("run", "--client", command, *given, "--scenario", "spec/conformant", env=harness_env)
    env = json.loads(dump.read_text(encoding="utf-8"))
    assert passes.returncode == 0, passes.stdout + passes.stderr
    for name in (
        "A2A_LAB_ADMIN_TOKEN",
        "A2A_LAB_RUN_TOKEN",
        "GITHUB_TOKEN",
        "NODE_AUTH_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
    ):
        assert name not in env, name
    assert not any("proxy.invalid" in value for value in env.values())
    assert env["NO_PROXY"] == env["no_proxy"] == "*"
    assert {k: env[k] for k in ("NEEDED", "EXTRA", "LC_ALL", "PYTHONDONTWRITEBYTECODE", "NODE_OPTIONS")} == {
        "NEEDED": "yes",
        "EXTRA": "x=y",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "NODE_OPTIONS": "--no-warnings",
    }
    assert env["PATH"] == os.environ["PATH"] and env["A2A_LAB_SCENARIO"] == "spec/conformant"
    handshake = {"A2A_LAB_CARD_URL", "A2A_LAB_BASE_URL", "A2A_LAB_MESSAGE", "A2A_LAB_ACTION", "A2A_LAB_RESULT"}
    assert handshake <= set(env)
    # What the client was not given, it does not have: the same client fails without `--client-env NEEDED`.
    fails = a2a_lab("run", "--client", command, given[2], given[3], "--scenario", "spec/conformant", env=harness_env)
    assert fails.returncode == 2 and "NEEDED is not set" in fails.stderr, fails.stderr


@pytest.mark.parametrize(
    "args, says",
    [
        (["--client-env", "A2A_LAB_ADMIN_TOKEN"], "--client-env A2A_LAB_ADMIN_TOKEN: the client under test never gets"),
        (["--client-env", "A2A_LAB_RUN_TOKEN=x"], "--client-env A2A_LAB_RUN_TOKEN: the client under test never gets"),
        (["--client-env", "A2A_LAB_UNSET_FOR_THIS_TEST"], "A2A_LAB_UNSET_FOR_THIS_TEST is not set in this environment"),
        (
            ["--client-env", "1BAD=x"],
            "--client-env '1BAD=x': give NAME (passed on from this environment) or NAME=VALUE",
        ),
        (["--client-env", "A2A_LAB_RESULT=/tmp/x"], "--client-env A2A_LAB_RESULT: a2a-lab sets it for every scenario"),
        (["--client-env", "COPY=pre-admin-token-0123456789-post"], "its value holds the shared server's admin token"),
        (["--webhook-host", "http://client:9/"], "--webhook-host 'http://client:9/': give the host name or address"),
        (["--admin-token-file", "/nonexistent/token"], "--admin-token-file /nonexistent/token: cannot read it"),
        (["--admin-token", "x", "--admin-token-file", "/dev/null"], "--admin-token and --admin-token-file: give one"),
    ],
    ids=[
        "admin-token",
        "run-token",
        "unset",
        "bad-name",
        "handshake",
        "holds-the-token",
        "webhook-url",
        "no-file",
        "both",
    ],
)
@pytest.mark.parametrize("command", ["run", "drive"])
def test_bad_client_environment_options_are_refused(command: str, args: list[str], says: str, tmp_path: Path) -> None:
    server = ["--server", "http://127.0.0.1:9"] if command == "drive" else []
    proc = a2a_lab(
        command, *server, "--client", "true", "--scenario", "spec/conformant", *args,
        env={"A2A_LAB_ADMIN_TOKEN": "pre-admin-token-0123456789-post"[4:-5]},
    )  # fmt: skip
    assert proc.returncode == 2 and says in proc.stderr, proc.stderr
    assert "spec/conformant (" not in proc.stderr, "refused before anything ran"


@pytest.mark.parametrize(
    "args, says",
    [
        (["--other-origin", "server/alias"], "--other-origin 'server/alias': give another name of this server"),
        (["--other-origin", "ftp://server"], "--other-origin 'ftp://server': give another name of this server"),
        (["--push-allow", "http://client:9"], "--push-allow 'http://client:9': give a host name or address only"),
        (["--admin-token-file", "/nonexistent/token"], "--admin-token-file /nonexistent/token: cannot read it"),
    ],
    ids=["path", "scheme", "url", "no-file"],
)
def test_bad_serve_options_are_refused(args: list[str], says: str) -> None:
    proc = a2a_lab("serve", "--port", "0", *args, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith(f"a2a-lab: {says}"), proc.stderr


def test_the_admin_token_file_gives_the_token(shared: Served, tmp_path: Path) -> None:
    """`--admin-token-file` (a docker secret, a file only the harness can read): `drive` starts its run with it; a
    wrong token in it is the server's 403, said so."""
    token_file = tmp_path / "token"
    token_file.write_text(shared.admin_token + "\n", encoding="utf-8")
    ok = a2a_lab(
        "drive", "--server", shared.url, "--client", "true", "--scenario", "spec/conformant",
        "--admin-token-file", str(token_file), env={"A2A_LAB_ADMIN_TOKEN": ""},
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    token_file.write_text("not-the-token\n", encoding="utf-8")
    wrong = a2a_lab(
        "drive", "--server", shared.url, "--client", "true", "--scenario", "spec/conformant",
        "--admin-token-file", str(token_file), env={"A2A_LAB_ADMIN_TOKEN": ""},
    )  # fmt: skip
    assert wrong.returncode == 2 and "HTTP 403" in wrong.stderr and "--admin-token" in wrong.stderr, wrong.stderr


def test_push_allow_adds_hosts_and_only_those() -> None:
    cat = Catalogue.load()
    app = CatalogueApp([cat.get("push/webhook-with-credentials")], push_allow=("my-client",))
    state = app.apps["push/webhook-with-credentials"].state
    assert target_refusal("http://my-client:8080/hook", state.push_allow) is None
    refused = target_refusal("http://other-client:8080/hook", state.push_allow)
    assert refused is not None and "a2a-lab serve --push-allow HOST" in refused
    plain = CatalogueApp([cat.get("push/webhook-with-credentials")]).apps["push/webhook-with-credentials"].state
    assert target_refusal("http://my-client:8080/hook", plain.push_allow) is not None


# ==================================================================================== the pytest plugin


@pytest.mark.parametrize("name", list(CLIENTS))
def test_the_pytest_plugin_gives_runs_verdict(name: str, tmp_path: Path) -> None:
    """A test that serves a scenario with the plugin, runs the same client process against it (the handshake's
    environment), and scores with what `a2a-lab run` records (the result file, the exit code, the end of stderr, and
    the bindings the run inferred: `supports`) gets `run`'s verdict."""
    cat = Catalogue.load()
    ids = [*SCENARIOS, "push/webhook-with-credentials"]
    command = presets.resolve(CLIENTS[name])
    results, supports = runner.run_all([cat.get(i) for i in ids], runner.RunOptions(command, jobs=2))
    ran = {r.id: (r.outcome.value, sorted(c.id for c in r.checks if c.outcome in MISSES)) for r in results}
    lab = Lab()
    scored = {}
    try:
        for sid in ids:
            served = lab.serve(sid)
            path = tmp_path / f"{sid.replace('/', '_')}.json"
            env = runner.client_env(served.scenario, served.card_url, served.base_url, str(path), {})
            argv = process.command_for(command, served.card_url, served.base_url)
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
            result, _ = runner.read_result(path)
            score = served.score(
                result=result, supports=sorted(supports), exit_code=done.returncode, stderr=done.stderr
            )
            scored[sid] = (score.outcome.value, sorted(c.id for c in score.failures()))
    finally:
        lab.close()
    assert scored == ran
    assert {outcome for outcome, _ in scored.values()} == ({"PASS"} if name == "builtin" else {"PASS", "FAIL"})
