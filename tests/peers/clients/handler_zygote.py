"""A fork server ("zygote") for a Python CLI: its modules imported once, each call a fork of that process.

    python handler_zygote.py serve --entry MODULE:FUNC --prog PATH --socket PATH [--path DIR ...]
    python3 -S -I handler_zygote.py call ARG...        (the socket's path in $A2A_LAB_HANDLER_ZYGOTE)

a2a-handler 0.4.0 is a shell user's CLI: tests/peers/clients/a2a_handler.sh runs `handler` several times per
scenario, and each run spends about 0.9 CPU seconds importing a2a_handler before it does anything. The zygote
imports `MODULE` once (under the CLI's own python: the handler venv's); per call, the launcher (`call`, stdlib only,
started with `-S -I` so that its own start-up is a few ms) sends its argv, environment and cwd as JSON and its
stdin/stdout/stderr as file descriptors (SCM_RIGHTS) over a unix socket. The zygote forks; the child puts the
caller's descriptors on 0/1/2, its environment in os.environ, its cwd, and `[PROG, *argv]` in sys.argv, runs FUNC
the way the CLI's console script does (`sys.exit(main())`) and exits with its code, which the zygote relays to the
launcher, which exits with it (or dies of the same signal). The CLI's code, arguments, environment, cwd and stdio
are the caller's; what differs from a fresh process is the state its modules made when imported, under the
zygote's environment: a2a-handler 0.4.0 computes three directories from XDG_* then, which the child computes again
(`refresh`), and the zygote refuses to start when another module constant of the CLI's package lies under $HOME
(`env_bound`), so that a new version's such constant is seen, not silently shared.

A call ends with its caller: a signal the launcher gets (SIGTERM, SIGINT, SIGHUP) is passed on to the child's
process group; when the launcher's connection closes before the child has exited (the launcher was killed, as
a2a-lab kills a client's process group at a scenario's timeout: the child is not in that group), the zygote kills
the child's process group. The zygote reaps every child, and ends when its stdin closes (its starter is gone) or on
SIGTERM, killing the children it still has.

`start()` starts one (for tests/peers/scorecard.py and the tests): a temp dir (mode 0700) with the socket and a
launcher script to give the driver as its CLI.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the launcher imports only what it needs
    import subprocess
    from collections.abc import Sequence

#: The environment variable that gives the launcher the zygote's socket (not passed on to the CLI).
SOCKET_ENV = "A2A_LAB_HANDLER_ZYGOTE"
#: The request's length, before the JSON request: sent together with the three descriptors.
_HEADER = struct.Struct("!I")
#: Signals the launcher passes on to the child's process group.
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
#: Exit code of the launcher when the zygote cannot be reached or drops the call.
NO_ZYGOTE = 70


# --------------------------------------------------------------------------- the launcher (stdlib, fast start)


def call(args: list[str]) -> int:
    """Run the CLI with `args` in the zygote: forward argv, env, cwd, fds 0-2 and signals; return its exit code."""
    path = os.environ.get(SOCKET_ENV)
    if not path:
        print(
            f"handler_zygote: {SOCKET_ENV} is not set: the zygote's socket (see handler_zygote.start)", file=sys.stderr
        )
        return 2
    env = {k: v for k, v in os.environ.items() if k != SOCKET_ENV}
    request = json.dumps({"argv": args, "env": env, "cwd": os.getcwd()}).encode()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        socket.send_fds(sock, [_HEADER.pack(len(request))], [0, 1, 2])
        sock.sendall(request)
    except OSError as exc:
        print(f"handler_zygote: cannot reach the zygote at {path}: {exc}", file=sys.stderr)
        return NO_ZYGOTE

    def forward(signum: int, _frame: object) -> None:
        try:
            sock.send(bytes([signum]))
        except OSError:
            os._exit(128 + signum)

    for signum in FORWARDED:
        signal.signal(signum, forward)
    answer = b""
    while not answer.endswith(b"\n"):
        chunk = sock.recv(64)
        if not chunk:
            print(f"handler_zygote: the zygote at {path} dropped the call", file=sys.stderr)
            return NO_ZYGOTE
        answer += chunk
    kind, _, number = answer.decode().strip().partition(" ")
    if kind == "signal":  # die of it, as the CLI's own process would have
        died = int(number)
        signal.signal(died, signal.SIG_DFL)
        os.kill(os.getpid(), died)
        return 128 + died
    return int(number)


# --------------------------------------------------------------------------- the zygote


def refresh() -> None:
    """Compute again, under the call's environment, what a2a-handler 0.4.0 computes from XDG_* when imported
    (common.config.CONFIG_DIR and CONFIG_FILE, servers.DEFAULT_SERVER_DIRECTORY, session.DEFAULT_SESSION_DIRECTORY):
    each is read when used, so the call uses its own XDG_* tree as a fresh process does."""
    from pathlib import Path

    config = sys.modules.get("a2a_handler.common.config")
    servers = sys.modules.get("a2a_handler.servers")
    session = sys.modules.get("a2a_handler.session")
    if config is None and servers is None and session is None:
        return
    from platformdirs import user_config_dir, user_data_dir

    if config is not None:
        config.CONFIG_DIR = Path(user_config_dir("handler"))  # type: ignore[attr-defined]
        config.CONFIG_FILE = config.CONFIG_DIR / "config.json"  # type: ignore[attr-defined]
    if servers is not None:
        servers.DEFAULT_SERVER_DIRECTORY = Path(user_config_dir("handler"))  # type: ignore[attr-defined]
    if session is not None:
        session.DEFAULT_SESSION_DIRECTORY = Path(user_data_dir("handler"))  # type: ignore[attr-defined]


#: The module constants `refresh` computes again: (module, attribute).
REFRESHED = frozenset(
    {
        ("a2a_handler.common.config", "CONFIG_DIR"),
        ("a2a_handler.common.config", "CONFIG_FILE"),
        ("a2a_handler.servers", "DEFAULT_SERVER_DIRECTORY"),
        ("a2a_handler.session", "DEFAULT_SESSION_DIRECTORY"),
    }
)


def env_bound(package: str) -> list[str]:
    """`module.ATTR = value` for each module constant (a str or path) of `package` that lies under $HOME, outside
    the python's own prefix and the module's folder, and that `refresh` does not compute again: state derived from
    the zygote's environment when imported, which every call would share."""
    from pathlib import PurePath

    home = os.path.expanduser("~").rstrip("/")
    if not home:
        return []
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    found = []
    for name, module in sorted(sys.modules.items()):
        if module is None or not (name == package or name.startswith(package + ".")):
            continue
        own = os.path.dirname(getattr(module, "__file__", None) or "") or "\0"
        for attr, value in sorted(vars(module).items()):
            if attr.startswith("__") or not isinstance(value, (str, PurePath)) or (name, attr) in REFRESHED:
                continue
            text = str(value)
            if (text == home or text.startswith(home + "/")) and not any(text.startswith(p) for p in (*prefixes, own)):
                found.append(f"{name}.{attr} = {text!r}")
    return found


class Server:
    """The zygote's loop: accept, fork, relay exit codes, kill a child whose caller is gone, reap."""

    def __init__(self, main: object, prog: str, listener: socket.socket) -> None:
        import selectors

        self.main = main
        self.prog = prog
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, socket.socket] = {}  # pid -> its caller's connection
        self.wake_r, self.wake_w = os.pipe()
        os.set_blocking(self.wake_w, False)
        signal.set_wakeup_fd(self.wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: None)  # wakes the loop (through the wakeup fd), which then ends
        self.stopping = False
        self.selector.register(listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        self.selector.register(0, selectors.EVENT_READ, "stdin")

    def run(self) -> None:
        while not self.stopping:
            for key, _events in self.selector.select():
                if key.data == "accept":
                    self.accept()
                elif key.data == "wake":
                    for signum in os.read(self.wake_r, 512):
                        self.stopping |= signum == signal.SIGTERM
                elif key.data == "stdin":
                    self.stopping |= not os.read(0, 512)
                else:
                    self.from_caller(key.data, key.fileobj)  # type: ignore[arg-type]
            self.reap()
        for pid in list(self.children):
            kill_group(pid, signal.SIGKILL)
        while self.children:
            pid, _status = os.waitpid(-1, 0)
            self.children.pop(pid, None)

    def accept(self) -> None:
        import selectors

        conn, _ = self.listener.accept()
        try:
            request, fds = receive(conn)
        except (OSError, ValueError) as exc:
            print(f"handler_zygote: a call refused: {exc}", file=sys.stderr, flush=True)
            conn.close()
            return
        pid = os.fork()
        if pid == 0:
            self.child(conn, request, fds)
        for fd in fds:
            os.close(fd)
        try:
            os.setpgid(pid, pid)  # as the child does: killing its group cannot miss it, whichever runs first
        except OSError:
            pass
        self.children[pid] = conn
        self.selector.register(conn, selectors.EVENT_READ, pid)

    def from_caller(self, pid: int, conn: socket.socket) -> None:
        """A signal to pass on, or the caller gone: kill the child's group if it still runs."""
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        if pid not in self.children:
            return
        if not data:
            self.selector.unregister(conn)
            kill_group(pid, signal.SIGKILL)
            return
        for signum in data:
            kill_group(pid, signum)

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            conn = self.children.pop(pid, None)
            if conn is None:
                continue
            if os.WIFSIGNALED(status):
                answer = f"signal {os.WTERMSIG(status)}\n"
            else:
                answer = f"exit {os.waitstatus_to_exitcode(status)}\n"
            try:
                self.selector.unregister(conn)
            except KeyError:
                pass
            try:
                conn.sendall(answer.encode())
            except OSError:
                pass
            conn.close()

    def child(self, conn: socket.socket, request: dict[str, object], fds: list[int]) -> None:
        """In the forked child: become the caller's process and run the CLI; never returns."""
        code = 1
        try:
            os.setpgid(0, 0)
            signal.set_wakeup_fd(-1)
            for signum in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
                signal.signal(signum, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            self.selector.close()
            for other in (self.listener, conn, *self.children.values()):
                other.close()
            os.close(self.wake_r)
            os.close(self.wake_w)
            become(request, fds)
            sys.argv = [self.prog, *[str(a) for a in request["argv"]]]  # type: ignore[attr-defined]
            code = run_main(self.main)
        except BaseException:  # whatever happens, the child must not return into the loop
            import traceback

            traceback.print_exc()
        os._exit(code)


def kill_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except OSError:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def receive(conn: socket.socket) -> tuple[dict[str, object], list[int]]:
    """One call's request: the JSON {argv, env, cwd} and the caller's three descriptors."""
    conn.settimeout(30)
    head, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    if len(fds) != 3:
        for fd in fds:
            os.close(fd)
        raise ValueError(f"expected the caller's 3 descriptors (stdin, stdout, stderr), got {len(fds)}")
    try:
        while len(head) < _HEADER.size:
            more = conn.recv(_HEADER.size - len(head))
            if not more:
                raise ValueError("the caller closed the connection within the request")
            head += more
        (size,) = _HEADER.unpack(head)
        body = b""
        while len(body) < size:
            more = conn.recv(min(size - len(body), 1 << 16))
            if not more:
                raise ValueError("the caller closed the connection within the request")
            body += more
        request = json.loads(body)
        if not isinstance(request, dict) or not {"argv", "env", "cwd"} <= set(request):
            raise ValueError("the request is not {argv, env, cwd}")
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    conn.settimeout(None)
    return request, fds


def become(request: dict[str, object], fds: list[int]) -> None:
    """Take the caller's stdio (fresh sys.std* as Python makes them at start-up), environment and cwd."""
    import io
    import time

    keep = [sys.stdin, sys.stdout, sys.stderr]  # never collected: they own fds 0-2, which are the caller's now
    _KEPT.extend(keep)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        if fd > 2:
            os.close(fd)
    modes = ("r", "w", "w")
    made = []
    for fd, (mode, old) in enumerate(zip(modes, keep, strict=True)):
        raw = open(fd, mode + "b", closefd=False)  # noqa: SIM115 - the process's own stdio, open until it exits
        line_buffering = fd == 2 or (fd == 1 and os.isatty(fd))
        made.append(io.TextIOWrapper(raw, encoding=old.encoding, errors=old.errors, line_buffering=line_buffering))
    sys.stdin, sys.stdout, sys.stderr = made
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = made  # type: ignore[misc]
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()  # in place: anything that kept a reference to os.environ sees the caller's
    os.environ.update({str(k): str(v) for k, v in env.items()})
    os.chdir(str(request["cwd"]))
    time.tzset()
    refresh()


_KEPT: list[object] = []


def run_main(main: object) -> int:
    """`sys.exit(main())` as the interpreter ends it: SystemExit's code, a traceback and 1, SIGINT for
    KeyboardInterrupt; then the atexit functions and flushing stdout (120 when that fails)."""
    import atexit
    import traceback

    code = 0
    try:
        result = main()  # type: ignore[operator]
        raise SystemExit(result)
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        traceback.print_exc()
        flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    except BaseException:  # the last resort, as in a fresh process
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    return code if flush() else 120


def flush() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            ok = ok and stream is not sys.stdout
    return ok


def serve(entry: str, prog: str, path: str, paths: list[str]) -> int:
    """Import the CLI, refuse when it holds state derived from this environment, listen, say `ready`, serve."""
    import importlib

    if sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):  # not this folder (the drivers'):
        if os.path.dirname(prog):  # the console script's, as when it runs
            sys.path[0] = os.path.dirname(prog)
        else:
            del sys.path[0]
    sys.path[:0] = paths
    module_name, _, func_name = entry.partition(":")
    main = getattr(importlib.import_module(module_name), func_name or "main")
    bound = env_bound(module_name.split(".")[0])
    if bound:
        print(
            f"handler_zygote: {module_name} holds state derived from the environment when imported, which every "
            "call would share: " + "; ".join(bound) + ". Compute it again in `refresh` (and list it in REFRESHED).",
            file=sys.stderr,
        )
        return 2
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o600)
    listener.listen(128)
    server = Server(main, prog, listener)
    print("ready", flush=True)
    try:
        server.run()
    finally:
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass
    return 0


class Zygote:
    """A zygote started by `start`: its socket, the launcher to give the driver as its CLI, and `stop`."""

    def __init__(self, process: subprocess.Popen[bytes], directory: str, launcher: str) -> None:
        self.process = process
        self.directory = directory
        self.socket = os.path.join(directory, "zygote.sock")
        self.launcher = launcher

    def env(self) -> dict[str, str]:
        """What the launcher needs in its environment."""
        return {SOCKET_ENV: self.socket}

    def stop(self) -> None:
        """End the zygote (it kills the children it still has) and remove its folder."""
        import shutil
        import subprocess

        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> Zygote:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()


def start(python: str, entry: str, prog: str, paths: Sequence[str] = (), timeout: float = 120.0) -> Zygote:
    """Start a zygote of `entry` under `python` in a new temp dir (mode 0700) and wait until it serves (its imports
    done); a RuntimeError with its stderr when it does not. The launcher is a shell script there that runs `call`
    under this python with `-S -I`, its socket's path in the script."""
    import selectors
    import shlex
    import subprocess
    import tempfile
    import time

    directory = tempfile.mkdtemp(prefix="a2a-lab-zygote-")
    os.chmod(directory, 0o700)
    launcher = os.path.join(directory, os.path.basename(prog) or "cli")
    with open(launcher, "w", encoding="utf-8") as out:
        quoted = " ".join(shlex.quote(p) for p in (sys.executable, "-S", "-I", os.path.abspath(__file__), "call"))
        socket_path = shlex.quote(os.path.join(directory, "zygote.sock"))
        # The socket's path is in the script too: a harness that passes its client only an allow-list of the
        # environment (a2a-lab does) still reaches the zygote.
        out.write(f'#!/bin/sh\n{SOCKET_ENV}={socket_path} exec {quoted} "$@"\n')
    os.chmod(launcher, 0o700)
    errors = open(os.path.join(directory, "stderr.log"), "wb")  # noqa: SIM115 - the zygote's, closed below
    argv = [python, os.path.abspath(__file__), "serve", "--entry", entry, "--prog", prog]
    argv += ["--socket", os.path.join(directory, "zygote.sock")]
    for path in paths:
        argv += ["--path", str(path)]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors)
    errors.close()
    zygote = Zygote(process, directory, launcher)
    assert process.stdout is not None
    with selectors.DefaultSelector() as waiting:
        waiting.register(process.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        line = b""
        while not line.endswith(b"\n") and waiting.select(max(0.0, deadline - time.monotonic())):
            chunk = os.read(process.stdout.fileno(), 64)
            line += chunk
            if not chunk:
                break
    if line != b"ready\n":
        said = _tail(os.path.join(directory, "stderr.log"))
        zygote.stop()
        why = "did not start" if line or process.poll() is not None else f"was not ready within {timeout:.0f} s"
        raise RuntimeError(f"the zygote of {entry} under {python} {why}: {said or line.decode(errors='replace')}")
    return zygote


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as given:
            return given.read()[-2000:].strip()
    except OSError:
        return ""


def cli(argv: list[str]) -> int:
    if argv[:1] == ["call"]:
        return call(argv[1:])
    import argparse

    parser = argparse.ArgumentParser(prog="handler_zygote.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="mode", required=True)
    served = sub.add_parser("serve", help="import the CLI once and fork it per call")
    served.add_argument("--entry", required=True, help="MODULE:FUNC, the console script's entry point")
    served.add_argument("--prog", required=True, help="sys.argv[0] of each call (the console script's path)")
    served.add_argument("--socket", required=True, help="the unix socket to listen on")
    served.add_argument("--path", action="append", default=[], help="a folder put first on sys.path (repeatable)")
    sub.add_parser("call", help=f"run the CLI in the zygote at ${SOCKET_ENV} with these arguments")
    args = parser.parse_args(argv)
    return serve(args.entry, args.prog, args.socket, args.path)


if __name__ == "__main__":
    sys.exit(cli(sys.argv[1:]))
