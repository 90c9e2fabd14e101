"""A second identity for the ACTS tests that need another user (`acts run --credentials`): the draft's variables
`{{otherUserTaskId}}` (a task that user created: SEC-AUTH-003) and `{{insufficientAuthToken}}` (a token the server
accepts as genuine but that lacks a permission: SEC-AUTH-002, SEC-EXTCARD-002).

`--credentials` names the second user as `KEY=VALUE` pairs: `token=T` (a bearer token), or `client_id=...,
client_secret=...` (the card's OAuth 2.0 clientCredentials flow gives the second user's token, with the scopes its
security requirement names); `insufficient_token=T` gives the insufficient token outright, else it is made from the
client credentials (a token asked with no scope, where the requirement names scopes). The runner creates the other
user's task with the second user's token, once per binding.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import httpx

from a2a_lab.harness.acts.exchange import Exchanger, GrpcExchanger, Target
from a2a_lab.protocol import security_schemes as ss
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.security_schemes import FlowKind

#: The draft's variables a second identity provides.
OTHER_TASK = "otherUserTaskId"
INSUFFICIENT = "insufficientAuthToken"
VARIABLES = (OTHER_TASK, INSUFFICIENT)
#: The keys `--credentials` takes.
KEYS = ("token", "client_id", "client_secret", "insufficient_token")
HOW = "give --credentials token=T (a second user's bearer token) or client_id=ID,client_secret=S (its OAuth 2.0 client)"


class IdentityError(LabError):
    """The second identity could not be used (its token endpoint refused, no flow to obtain a token)."""


def parse(text: str) -> dict[str, str]:
    """`--credentials KEY=VALUE[,KEY=VALUE...]` (ValueError saying what is wrong and how to write it)."""
    out: dict[str, str] = {}
    for item in text.split(","):
        key, eq, value = item.strip().partition("=")
        if not eq or not key or not value:
            raise ValueError(f"--credentials {item.strip()!r}: write KEY=VALUE pairs separated by commas ({HOW})")
        if key not in KEYS:
            from a2a_lab.contract.suggest import one_of

            raise ValueError(f"--credentials {key}: no such key ({one_of(key, list(KEYS))})")
        out[key] = value
    if "client_secret" in out and "client_id" not in out:
        raise ValueError("--credentials client_secret: give client_id too")
    return out


def referenced(test: Any) -> frozenset[str]:
    """Which of VARIABLES the test's steps and assertions refer to (`{{name}}` anywhere in them)."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.update(name for name in VARIABLES if "{{" + name + "}}" in value)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                walk(k)
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif dataclasses.is_dataclass(value) and not isinstance(value, type):
            for f in dataclasses.fields(value):
                walk(getattr(value, f.name))

    walk(list(test.steps))
    walk(list(test.assertions))
    return frozenset(found - set(test.variables))


def missing(needed: frozenset[str], credentials: Mapping[str, str], card: Mapping[str, Any]) -> str:
    """Why these credentials cannot provide `needed` against this card ("" when they can)."""
    if not needed:
        return ""
    if not credentials:
        return f"needs a second user's credentials ({', '.join(sorted(needed))}): {HOW}"
    if OTHER_TASK in needed and "token" not in credentials and _client_flow(card) is None:
        return "needs the second user's token: give --credentials token=T (the card declares no clientCredentials flow)"
    if INSUFFICIENT in needed and "insufficient_token" not in credentials:
        flow = _client_flow(card)
        if flow is None or "client_id" not in credentials or not flow[1]:
            return (
                "needs a token the server accepts but that lacks a permission: give --credentials insufficient_token=T"
                " (it is made only from client credentials on a card whose requirement names OAuth 2.0 scopes)"
            )
    return ""


def _client_flow(card: Mapping[str, Any]) -> tuple[str, tuple[str, ...]] | None:
    """(token URL, the scopes the card's requirement names) of the card's first OAuth 2.0 clientCredentials flow."""
    security = ss.read(card)
    for name, scheme in security.schemes.items():
        flow = scheme.flow(FlowKind.CLIENT_CREDENTIALS)
        if flow is not None and flow.token_url:
            scopes = next((r.schemes[name] for r in security.requirements if name in r.schemes), ())
            return flow.token_url, tuple(scopes)
    return None


def token(
    http: httpx.Client,
    credentials: Mapping[str, str],
    card: Mapping[str, Any],
    scoped: bool = True,
    timeout: float = 10,
) -> str:
    """The second user's token (`scoped`), or one asked with no scope (the insufficient one); `timeout`: the
    token endpoint's answer, in seconds."""
    if scoped and "token" in credentials:
        return credentials["token"]
    if not scoped and "insufficient_token" in credentials:
        return credentials["insufficient_token"]
    flow = _client_flow(card)
    if flow is None or "client_id" not in credentials:
        raise IdentityError(f"no token for the second user: {HOW}")
    url, scopes = flow
    form = {"grant_type": "client_credentials", "scope": " ".join(scopes) if scoped else ""}
    auth = (credentials["client_id"], credentials.get("client_secret", ""))
    try:
        response = http.post(url, data=form, auth=auth, timeout=timeout)
        value = response.json()
    except (httpx.HTTPError, ValueError) as exc:
        raise IdentityError(f"the token endpoint {url}: {exc}") from exc
    got = value.get("access_token") if isinstance(value, dict) else None
    if response.status_code != 200 or not isinstance(got, str) or not got:
        raise IdentityError(f"the token endpoint {url} gave no access token (HTTP {response.status_code})")
    return got


class SecondUser:
    """The second identity on one binding run: its token, its task and the insufficient token, each made once, when a
    test first needs it (IdentityError when it cannot be)."""

    def __init__(self, http: httpx.Client, target: Target, credentials: Mapping[str, str], card: Mapping[str, Any]):
        self.http, self.target, self.credentials, self.card = http, target, credentials, card
        self.made: dict[str, str] = {}

    def variables(self, needed: frozenset[str]) -> dict[str, str]:
        for name in sorted(needed - set(self.made)):
            self.made[name] = (
                self._task()
                if name == OTHER_TASK
                else token(self.http, self.credentials, self.card, False, self.target.timeout)
            )
        return {name: self.made[name] for name in needed}

    def secrets(self) -> list[str]:
        """The values a report must hide (the tokens; a task id is no secret)."""
        return [v for k, v in self.made.items() if k != OTHER_TASK]

    def _task(self) -> str:
        second = token(self.http, self.credentials, self.card, True, self.target.timeout)
        other = dataclasses.replace(self.target, token=second)
        grpc = other.binding is Binding.GRPC
        exchanger: Exchanger | GrpcExchanger = GrpcExchanger(self.http, other) if grpc else Exchanger(self.http, other)
        try:
            message = {"role": "ROLE_USER", "parts": [{"text": "tck-complete-task the second user's task"}]}
            reply = exchanger.operation("send_message", {"message": message})
        finally:
            if isinstance(exchanger, GrpcExchanger):
                exchanger.close()
        task = reply.root.get("task") if isinstance(reply.root, dict) else None
        task_id = task.get("id") if isinstance(task, dict) else None
        if reply.error is not None or not isinstance(task_id, str):
            said = reply.error.name if reply.error is not None else reply.problem or f"HTTP {reply.status}, no task"
            raise IdentityError(f"the second user's SendMessage made no task ({said})")
        return task_id
