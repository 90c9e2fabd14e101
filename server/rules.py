"""Choosing a reply: the first rule of an operation whose `when` matches the request wins."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from a2a_lab.contract.scenario import Reply, Rule, When
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.operations import Operation
from a2a_lab.protocol.versions import Version

from .engine import message_text

DEFAULT_REPLY = Reply()


class RequestFacts(NamedTuple):
    """What a rule can look at (a named tuple: made on every call that has rules to match, ~4x cheaper than a frozen
    dataclass)."""

    op: Operation
    version: Version
    binding: Binding
    method: str
    params: Mapping[str, Any]
    headers: Mapping[str, str]
    call: int  # this is the Nth call of this operation (1-based)


def matches(when: When, facts: RequestFacts) -> bool:
    if when.version is not None and when.version is not facts.version:
        return False
    if when.binding is not None and when.binding is not facts.binding:
        return False
    if when.method is not None and when.method != facts.method:
        return False
    if when.calls is not None:
        low, high = when.calls
        if facts.call < low or (high is not None and facts.call > high):
            return False
    sent = facts.params.get("message")
    message: dict[str, Any] = sent if isinstance(sent, dict) else {}
    if when.message_id_prefix is not None and not str(message.get("messageId", "")).startswith(when.message_id_prefix):
        return False
    if when.text_contains is not None and when.text_contains not in message_text(message):
        return False
    if when.has_task_id is not None and bool(message.get("taskId") or facts.params.get("id")) is not when.has_task_id:
        return False
    if when.lacks and all(_holds(facts.params, path) for path in when.lacks):
        return False
    for name, value in when.header:
        have = facts.headers.get(name)
        if have is None or (value is not None and have != value):
            return False
    return True


def _holds(params: Mapping[str, Any], path: str) -> bool:
    """The params hold a non-null member at this dotted path."""
    value: Any = params
    for name in path.split("."):
        if not isinstance(value, Mapping) or value.get(name) is None:
            return False
        value = value[name]
    return True


def choose(rules: tuple[Rule, ...], facts: RequestFacts) -> Reply:
    for rule in rules:
        if matches(rule.when, facts):
            return rule.reply
    return DEFAULT_REPLY
