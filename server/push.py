"""Push notification delivery (spec §4.3.3, §13.2): POST each event to the task's webhooks, in order.

Targets are limited to loopback and an explicit allow-list (SSRF); redirects are not followed.
Every delivery is journaled (kind `push`) with its credentials redacted; at most limits.push_deliveries_per_task
are sent per task, and the ones dropped past that cap are counted in one journal entry (kind `push-limit`).

A scenario's `push` section makes delivery what deployed agents do (scenario.PushDelivery): each notification sent
twice (a retry after a timeout or a gateway's 5xx), the first status notification sent after the last (deliveries
that overtook each other), or one notification about a task the client never started. The journal marks each such
delivery (`redelivery`, `foreign`).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

import httpx

from a2a_lab.contract import edits
from a2a_lab.contract.journal_record import EntryKind, PushInfo, Response
from a2a_lab.protocol import jsontext, rest, shapes
from a2a_lab.protocol.bindings import JSON
from a2a_lab.protocol.forms import V03_JSONRPC
from a2a_lab.protocol.json_types import Task
from a2a_lab.protocol.requests import NOTIFICATION_TOKEN_HEADER
from a2a_lab.protocol.revisions import SpecRevision
from a2a_lab.protocol.states import Role, TaskState
from a2a_lab.protocol.versions import Version

from .engine import Event, TaskRecord, now_iso
from .state import LabState

log = logging.getLogger("a2a_lab.server")

TIMEOUT_S = 10.0
#: Where a stored config keeps its delivery queue (private: `_` members never leave the server).
_QUEUE = "_queue"
#: A config that got its notification about another task (push.foreign_task) says so here.
_FOREIGN_SENT = "_foreign_sent"
#: Credentials of the probe delivery that a receiver checking its credentials must refuse (also its wrong token).
PROBE_CREDENTIALS = "a2a-lab-wrong-credentials"
#: The id a notification about a task the client never started names: its own task's id with this suffix.
FOREIGN_SUFFIX = "-not-yours"


def malformed(url: str) -> str | None:
    """Why a webhook URL cannot be called as it is given (refused when the config is created, and never called), or
    None."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("http", "https"):
        return f"scheme {parts.scheme!r} (use http or https)"
    if not parts.hostname:
        return "no host"
    if "@" in parts.netloc:
        # An HTTP client turns userinfo into its own Authorization (Basic), in place of the config's credentials: what
        # was sent would not be what the config says. (The userinfo itself is not quoted: it is a credential.)
        return (
            "it carries userinfo (user:password@ before the host), which would be sent as Basic authentication in "
            "place of the config's own credentials; give credentials in `authentication` (or `token`) instead"
        )
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        return f"the port in {parts.netloc!r} is not a number from 1 to 65535"
    try:
        httpx.URL(url)  # what delivers it must be able to call it
    except httpx.InvalidURL as exc:
        return f"not a URL that can be called ({exc})"
    return None


#: What an HTTP header value may hold (RFC 9110 §5.5: visible ASCII, space and tab; h11 refuses the rest).
_HEADER_VALUE = re.compile(r"[\t\x20-\x7e]*")


def config_problem(config: dict[str, Any]) -> tuple[str, str] | None:
    """Why a push config can never be delivered, as (field, problem), or None: checked when it is created, so that
    one bad config is refused with an invalid-params error instead of failing at every delivery."""
    problem = malformed(str(config.get("url", "")))
    if problem:
        return "url", problem
    auth = config.get("authentication")
    sent = [("token", config.get("token"))]
    if isinstance(auth, dict):
        sent += [(f"authentication.{k}", auth.get(k)) for k in ("scheme", "credentials")]
    for field, value in sent:
        if isinstance(value, str) and not _HEADER_VALUE.fullmatch(value):
            return field, "it is sent in an HTTP header, which carries visible ASCII only"
    return None


def target_refusal(url: str, allow: tuple[str, ...]) -> str | None:
    """Why a webhook may not be called (checked at every delivery), or None when it may.

    A config naming another host is stored (the spec's CRUD still works), but nothing is ever sent there:
    only loopback and the scenario's allow-list are called (SSRF protection, §13.2)."""
    problem = malformed(url)
    if problem:
        return problem
    host = (urlsplit(url).hostname or "").lower()
    if host in allow or host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return (
        f"{host} is neither loopback nor on the push allow-list (the scenario's push.allow, `a2a-lab serve "
        "--push-allow HOST`): SSRF protection, §13.2"
    )


def payload(rec: TaskRecord, event: Event, version: str, revision: SpecRevision) -> tuple[bytes, str]:
    """1.0: the StreamResponse in HTTP+JSON form, as that spec revision's media type (application/a2a+json, v1.0.0
    application/json: notes §7, D5); 0.3: the whole Task (0.3 §9.5 example)."""
    return _body(rec.task, event, version, revision)


def _body(task: dict[str, Any], event: Event, version: str, revision: SpecRevision) -> tuple[bytes, str]:
    if version == Version.V0_3.value:
        return jsontext.dumps(shapes.task_out(cast(Task, task), V03_JSONRPC)), JSON  # the engine's canonical task
    return jsontext.dumps(event), rest.media_type(Version.V1_0, revision)


def foreign_payload(rec: TaskRecord, version: str, revision: SpecRevision) -> tuple[bytes, str]:
    """A notification, in the config's form, that a task the client never started (its task's id plus
    FOREIGN_SUFFIX) FAILED: a receiver MUST validate the task id (§4.3.3) and never take it for its own."""
    other = f"{rec.id}{FOREIGN_SUFFIX}"
    context = f"{rec.task['contextId']}{FOREIGN_SUFFIX}"
    said = {
        "messageId": f"{other}-message",
        "contextId": context,
        "taskId": other,
        "role": Role.AGENT.value,
        "parts": [{"text": f"task {other} failed (not a task of this client)"}],
    }
    status = {"state": TaskState.FAILED.value, "timestamp": now_iso(), "message": said}
    task = {"id": other, "contextId": context, "status": status}
    event = {"statusUpdate": {"taskId": other, "contextId": context, "status": status}}
    return _body(task, event, version, revision)


@dataclass(frozen=True)
class _Notice:
    """One notification queued for a config: its body and media type, and what the event says of the task."""

    body: bytes
    content_type: str
    #: It announces a status change (a 1.0 statusUpdate, or the 0.3 Task posted for one).
    status: bool = False
    #: It reports the state the task stopped in (terminal or interrupted).
    stops: bool = False
    foreign: bool = False


_NO_AUTH = httpx.Auth()


class PushSender:
    def __init__(self, state: LabState) -> None:
        self.state = state
        self._client: httpx.AsyncClient | None = None
        self._workers: set[asyncio.Task[None]] = set()

    def on_event(self, rec: TaskRecord, event: Event) -> None:
        if not rec.push_configs:  # every event of every task comes here: most tasks have no webhook
            return
        scenario = self.state.scenario
        limit = scenario.limits.push_deliveries_per_task
        status = "statusUpdate" in event
        stops = status and rec.state.stops
        for config in list(rec.push_configs.values()):
            version = config.get("_version", "1.0")
            body, media = payload(rec, event, version, scenario.spec_revision)
            if scenario.push_delivery.edits:  # the notification's body edited as sent (push.edit)
                body = jsontext.dumps(edits.apply(json.loads(body), scenario.push_delivery.edits))
            notices = [_Notice(body, media, status, stops)]
            # push.foreign_task: before the first notification that tells the task stopped (0.3: any Task in that
            # state; the one of its artifacts comes first), once per config.
            tells_stop = stops or (version == Version.V0_3.value and rec.state.stops)
            if tells_stop and scenario.push_delivery.foreign_task and not config.get(_FOREIGN_SENT):
                config[_FOREIGN_SENT] = True
                notices.insert(0, _Notice(*foreign_payload(rec, version, scenario.spec_revision), foreign=True))
            for notice in notices:
                if rec.push_deliveries >= limit:
                    self._dropped(rec, config, limit)
                    continue
                rec.push_deliveries += 1
                self._queue(config).put_nowait(notice)

    def _queue(self, config: dict[str, Any]) -> asyncio.Queue[_Notice | None]:
        """The config's delivery queue and its worker, made at its first notification."""
        # The queue lives with the config it delivers for: a reset scenario gives the same ids again, and a new
        # config must never inherit the worker (and webhook) of an old one.
        queue = config.get(_QUEUE)
        if queue is None:
            queue = config[_QUEUE] = asyncio.Queue()
            worker = asyncio.get_running_loop().create_task(self._work(config, queue))
            self._workers.add(worker)
            worker.add_done_callback(self._workers.discard)
        return queue

    def _dropped(self, rec: TaskRecord, config: dict[str, Any], limit: int) -> None:
        """A notification past the task's cap: not sent; one journal entry per task (kind `push-limit`) counts them."""
        entry = rec.push_limit_entry
        if entry is None:
            entry = rec.push_limit_entry = self.state.journal.open(
                "POST", str(config.get("url", "")), "", [], b"", EntryKind.PUSH_LIMIT
            )
            entry.push = PushInfo(rec.id, limit=limit)
            entry.response = Response(
                refused=f"limits.push_deliveries_per_task ({limit}) reached: "
                f"no more notifications are sent for task {rec.id}"
            )
        assert entry.push is not None
        entry.push.dropped += 1
        self.state.journal.touch()

    async def _work(self, config: dict[str, Any], queue: asyncio.Queue[_Notice | None]) -> None:
        scenario = self.state.scenario
        auth = config.get("authentication")
        probing = scenario.push_probe and (isinstance(auth, dict) or bool(config.get("token")))
        #: push.reorder: the first status notification, held back until the task has stopped.
        held: _Notice | None = None
        reordered = not scenario.push_delivery.reorder
        while True:
            notice = await queue.get()
            if notice is None:
                return
            try:
                if not reordered and notice.status and not notice.stops:
                    held, reordered = notice, True
                    continue
                if probing:  # first, the same event with wrong credentials: a receiver MUST refuse it (§13.2)
                    probing = False
                    await self._deliver(config, notice, probe=True)
                await self._send(config, notice)
                if held is not None and notice.stops:
                    late, held = held, None
                    await self._send(config, late)
            except Exception as exc:  # a delivery journals its own failures: this is a bug, and must not end the worker
                # (the type only: its message may quote the config's credentials)
                log.error("a2a-lab: push delivery for task %s failed: %s", config.get("taskId"), type(exc).__name__)

    async def _send(self, config: dict[str, Any], notice: _Notice) -> None:
        """Deliver a notification; with push.redeliver, once more (the agent did not see the first answer)."""
        await self._deliver(config, notice)
        if self.state.scenario.push_delivery.redeliver and not notice.foreign:
            await self._deliver(config, notice, redelivery=True)

    async def _deliver(
        self, config: dict[str, Any], notice: _Notice, probe: bool = False, redelivery: bool = False
    ) -> None:
        url = str(config.get("url", ""))
        headers = {"content-type": notice.content_type}
        auth = config.get("authentication")
        scheme = auth.get("scheme") if isinstance(auth, dict) else None
        if scheme:
            assert isinstance(auth, dict)
            credentials = PROBE_CREDENTIALS if probe else auth.get("credentials", "")
            headers["authorization"] = f"{scheme} {credentials}".strip()
        if config.get("token"):
            # The probe spoils the token only where it is the one credential (0.3's X-A2A-Notification-Token).
            headers[NOTIFICATION_TOKEN_HEADER.lower()] = (
                PROBE_CREDENTIALS if probe and not scheme else str(config["token"])
            )
        refusal = target_refusal(url, self.state.push_allow)
        request: httpx.Request | None = None
        failed = None
        if not refusal:
            if self._client is None:
                self._client = httpx.AsyncClient(timeout=TIMEOUT_S, follow_redirects=False, trust_env=False)
            try:
                request = self._client.build_request("POST", url, content=notice.body, headers=headers)
            except Exception as exc:  # a header httpx cannot encode: journaled as it was meant
                failed = f"{type(exc).__name__}: {exc}"
        # The journal records the headers as they are sent (httpx's own among them), else as they were meant.
        sent = [(k.lower(), v) for k, v in request.headers.raw] if request is not None else None
        meant = [(k.encode(), v.encode()) for k, v in headers.items()]
        entry = self.state.journal.open("POST", url, "", sent or meant, notice.body, EntryKind.PUSH)
        entry.push = PushInfo(
            config.get("taskId"), config.get("id"), probe, redelivery=redelivery, foreign=notice.foreign
        )
        if refusal or failed:
            entry.response = (
                Response(refused=refusal) if refusal else Response(failed=failed, redaction=entry.redaction)
            )
            self.state.journal.touch()
            return
        assert self._client is not None and request is not None
        try:
            # No auth of httpx's own (it would make one of URL userinfo): the headers journaled are all that is sent.
            response = await self._client.send(request, auth=_NO_AUTH)
            entry.response = Response(response.status_code)
        except Exception as exc:  # httpx raises more than HTTPError (a port out of range, a header it cannot encode)
            entry.response = Response(failed=f"{type(exc).__name__}: {exc}", redaction=entry.redaction)
        self.state.journal.touch()

    async def close(self) -> None:
        for worker in list(self._workers):
            worker.cancel()
        if self._client is not None:
            await self._client.aclose()
            self._client = None
