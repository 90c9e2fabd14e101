"""A capture as a scenario file that replays it with the existing scenario mechanisms: `card.raw` (the exact card,
the origin as `{base_url}`), explicit `endpoints`, and per operation a `raw` reply keyed by `when: {binding, version}`
(`echo_id` where the answer carried the request's id). Written only once it loads back as a valid scenario."""

from __future__ import annotations

import os
import re
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from a2a_lab.server import yamlfile
from a2a_lab.server.loader import ScenarioError, parse
from a2a_lab.server.placeholders import BASE_URL

from .capture import Capture, Recorded, RecordError


def tool_version() -> str:
    try:
        return f"a2a-lab {metadata.version('a2a-lab')}"
    except metadata.PackageNotFoundError:
        return "a2a-lab (unknown version)"


def _text(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{what} is not UTF-8 text; a scenario file holds text") from None


def card_text(cap: Capture, keep_origin: bool) -> str:
    text = _text(cap.card_raw, "the card")
    if keep_origin:
        return text
    return re.sub(re.escape(cap.origin) + r"(?![\w.-])", lambda _: BASE_URL, text)  # not inside a longer host or port


def _summary(rec: Recorded) -> str:
    status = rec.exchange.status
    what = ""
    if rec.answer is not None:
        task = rec.answer.task
        what = f", a {rec.answer.kind.value}" + (
            f" in {task.state.short}" if task is not None and task.state is not None else ""
        )
    return f"{rec.op.value} answered HTTP {status}{what}"


def document(cap: Capture, keep_origin: bool, text: str) -> dict[str, Any]:
    name = cap.card.get("name") if isinstance(cap.card.get("name"), str) else "an agent"
    endpoints: dict[tuple[str, str], list[str]] = {}
    behaviour: dict[str, list[dict[str, Any]]] = {}
    lines: dict[str, list[str]] = {}
    for rec in cap.exchanges:
        iface = rec.iface
        versions = endpoints.setdefault((rec.path, iface.binding), [])
        if iface.version not in versions:
            versions.append(iface.version)
        raw: dict[str, Any] = {
            "status": rec.exchange.status,
            "body": _text(rec.body, f"the {rec.op.value} answer of {iface.label}"),
            "content_type": rec.exchange.header("content-type") or "",
        }
        if rec.echoes_id:
            raw["echo_id"] = True
        behaviour.setdefault(rec.op.value, []).append(
            {"when": {"binding": iface.binding, "version": iface.version}, "reply": {"raw": raw}}
        )
        lines.setdefault(f"{iface.binding} {iface.version} at {rec.path}", []).append(_summary(rec))
    card: dict[str, Any] = {
        "raw": card_text(cap, keep_origin),
        "content_type": cap.content_type,
        "cache_control": cap.cache_control or "",
        "etag": cap.etag,
    }
    if keep_origin:
        card["substitute_raw"] = False
    listed = (
        "\n".join(f"- {where}: {'; '.join(said)}" for where, said in lines.items())
        or "- (no interface a2a-lab speaks on this origin)"
    )
    notes = "".join(f"\n- {note}" for note in cap.notes)
    description = (
        f"Recorded by `a2a-lab record` from {cap.target} at {cap.at}: the card exactly as served"
        + (
            " (untouched: its URLs still name the recorded server)"
            if keep_origin
            else f" (its origin {cap.origin} written as {BASE_URL})"
        )
        + ", and per interface a2a-lab speaks one SendMessage exchange (plus the GetTask follow-up of a returned "
        "task), replayed byte for byte; JSON-RPC answers echo the client's request id. Every SendMessage (GetTask) on "
        "an interface gets the recorded answer; other operations get a2a-lab's default behaviour.\n\n"
        f"Exchanges:\n{listed}" + (f"\n\nNot recorded:{notes}" if notes else "") + "\n"
    )
    return {
        "title": f"Recorded: {name} ({cap.origin})",
        "description": description,
        "recorded": {
            "from": cap.target,
            "at": cap.at,
            "card_sha256": cap.card_sha256,
            "tool": tool_version(),
            "card_url": cap.card_url,
            "exchanges": [
                {
                    "operation": r.op.value,
                    "binding": r.iface.binding,
                    "version": r.iface.version,
                    "path": r.path,
                    "request_id": r.request_id,
                    "status": r.exchange.status,
                }
                for r in cap.exchanges
            ],
        },
        "client": {"message": text},
        "card": card,
        "endpoints": [
            {"path": path, "binding": binding, "versions": versions} for (path, binding), versions in endpoints.items()
        ],
        "behaviour": behaviour,
    }


class _Dumper(yaml.SafeDumper):
    """Multi-line text (the description, pretty-printed answers) as literal blocks.

    PyYAML quotes what a block cannot hold.
    """


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _str)


def render(doc: dict[str, Any], path: Path) -> str:
    """The YAML text, checked: it loads back to the same data and as a valid scenario."""
    text: str = yaml.dump(
        doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 20, default_flow_style=False
    )
    size = len(text.encode())
    if size > yamlfile.MAX_BYTES:
        raise RecordError(f"the recording is {size} bytes, more than a scenario file may be ({yamlfile.MAX_BYTES})")
    try:
        data = yamlfile.loads(text)  # as the loader reads it back
    except yamlfile.Refused as exc:
        raise RecordError(f"the recording is more than a scenario file may hold: {exc}") from None
    if data != doc:
        raise RecordError("the recording does not survive a YAML round trip; please report it")
    try:
        parse(data, path.stem, str(path))
    except ScenarioError as exc:
        raise RecordError(f"the recording is not a valid scenario: {exc}") from None
    return text


def write(path: Path, text: str, force: bool) -> None:
    """Atomically: a temporary file in the same folder, renamed over the target.

    Refused if it exists, unless forced.
    """
    if path.exists() and not force:
        raise RecordError(f"{path} exists; give --force to overwrite it", usage=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(f"# Recorded by a2a-lab record; replay with: a2a-lab serve {path}\n")
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
