"""The zygote that serves a2a-handler's CLI in the pin test (tests/peers/clients/handler_zygote.py), with a CLI of the
tests' own (`fakecli`, written below) in place of a2a_handler, under this python: a call's exit code, stdio,
environment, cwd and argv are its caller's; a caller killed mid-call takes its child with it; two calls at once."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent / "clients"))
import handler_zygote

from tests.peers import scorecard

#: The tests' own CLI: `main()` does what argv[1] says.
FAKE_CLI = """
import json, os, sys

def main():
    what = sys.argv[1]
    if what == "exit":
        return int(sys.argv[2])
    if what == "message":
        sys.exit(sys.argv[2])
    if what == "raise":
        raise RuntimeError("the fake CLI raised")
    if what == "echo":
        data = sys.stdin.read()
        sys.stdout.write("out:" + data)
        sys.stderr.write("err:" + data)
        return 0
    if what == "where":
        seen = {"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "pid": os.getpid(), "path": sys.path}
        print(json.dumps(seen))
        return 0
    if what == "wait":  # say its pid, then wait for a line on stdin and exit with the code it gives
        print(os.getpid(), flush=True)
        return int(sys.stdin.readline() or 99)
    raise SystemExit(f"fakecli: unknown {what!r}")
"""
#: A CLI holding a path derived from $HOME when imported, which every call of a zygote would share.
BOUND_CLI = 'import os\nDATA = os.path.join(os.path.expanduser("~"), ".boundcli")\n\ndef main():\n    return 0\n'
#: Generous for a machine at load 8.
DEADLINE_S = 60.0


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("fakecli")
    (folder / "fakecli.py").write_text(FAKE_CLI, encoding="utf-8")
    (folder / "boundcli.py").write_text(BOUND_CLI, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def zygote(modules: Path) -> Iterator[handler_zygote.Zygote]:
    with pytest.MonkeyPatch.context() as patch:  # a variable of the zygote's own environment, not its callers'
        patch.setenv("ZYGOTE_OWN", "1")
        served = handler_zygote.start(sys.executable, "fakecli:main", "/opt/fake/bin/fakecli", [str(modules)])
    with served:
        yield served


def run(zygote: handler_zygote.Zygote, *args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **zygote.env(), **kwargs.pop("env", {})}  # type: ignore[dict-item]
    return subprocess.run(
        [zygote.launcher, *args], env=env, capture_output=True, text=True, timeout=DEADLINE_S, **kwargs
    )  # type: ignore[call-overload]


def gone(pid: int) -> bool:
    """Whether no process `pid` exists any more (not even a zombie: the zygote reaped it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_until(condition: object, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"not within {DEADLINE_S} s: {what}"
        time.sleep(0.02)  # polling with a deadline, not synchronisation by sleeping


def test_exit_codes_are_relayed(zygote: handler_zygote.Zygote) -> None:
    assert run(zygote, "exit", "0").returncode == 0
    assert run(zygote, "exit", "3").returncode == 3
    assert run(zygote, "exit", "42").returncode == 42
    said = run(zygote, "message", "no such server")
    assert (said.returncode, said.stderr) == (1, "no such server\n")
    raised = run(zygote, "raise")
    assert raised.returncode == 1 and "RuntimeError: the fake CLI raised" in raised.stderr


def test_stdin_stdout_stderr_are_the_callers(zygote: handler_zygote.Zygote) -> None:
    done = run(zygote, "echo", input="hello\n")
    assert (done.returncode, done.stdout, done.stderr) == (0, "out:hello\n", "err:hello\n")


def test_env_cwd_and_argv_are_the_callers(zygote: handler_zygote.Zygote, tmp_path: Path) -> None:
    done = run(zygote, "where", "--url", "a b", env={"FAKE_VAR": "given"}, cwd=tmp_path)
    seen = json.loads(done.stdout)
    assert seen["cwd"] == str(tmp_path)
    assert seen["argv"] == ["/opt/fake/bin/fakecli", "where", "--url", "a b"]
    assert seen["env"]["FAKE_VAR"] == "given"
    assert handler_zygote.SOCKET_ENV not in seen["env"]  # the launcher's own variable is not the CLI's
    assert "ZYGOTE_OWN" not in seen["env"]  # nor is the zygote's
    assert seen["pid"] != zygote.process.pid
    # the console script's folder on sys.path, as when it runs, not the zygote's (the drivers' folder)
    assert "/opt/fake/bin" in seen["path"] and os.path.dirname(handler_zygote.__file__) not in seen["path"]
    # the next call does not inherit what this one had
    again = json.loads(run(zygote, "where").stdout)
    assert "FAKE_VAR" not in again["env"] and again["cwd"] == os.getcwd()


def start_waiting(zygote: handler_zygote.Zygote) -> tuple[subprocess.Popen[str], int]:
    """A caller (in a process group of its own, as a2a-lab starts a client) whose child waits on its stdin."""
    caller = subprocess.Popen(
        [zygote.launcher, "wait"],
        env={**os.environ, **zygote.env()},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert caller.stdout is not None
    return caller, int(caller.stdout.readline())


def test_a_caller_killed_mid_call_takes_its_child_with_it(zygote: handler_zygote.Zygote) -> None:
    caller, child = start_waiting(zygote)
    assert not gone(child)
    os.killpg(caller.pid, signal.SIGKILL)  # what a2a-lab does at a scenario's timeout: the child is not in that group
    caller.wait(timeout=DEADLINE_S)
    wait_until(lambda: gone(child), f"the child {child} of a killed caller ends and is reaped")
    assert caller.stdin is not None and caller.stdout is not None
    caller.stdin.close()
    caller.stdout.close()
    assert run(zygote, "exit", "5").returncode == 5  # the zygote serves on


def test_a_signal_to_the_caller_is_passed_on_to_its_child(zygote: handler_zygote.Zygote) -> None:
    caller, child = start_waiting(zygote)
    caller.send_signal(signal.SIGTERM)
    assert caller.wait(timeout=DEADLINE_S) == -signal.SIGTERM  # dies of it, as the CLI run in the caller would
    wait_until(lambda: gone(child), f"the child {child} ends with SIGTERM")
    assert caller.stdin is not None and caller.stdout is not None
    caller.stdin.close()
    caller.stdout.close()


def test_two_callers_at_once(zygote: handler_zygote.Zygote) -> None:
    first, first_child = start_waiting(zygote)
    second, second_child = start_waiting(zygote)  # the first still runs: both are served at the same time
    assert first_child != second_child and not gone(first_child) and not gone(second_child)
    assert second.stdin is not None and first.stdin is not None
    second.stdin.write("7\n")
    second.stdin.close()
    assert second.wait(timeout=DEADLINE_S) == 7
    assert first.poll() is None
    first.stdin.write("8\n")
    first.stdin.close()
    assert first.wait(timeout=DEADLINE_S) == 8
    for caller in (first, second):
        assert caller.stdout is not None
        caller.stdout.close()


def test_stopping_the_zygote_kills_its_children_and_removes_its_folder(modules: Path) -> None:
    served = handler_zygote.start(sys.executable, "fakecli:main", "fakecli", [str(modules)])
    caller, child = start_waiting(served)
    served.stop()
    assert served.process.returncode == 0
    wait_until(lambda: gone(child), f"the child {child} of a stopped zygote ends")
    assert caller.wait(timeout=DEADLINE_S) == handler_zygote.NO_ZYGOTE
    assert not Path(served.directory).exists()
    assert caller.stdin is not None and caller.stdout is not None
    caller.stdin.close()
    caller.stdout.close()


def test_a_cli_holding_state_from_the_environment_is_refused(modules: Path) -> None:
    with pytest.raises(RuntimeError, match=r"boundcli\.DATA = .*\.boundcli.*refresh"):
        handler_zygote.start(sys.executable, "boundcli:main", "boundcli", [str(modules)])


def test_no_zygote_is_a_clear_error(tmp_path: Path) -> None:
    launcher = [sys.executable, "-S", "-I", handler_zygote.__file__, "call", "x"]
    env = {k: v for k, v in os.environ.items() if k != handler_zygote.SOCKET_ENV}
    unset = subprocess.run(launcher, env=env, capture_output=True, text=True, timeout=DEADLINE_S)
    assert unset.returncode == 2 and handler_zygote.SOCKET_ENV in unset.stderr
    env[handler_zygote.SOCKET_ENV] = str(tmp_path / "none.sock")
    absent = subprocess.run(launcher, env=env, capture_output=True, text=True, timeout=DEADLINE_S)
    assert absent.returncode == handler_zygote.NO_ZYGOTE and "none.sock" in absent.stderr


def test_refresh_computes_a2a_handlers_directories_under_the_calls_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """a2a-handler 0.4.0 computes these from XDG_* when imported; a call must use its own XDG_* tree."""
    pytest.importorskip("platformdirs")
    fakes = {name: types.ModuleType(name) for name in ("config", "servers", "session")}
    for short, module in fakes.items():
        name = "a2a_handler.common.config" if short == "config" else f"a2a_handler.{short}"
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    handler_zygote.refresh()
    assert tmp_path / "config" / "handler" == fakes["config"].CONFIG_DIR
    assert tmp_path / "config" / "handler" / "config.json" == fakes["config"].CONFIG_FILE
    assert tmp_path / "config" / "handler" == fakes["servers"].DEFAULT_SERVER_DIRECTORY
    assert tmp_path / "data" / "handler" == fakes["session"].DEFAULT_SESSION_DIRECTORY


# --------------------------------------------------------------------------- the real a2a-handler (when installed)


@pytest.fixture(scope="module")
def handler(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[handler_zygote.Zygote, str]]:
    """A zygote of the real a2a-handler 0.4.0 (skipped when tests/peers/install.sh has not made its venv), started
    with an XDG_CONFIG_HOME of its own, and the per-process console script."""
    peers = scorecard.default_peers()
    (peer,) = [p for p in scorecard.PEERS if p.zygote is not None]
    if peer.missing(peers) is not None:
        pytest.skip(f"{peer.name}: {peer.missing(peers)}")
    assert peer.zygote is not None
    python, entry, prog = peer.zygote(peers)
    own = tmp_path_factory.mktemp("zygote-xdg")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(own))
        served = handler_zygote.start(python, entry, prog)
    with served:
        yield served, prog
    assert not any(own.iterdir()), "a call wrote into the zygote's own XDG_CONFIG_HOME"


def test_the_real_cli_answers_as_its_own_process_does(handler: tuple[handler_zygote.Zygote, str]) -> None:
    zygote, prog = handler
    for args in (["--version"], ["no-such-command"], ["--output", "json", "server", "list"]):
        forked = run(zygote, *args)
        own = subprocess.run([prog, *args], capture_output=True, text=True, timeout=DEADLINE_S)
        assert (forked.returncode, forked.stdout, forked.stderr) == (own.returncode, own.stdout, own.stderr), args


def test_the_real_cli_keeps_its_state_in_the_calls_xdg_tree(
    handler: tuple[handler_zygote.Zygote, str], tmp_path: Path
) -> None:
    """a2a-handler computes its config folder from XDG_CONFIG_HOME when imported: each call uses its own."""
    zygote, _prog = handler
    first, second = {"XDG_CONFIG_HOME": str(tmp_path / "a")}, {"XDG_CONFIG_HOME": str(tmp_path / "b")}
    added = run(zygote, "--output", "json", "server", "add", "lab", "--url", "http://127.0.0.1:9", env=first)
    assert added.returncode == 0, added.stderr
    assert json.loads(added.stdout)["path"] == str(tmp_path / "a" / "handler" / "servers.toml")
    listed = run(zygote, "--output", "json", "server", "list", env=first)
    assert [s["name"] for s in json.loads(listed.stdout)] == ["lab"]
    assert json.loads(run(zygote, "--output", "json", "server", "list", env=second).stdout) == []
