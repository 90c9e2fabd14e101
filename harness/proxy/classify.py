"""What a proxied request is, and what its answer was, in the journal record's terms: the same `Entry` fields a
scenario server fills (endpoint, rpc, operation, version, route, requested version, answer), read from the wire
bytes against the card as served."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from a2a_lab.contract.journal_record import Answer, EndpointRef, Entry, EntryKind, ResultKind, RouteRef, RpcRef
from a2a_lab.harness.proxy.routes import read_of
from a2a_lab.protocol import cards, versions, wire
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.forms import Form
from a2a_lab.protocol.operations import Operation, by_method, match_route
from a2a_lab.protocol.versions import Version

#: What each operation's success answer is, for the journal's `answer.result_kind` (task or message: read).
_KINDS = {
    Operation.LIST_TASKS: ResultKind.LIST,
    Operation.GET_EXTENDED_CARD: ResultKind.CARD,
    Operation.CREATE_PUSH_CONFIG: ResultKind.PUSH_CONFIG,
    Operation.GET_PUSH_CONFIG: ResultKind.PUSH_CONFIG,
    Operation.LIST_PUSH_CONFIGS: ResultKind.PUSH_CONFIGS,
    Operation.DELETE_PUSH_CONFIG: ResultKind.EMPTY,
}


def interfaces(card: Any) -> list[Interface]:
    """The HTTP(S) interfaces of a card as either generation reads it (a call is judged against its URL's)."""
    out: dict[tuple[str, str], Interface] = {}
    for reader in Version:
        for iface in cards.interfaces(card, reader):
            out.setdefault((iface.url, iface.binding), iface)
    return list(out.values())


@dataclass(frozen=True)
class Target:
    """An interface a request may reach, worked out once per card: its URL's origin and path, and its binding."""

    iface: Interface
    origin: str
    base: str
    binding: Binding
    declared: Version | None

    def under(self, path: str) -> str | None:
        """The request path relative to the interface ("" for a JSON-RPC endpoint itself), or None if not under it."""
        if self.binding is Binding.JSONRPC:
            return "" if path.rstrip("/") == self.base else None
        if path == self.base or path.startswith(self.base + "/"):
            return path[len(self.base) :] or "/"
        return None


def targets(card: Any) -> list[Target]:
    """The card's JSON-RPC and HTTP+JSON interfaces, as either generation reads it, ready to match requests (each list
    of interfaces up to limits.MAX_INTERFACES: routes.read_of)."""
    out = []
    for iface in interfaces(read_of(card)[0]):
        binding = iface.core_binding
        if binding not in (Binding.JSONRPC, Binding.HTTP_JSON):
            continue
        parts = urlsplit(iface.url)
        origin = f"{parts.scheme}://{parts.netloc}"
        out.append(Target(iface, origin, parts.path.rstrip("/"), binding, versions.to_known(iface.version)))
    return out


def identify(entry: Entry, declared: list[Target], host_origin: str, body: bytes, version_header: str | None) -> None:
    """Fill a request's endpoint, rpc, operation, version and route from the card's interfaces (`targets`); its
    kind stays UNMATCHED when none fits. `version_header`: the A2A-Version the request carried (None: none)."""
    path = entry.path
    for target in declared:
        if target.origin != host_origin:
            continue
        rest = target.under(path)
        if rest is None:
            continue
        if target.binding is Binding.JSONRPC:
            entry.kind, entry.endpoint = EntryKind.JSONRPC, EndpointRef(target.base or "/", Binding.JSONRPC)
            _rpc(entry, body)
        else:
            entry.kind, entry.endpoint = EntryKind.REST, EndpointRef(target.base or "/", Binding.HTTP_JSON)
            _rest(entry, rest, target.declared)
        break
    if entry.operation is not None:
        entry.requested_version = versions.requested(version_header)


def _rpc(entry: Entry, body: bytes) -> None:
    try:
        value = json.loads(body)
    except ValueError:
        return
    if not isinstance(value, dict):
        return
    entry.rpc = RpcRef(value.get("method"), value.get("id"))
    found = by_method(value["method"]) if isinstance(value.get("method"), str) else None
    if found is not None:
        entry.operation, entry.version = found


def _rest(entry: Entry, rest: str, declared: Version | None) -> None:
    order = tuple(sorted(Version, key=lambda v: v is not declared))
    found = match_route(entry.method, rest, order)
    if found is None:
        return
    op, version, params, tenant = found
    entry.operation, entry.version = op, version
    entry.route = RouteRef(entry.method, rest, params, tenant)


def answer_of(entry: Entry, status: int, body: bytes, events: list[Any] | None) -> Answer | None:
    """What an A2A call's answer was (None for a request that is no A2A call): a task, a message, an error, ..."""
    op, version = entry.operation, entry.version
    if op is None or version is None or entry.endpoint is None:
        return None
    form = Form(version, entry.endpoint.binding)
    rpc = entry.endpoint.binding is Binding.JSONRPC
    values: list[Any] = []
    for text in [body] if events is None else events:
        try:
            values.append(json.loads(text))
        except (ValueError, TypeError):
            values.append(None)
    if not values:
        return Answer(ResultKind.RAW, status=status, stream=events is not None)
    first = values[0]
    if rpc and isinstance(first, dict) and isinstance(first.get("error"), dict):
        code = first["error"].get("code")
        return Answer.error(code if isinstance(code, int) else 0)
    if not rpc and status >= 400:
        return Answer(ResultKind.ERROR, status=status)
    if op in _KINDS:
        return Answer(_KINDS[op])
    said = [_said(op, v.get("result") if rpc and isinstance(v, dict) else v, form) for v in values]
    known = [s for s in said if s is not None]
    if not known:
        return Answer(ResultKind.RAW, status=status, stream=events is not None)
    last_task = next((s["task"] for s in reversed(known) if "task" in s), None)
    if last_task is not None:
        try:
            return Answer.task(last_task, stream=events is not None)
        except ValueError:
            return Answer(ResultKind.TASK, last_task.get("id"), stream=events is not None)
    return Answer(ResultKind.MESSAGE, stream=events is not None)


def _said(op: Operation, value: Any, form: Form) -> dict[str, Any] | None:
    try:
        return wire.result_in(op, value, form)
    except (ValueError, TypeError, KeyError, AttributeError):
        return None
