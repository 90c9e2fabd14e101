"""The run file `a2a-lab drive --run-file F` writes and `a2a-lab score --run-file F` reads: the run's id and token, and
what scoring reads of the client's processes that no server journals (per scenario driven: the exit code, whether it
timed out, the ends of its stdout and stderr, why it could not start, its A2A_LAB_RESULT), so that `drive` + `score`
judge a client exactly as `a2a-lab run` does, and only the scenarios that were driven.

It is written once the clients are done (they never see it: the run's token opens the journal they are scored on),
mode 0600, whole or not at all (a temporary file renamed into place)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract import userfile
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging.remote import RemoteError, RemoteRun, RemoteServer
from a2a_lab.harness.client_judging.runner import RawRun, SharedRun
from a2a_lab.harness.common.model import ClientRun

#: What `format` says in a run file with the driven scenarios (a run file without it holds the id and token only).
FORMAT = "a2a-lab-run/2"
#: The most a run file may hold: per scenario, two 16 KiB output tails and a result of at most 1 MiB.
SIZE_LIMIT = 256 * 1024 * 1024
#: How a run file is read: a regular file only (a FIFO named there does not hang `score`), within its size, its
#: depth (the client's result is nested at most 32 levels) and a value count a whole catalogue's runs stay far under.
RUN_FILE = userfile.Kind(
    "run file",
    max_bytes=SIZE_LIMIT,
    max_depth=64,
    max_values=8_000_000,
    too_large="a run file holds the id, the token and each scenario's client run: drive again",
    too_deep="a run file nests a client's result at most 32 levels",
    too_many="a run file holds one client run per scenario",
)


@dataclass
class DrivenScenario:
    """What one scenario's client process did, as `a2a-lab run` keeps it (model.ClientRun), and how long it took."""

    id: str
    client: ClientRun
    duration: float = 0.0
    #: A harness fault while driving it (the scenario is then ERROR, as in `a2a-lab run`).
    error: str | None = None


@dataclass
class Driven:
    """What `a2a-lab drive` did in a run: the client's command, the seed, each scenario driven, in order."""

    client: str
    seed: int
    scenarios: list[DrivenScenario] = field(default_factory=list)
    #: The drive was interrupted: {"signal": ..., "unfinished": [ids]}.
    incomplete: dict[str, Any] | None = None

    @property
    def ids(self) -> list[str]:
        return [s.id for s in self.scenarios]


def _client_to_json(client: ClientRun) -> dict[str, Any]:
    return asdict(client)


_CLIENT_FIELDS: dict[str, tuple[type, ...]] = {
    "command": (list,),
    "exit_code": (int, type(None)),
    "duration": (int, float),
    "timed_out": (bool,),
    "stdout_tail": (str,),
    "stderr_tail": (str,),
    "result": (dict, type(None)),
    "result_error": (str, type(None)),
    "start_error": (str, type(None)),
}


def _client_from_json(data: Any, where: str) -> ClientRun:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object")
    values: dict[str, Any] = {}
    for name, types in _CLIENT_FIELDS.items():
        if name not in data:
            continue
        value = data[name]
        if not isinstance(value, types) or (name == "exit_code" and isinstance(value, bool)):
            raise ValueError(f"{where}.{name}: unexpected {type(value).__name__}")
        values[name] = value
    for name in ("command", "exit_code", "duration", "timed_out"):
        if name not in values:
            raise ValueError(f"{where}: no {name}")
    if not all(isinstance(a, str) for a in values["command"]):
        raise ValueError(f"{where}.command: a list of strings")
    values["duration"] = float(values["duration"])
    return ClientRun(**values)


def write(path: Path, run: RemoteRun, driven: Driven | None = None) -> None:
    """Write the run file: the id and token (and with `driven`, what was driven), readable by this user only."""
    data: dict[str, Any] = {"run": run.id, "token": run.token}
    if driven is not None:
        data |= {
            "format": FORMAT,
            "server": run.server.url,
            "client": driven.client,
            "seed": driven.seed,
            "scenarios": [
                {"id": s.id, "duration": round(s.duration, 3), "error": s.error, "client": _client_to_json(s.client)}
                for s in driven.scenarios
            ],
            "incomplete": driven.incomplete,
        }
    text = json.dumps(data, ensure_ascii=False) + "\n"
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=folder)  # mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise


def read(server: RemoteServer, path: Path) -> tuple[RemoteRun, Driven | None]:
    """The run a run file names, and what was driven in it (None: a run file of the id and token only, as a client
    that drives itself may write). RemoteError saying what is wrong with the file."""
    usage = 'a run file is JSON {"run": ID, "token": TOKEN, ...}, as `a2a-lab drive --run-file` writes it'
    try:
        data = userfile.load_json(path, RUN_FILE)
    except userfile.Refused as exc:
        raise RemoteError(f"{exc}; {usage}") from None
    if not (isinstance(data, dict) and isinstance(data.get("run"), str) and isinstance(data.get("token"), str)):
        raise RemoteError(f"{path}: {usage}")
    run = RemoteRun(server, data["run"], data["token"])
    if "scenarios" not in data:
        return run, None
    try:
        driven = _driven(data)
    except ValueError as exc:
        raise RemoteError(
            f"{path}: the run file's scenarios cannot be read ({exc}); drive the client again with "
            "`a2a-lab drive --run-file`"
        ) from None
    return run, driven


def _driven(data: dict[str, Any]) -> Driven:
    client, seed, listed = data.get("client"), data.get("seed", 0), data.get("scenarios")
    if (
        not isinstance(client, str)
        or not isinstance(seed, int)
        or isinstance(seed, bool)
        or not isinstance(listed, list)
    ):
        raise ValueError("client, seed and scenarios are a string, a whole number and a list")
    incomplete = data.get("incomplete")
    driven = Driven(client, seed, incomplete=incomplete if isinstance(incomplete, dict) else None)
    seen: set[str] = set()
    for i, item in enumerate(listed):
        where = f"scenarios[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or item["id"] in seen:
            raise ValueError(f"{where}: an object with an id of its own")
        error, duration = item.get("error"), item.get("duration", 0.0)
        if not isinstance(error, (str, type(None))) or not isinstance(duration, (int, float)):
            raise ValueError(f"{where}: error is a string or null, duration a number")
        seen.add(item["id"])
        driven.scenarios.append(
            DrivenScenario(item["id"], _client_from_json(item.get("client"), f"{where}.client"), float(duration), error)
        )
    return driven


def collect(shared: SharedRun, scenarios: list[Scenario], driven: Driven | None, seed: int) -> list[RawRun]:
    """Each scenario's traffic in the run, with what the client's process did there (a self-driven client: nothing
    known)."""
    if driven is None:
        return [shared.collect(s, ClientRun([], None, 0.0, False), seed) for s in scenarios]
    by_id = {d.id: d for d in driven.scenarios}
    return [shared.collect(s, by_id[s.id].client, seed, by_id[s.id].duration, by_id[s.id].error) for s in scenarios]
