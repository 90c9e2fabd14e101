"""What the reference client understood: one result object, its JSON, its exit code, its human text."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from a2a_lab.contract.handshake import ResultKind
from a2a_lab.harness.clients.refclient.options import ENV_RESULT
from a2a_lab.harness.common.exit_codes import ClientExit
from a2a_lab.protocol.cards import Interface
from a2a_lab.protocol.states import TaskState


@dataclass
class Result:
    kind: ResultKind = ResultKind.ERROR  # MESSAGE, TASK or ERROR
    state: TaskState | None = None
    text: str = ""
    task_id: str | None = None
    context_id: str | None = None
    interface: Interface | None = None
    card_url: str | None = None
    warnings: list[str] = field(default_factory=list)
    error: dict[str, Any] | None = None
    streamed: bool = False
    follow_ups: int = 0
    #: Interfaces given up on before the one in `interface` (fallback), with why.
    attempts: list[dict[str, Any]] = field(default_factory=list)
    #: Card interfaces passed over (unsupported binding or version, or excluded by --binding).
    skipped: list[str] = field(default_factory=list)
    #: A second message was sent to the task (the follow_up action).
    follow_up: bool = False
    #: CancelTask was sent for the task (the cancel action).
    canceled: bool = False
    #: An unrelated new message, bound to no task, was sent after the first task stopped (the new_message action).
    new_message: bool = False
    #: The extended card was fetched (and its interfaces used when it had any).
    extended_card: bool = False
    #: SubscribeToTask was called after a stream ended before the task stopped.
    resubscribed: bool = False
    #: The client's webhook: {"url", "notifications", "refused"}; None when none was registered.
    webhook: dict[str, Any] | None = None
    #: What verified the card's signature: {"verified", "kid", "alg", "signatures"}; None when not asked.
    signature: dict[str, Any] | None = None
    #: Warnings a person running the client should hear at once (the command line says them on stderr): gRPC
    #: unavailable here, a gRPC url that is not host:port. They are among `warnings` too.
    notices: list[str] = field(default_factory=list)
    #: What the client parsed of the agent's first answer, in ProtoJSON's canonical (A2A 1.0) form: a SendMessage
    #: response (`{"task": ...}` or `{"message": ...}`), or `{"error": {"code", "message"}}` for an A2A error
    #: (ACTS client tests compare it with their `expect_parsed`). None when nothing was parsed.
    parsed: dict[str, Any] | None = None
    #: What it parsed of other answers, by ACTS operation (`get_agent_card`, `get_extended_agent_card`, `get_task`:
    #: the last GetTask answer, or its A2A error), in the same form.
    parsed_answers: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.kind = ResultKind(self.kind)  # also from its spelling, "message", "task" or "error"

    @property
    def interrupted(self) -> bool:
        return self.state is not None and self.state.interrupted

    @property
    def answered(self) -> bool:
        """A message, or a task in a terminal or interrupted state (FAILED and REJECTED are answers too)."""
        if self.error is not None:
            return False
        return self.kind is ResultKind.MESSAGE or (
            self.kind is ResultKind.TASK and self.state is not None and self.state.stops
        )

    @property
    def exit_code(self) -> ClientExit:
        if self.error is not None and self.error.get("type") == "usage":
            return ClientExit.USAGE
        return ClientExit.ANSWER if self.answered else ClientExit.NO_ANSWER

    def to_json(self) -> dict[str, Any]:
        iface = self.interface
        return {
            "kind": self.kind.value,
            "state": self.state.value if self.state is not None else None,
            "text": self.text,
            "task_id": self.task_id,
            "context_id": self.context_id,
            "interrupted": self.interrupted,
            "interface": None
            if iface is None
            else {
                "url": iface.url,
                "binding": iface.binding,
                "version": iface.version,
                **({"tenant": iface.tenant} if iface.tenant else {}),
            },
            "card_url": self.card_url,
            "streamed": self.streamed,
            "follow_ups": self.follow_ups,
            "attempts": self.attempts,
            "skipped": self.skipped,
            "follow_up": self.follow_up,
            "canceled": self.canceled,
            "new_message": self.new_message,
            "extended_card": self.extended_card,
            "resubscribed": self.resubscribed,
            "webhook": self.webhook,
            "signature": self.signature,
            "warnings": self.warnings,
            "error": self.error,
            "parsed": self.parsed,
            "parsed_answers": self.parsed_answers,
        }


def write_result(result: Result, path: str | os.PathLike[str]) -> Path:
    target = Path(path)
    target.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


def report_to_env(result: Result, environ: Mapping[str, str] = os.environ) -> Path | None:
    """Write the result JSON where the harness asked (A2A_LAB_RESULT), if it asked. Returns the path written."""
    path = environ.get(ENV_RESULT)
    if not path:
        return None
    return write_result(result, path)


def render_text(result: Result) -> str:
    """The result for people: what was found, what was used, what came back."""
    lines: list[str] = []

    def row(label: str, value: str) -> None:
        lines.append(f"{label + ':':<11}{value}")

    if result.card_url:
        row("card", result.card_url)
    for attempt in result.attempts:
        row("tried", f"{attempt['interface']} -> {attempt['error']}")
    if result.signature is not None:
        row("signature", f"verified (kid {result.signature.get('kid')!r}, {result.signature.get('alg')})")
    if result.extended_card:
        row("card", "extended card fetched")
    if result.interface is not None:
        row(
            "interface",
            result.interface.label + (f" (tenant {result.interface.tenant})" if result.interface.tenant else ""),
        )
    if result.webhook is not None:
        row(
            "webhook",
            f"{result.webhook['url']}: {result.webhook['notifications']} notification(s) accepted, "
            f"{result.webhook['refused']} refused",
        )
    if result.resubscribed:
        row("stream", "resubscribed to the task after the stream ended early")
    if result.follow_up:
        row("follow-up", "a second message was sent to the task")
    if result.canceled:
        row("cancel", "CancelTask was sent for the task")
    if result.new_message:
        row("new", "an unrelated new message was sent (no taskId): the answer below is its own")
    if result.kind is ResultKind.MESSAGE:
        row("answer", "a message" + (" (streamed)" if result.streamed else ""))
    elif result.kind is ResultKind.TASK:
        state = result.state.short if result.state is not None else "unknown state"
        how = (
            "interrupted: the agent waits for the user"
            if result.interrupted
            else ("finished" if result.answered else "not finished")
        )
        extra = (
            f", {result.follow_ups} GetTask follow-up{'s' if result.follow_ups != 1 else ''}"
            if result.follow_ups
            else ""
        )
        row("answer", f"task {result.task_id or '?'} {state} ({how}{extra}{', streamed' if result.streamed else ''})")
    if result.text:
        text_lines = result.text.splitlines() or [""]
        row("text", text_lines[0])
        lines.extend(" " * 11 + line for line in text_lines[1:])
    for warning in result.warnings:
        row("warning", warning)
    if result.error is not None:
        row("error", result.error.get("message", "unknown error"))
    return "\n".join(lines)
