"""Fuzzing one spec/conformant server over HTTP: random and mutated JSON-RPC envelopes, REST paths,
verbs, query strings, headers and bodies (invalid UTF-8, deep nesting, huge strings).

Whatever arrives, the server never answers 5xx; the JSON-RPC endpoint answers a valid JSON-RPC response
(or an SSE stream of them); HTTP+JSON answers JSON with google.rpc.Status errors; and afterwards the
server still answers a normal SendMessage. Deterministic: hypothesis is derandomized, the rest is seeded.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.protocol.operations import all_method_names
from a2a_lab.server.app import ScenarioApp
from a2a_lab.server.hosting import BackgroundServer

from .helpers import client, message, message03

RPC = "/a2a/jsonrpc"
REST = "/a2a/rest"
CARD = "/.well-known/agent-card.json"
VERBS = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]
VERSIONS = ["1.0", "0.3", "", "1.0.1", "0.3.0", "2.0", "1", "1.0.0.0", "latest", " 1.0 ", "1.0,0.3", "v1.0"]
CONTENT_TYPES = [
    "application/json",
    "application/a2a+json",
    "application/json; charset=utf-8",
    "text/plain",
    "text/event-stream",
    "application/x-www-form-urlencoded",
    "multipart/form-data",
    "",
    "application/jsonx",
    "APPLICATION/JSON",
]
METHODS = [
    *all_method_names(),
    "tasks/list",
    "sendMessage",
    "",
    "rpc.discover",
    "SendMessage/",
    "message/send\x00",
    "ListTask",
]
KEYS = [
    "message",
    "configuration",
    "id",
    "taskId",
    "contextId",
    "historyLength",
    "pageSize",
    "pageToken",
    "status",
    "includeArtifacts",
    "statusTimestampAfter",
    "tenant",
    "metadata",
    "url",
    "token",
    "authentication",
    "pushNotificationConfig",
    "pushNotificationConfigId",
    "returnImmediately",
    "blocking",
    "acceptedOutputModes",
    "taskPushNotificationConfig",
    "request",
    "name",
    "config",
    "kind",
]
SETTINGS = settings(
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def strict_json(data: bytes) -> Any:
    """RFC 8259 JSON in UTF-8: no NaN/Infinity, no invalid UTF-8."""
    return json.loads(data.decode("utf-8"), parse_constant=_reject_constant)


# ==================================================================================== the server under fuzz


class Fuzz:
    """One conformant server, one client, a count of requests, and the checks every answer must pass."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.app = ScenarioApp(catalogue.get("spec/conformant"))
        self.server = BackgroundServer(self.app).start()
        self.http = client(self.server.url, timeout=10)
        self.sent = 0
        self.task_ids = [self._completed_task(f"seed {i}") for i in range(3)]

    def _completed_task(self, text: str) -> str:
        r = self.http.post(
            RPC,
            json={"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message(text)}},
            headers={"A2A-Version": "1.0"},
        )
        task = r.json()["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED"
        return task["id"]

    def close(self) -> None:
        self.http.close()
        self.server.stop()

    # ------------------------------------------------------------------ sending

    def send(
        self,
        verb: str,
        path: str,
        body: bytes | Iterator[bytes] | None = None,  # an iterator is sent chunked
        headers: dict[str, Any] | None = None,
        params: list[tuple[str, str]] | None = None,
    ) -> httpx.Response:
        self.sent += 1
        # Header values as bytes (latin-1), without the outer spaces h11 refuses to send.
        raw_headers = [
            (k.encode("latin-1"), v.strip(" \t").encode("latin-1") if isinstance(v, str) else v)
            for k, v in (headers or {}).items()
        ]
        query = httpx.QueryParams([(k, v) for k, v in params]) if params is not None else None
        request = self.http.build_request(verb, path, content=body, headers=raw_headers, params=query)
        try:
            response = self.http.send(request)
        except httpx.TransportError as exc:  # pragma: no cover - a failure to report, with the request
            raise AssertionError(
                f"{verb} {path}: the server dropped the connection ({exc!r}); "
                f"body {body[:200] if isinstance(body, bytes) else body!r}"
            ) from exc
        self.check(response)
        return response

    def rpc(self, envelope: Any, headers: dict[str, Any] | None = None, raw: bytes | None = None) -> httpx.Response:
        body = raw if raw is not None else json.dumps(envelope).encode()
        return self.send("POST", RPC, body, {"content-type": "application/json", **(headers or {})})

    # ------------------------------------------------------------------ checks

    def check(self, r: httpx.Response) -> None:
        path, verb = r.request.url.path, r.request.method
        where = f"{verb} {str(r.request.url)[:300]} -> {r.status_code}: {r.content[:300]!r}"
        assert r.status_code < 500, where
        if verb == "HEAD" or r.status_code == 304:
            assert r.content == b"", where
            return
        if path in (RPC, RPC + "/"):
            self.check_jsonrpc(r, where)
        elif path.startswith(REST + "/"):
            self.check_rest(r, path, where)
        elif path in (CARD, "/.well-known/agent.json"):
            assert r.status_code in (200, 404, 405), where
        else:
            assert r.status_code == 404, where
            self.check_status(strict_json(r.content), r.status_code, where)

    @staticmethod
    def check_envelope(body: Any, where: str) -> None:
        assert isinstance(body, dict) and body.get("jsonrpc") == "2.0", where
        assert ("result" in body) != ("error" in body), f"exactly one of result/error: {where}"
        assert (
            "id" in body
            and (body["id"] is None or isinstance(body["id"], (str, int, float)))
            and not isinstance(body["id"], bool)
        ), where
        if "error" in body:
            error = body["error"]
            assert isinstance(error, dict), where
            assert isinstance(error.get("code"), int) and not isinstance(error["code"], bool), where
            assert isinstance(error.get("message"), str), where

    def check_jsonrpc(self, r: httpx.Response, where: str) -> None:
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            assert r.status_code == 200, where
            events = sse_data(r.content)
            assert events, f"an empty stream: {where}"
            for event in events:
                self.check_envelope(event, where)
            return
        assert r.headers.get("content-type") == "application/json", where
        self.check_envelope(strict_json(r.content), where)

    @staticmethod
    def check_status(body: Any, status: int, where: str) -> None:
        assert isinstance(body, dict) and isinstance(body.get("error"), dict), where
        error = body["error"]
        assert (
            error.get("code") == status
            and isinstance(error.get("status"), str)
            and isinstance(error.get("message"), str)
        ), where
        assert isinstance(error.get("details", []), list), where

    def check_rest(self, r: httpx.Response, path: str, where: str) -> None:
        legacy = path.startswith(REST + "/v1/")
        content_type = r.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            assert r.status_code == 200, where
            for name, data in sse_named(r.content):
                assert isinstance(data, dict) and "jsonrpc" not in data, where
                if name == "error":
                    self.check_status(data, data["error"]["code"], where)
            return
        assert content_type in ("application/a2a+json", "application/json"), where
        body = strict_json(r.content)
        if r.status_code >= 400:
            if legacy and "error" not in body:
                assert isinstance(body, dict) and isinstance(body.get("message"), str), (
                    where
                )  # the 0.3 SDKs' error body
            else:
                self.check_status(body, r.status_code, where)
        else:
            assert r.status_code == 200 and isinstance(body, dict) and "jsonrpc" not in body, where

    def assert_healthy(self) -> None:
        """A normal SendMessage still works, in both versions."""
        r = self.http.post(
            RPC,
            json={
                "jsonrpc": "2.0",
                "id": "ok",
                "method": "SendMessage",
                "params": {"message": message("still there?")},
            },
            headers={"A2A-Version": "1.0"},
        )
        task = r.json()["result"]["task"]
        assert task["status"]["state"] == "TASK_STATE_COMPLETED" and task["artifacts"][0]["parts"] == [
            {"text": "echo: still there?"}
        ]
        legacy = self.http.post(
            RPC, json={"jsonrpc": "2.0", "id": 2, "method": "message/send", "params": {"message": message03()}}
        )
        assert legacy.json()["result"]["status"]["state"] == "completed"
        assert self.http.get(CARD).status_code == 200


def sse_named(raw: bytes) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for block in raw.decode("utf-8").replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        names = [line[6:].strip() for line in block.split("\n") if line.startswith("event:")]
        if data:
            out.append((names[0] if names else None, json.loads("\n".join(data), parse_constant=_reject_constant)))
    return out


def sse_data(raw: bytes) -> list[Any]:
    return [data for _, data in sse_named(raw)]


@pytest.fixture(scope="module")
def fuzz(catalogue: Catalogue) -> Iterator[Fuzz]:
    f = Fuzz(catalogue)
    yield f
    f.close()


# ==================================================================================== strategies

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=8,
)

#: Header values h11 will send: visible latin-1, inner spaces allowed.
header_text = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0xFF, exclude_categories=["Cc"]), max_size=20
)


def plausible_message(version: str) -> st.SearchStrategy[Any]:
    good = message("fuzz") if version == "1.0" else message03("fuzz")
    mutated = st.fixed_dictionaries(
        {},
        optional={
            "messageId": st.sampled_from(["m", "", None, 3]) | st.text(max_size=8),
            "role": st.sampled_from(["ROLE_USER", "ROLE_AGENT", "user", "agent", "ROLE_UNSPECIFIED", "", None, 1]),
            "parts": st.lists(
                st.one_of(
                    st.fixed_dictionaries({"text": scalars}),
                    st.fixed_dictionaries({"kind": st.sampled_from(["text", "file", "data"]), "text": scalars}),
                    st.fixed_dictionaries({"raw": st.text(max_size=12)}),
                    st.fixed_dictionaries({"data": json_values}),
                    st.fixed_dictionaries({"url": scalars, "mediaType": scalars}),
                    json_values,
                ),
                max_size=3,
            ),
            "kind": st.sampled_from(["message", "task", ""]),
            "taskId": st.sampled_from(["", "nope"]) | scalars,
            "contextId": scalars,
            "metadata": json_values,
            "content": st.lists(json_values, max_size=2),
            "extensions": json_values,
        },
    )
    return st.one_of(st.just(good), mutated, json_values)


def plausible_params(version: str) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.fixed_dictionaries(
            {"message": plausible_message(version)},
            optional={
                "configuration": st.one_of(
                    json_values,
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "returnImmediately": scalars,
                            "blocking": scalars,
                            "historyLength": scalars,
                            "acceptedOutputModes": json_values,
                            "taskPushNotificationConfig": json_values,
                            "pushNotificationConfig": json_values,
                        },
                    ),
                ),
                "metadata": json_values,
                "tenant": scalars,
            },
        ),
        st.dictionaries(st.sampled_from(KEYS), json_values, max_size=5),
        json_values,
    )


@st.composite
def envelopes(draw: st.DrawFn) -> tuple[Any, dict[str, Any]]:
    version = draw(st.sampled_from(["1.0", "0.3"]))
    body: dict[str, Any] = {}
    if draw(st.booleans()) or draw(st.booleans()):
        body["jsonrpc"] = draw(st.sampled_from(["2.0", "2.0", "2.0", "1.0", 2.0, None, ""]))
    if draw(st.integers(0, 5)):
        body["id"] = draw(
            st.one_of(
                st.integers(),
                st.text(max_size=10),
                st.none(),
                st.floats(allow_nan=False, allow_infinity=False),
                st.booleans(),
                json_values,
            )
        )
    if draw(st.integers(0, 9)):
        body["method"] = draw(st.one_of(st.sampled_from(METHODS), st.text(max_size=20), scalars))
    if draw(st.integers(0, 5)):
        body["params"] = draw(plausible_params(version))
    if draw(st.integers(0, 9)) == 0:
        body[draw(st.text(max_size=8))] = draw(json_values)
    top: Any = body if draw(st.integers(0, 14)) else draw(st.one_of(st.lists(st.just(body), max_size=3), json_values))
    headers: dict[str, Any] = {}
    choice = draw(st.integers(0, 5))
    if choice:
        headers["A2A-Version"] = draw(st.sampled_from(VERSIONS)) if choice > 1 else draw(header_text)
    if draw(st.integers(0, 7)) == 0:
        headers["content-type"] = draw(st.sampled_from(CONTENT_TYPES))
    return top, headers


def path_segment(task_ids: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(
            [*task_ids, "nope", "x", "%00", "%FF%FE", "..", ".", "tasks", "v1", "a%2Fb", "%E2%82%AC", "\u00e9"]
        ),
        st.text(
            alphabet=st.characters(
                min_codepoint=0x20, max_codepoint=0x2FF, exclude_characters="/?#", exclude_categories=["Cc"]
            ),
            min_size=1,
            max_size=10,
        ),
    )


@st.composite
def rest_requests(
    draw: st.DrawFn, task_ids: list[str]
) -> tuple[str, str, bytes | None, dict[str, Any], list[tuple[str, str]]]:
    seg = path_segment(task_ids)
    template = draw(
        st.sampled_from(
            [
                "/message:send",
                "/message:stream",
                "/tasks/{a}",
                "/tasks",
                "/tasks/{a}:cancel",
                "/tasks/{a}:subscribe",
                "/tasks/{a}/pushNotificationConfigs",
                "/tasks/{a}/pushNotificationConfigs/{b}",
                "/extendedAgentCard",
                "/v1/message:send",
                "/v1/message:stream",
                "/v1/tasks/{a}",
                "/v1/tasks/{a}:cancel",
                "/v1/tasks/{a}:subscribe",
                "/v1/tasks/{a}/pushNotificationConfigs",
                "/v1/tasks/{a}/pushNotificationConfigs/{b}",
                "/v1/card",
                "/{a}/message:send",
                "/{a}/tasks/{b}",
                "/{a}/tasks",
                "/{a}",
                "/{a}/{b}/{a}",
                "/",
                "/tasks/{a}:{b}",
                "/message:{a}",
            ]
        )
    )
    path = REST + template.format(a=draw(seg), b=draw(seg))
    verb = draw(st.sampled_from(VERBS))
    version = draw(st.sampled_from(["1.0", "0.3"]))
    body: bytes | None = None
    kind = draw(st.integers(0, 4))
    if kind == 1:
        body = json.dumps(draw(plausible_params(version))).encode()
    elif kind == 2:
        body = json.dumps(draw(json_values)).encode()
    elif kind == 3:
        body = draw(st.binary(max_size=40))
    headers: dict[str, Any] = {}
    if draw(st.integers(0, 3)):
        headers["A2A-Version"] = draw(st.sampled_from(VERSIONS))
    if body is not None or draw(st.booleans()):
        headers["content-type"] = draw(st.sampled_from(CONTENT_TYPES))
    query = draw(
        st.lists(
            st.tuples(
                st.sampled_from([*KEYS, "A2A-Version", "history_length", "page_size"]) | st.text(max_size=6),
                st.sampled_from(
                    [
                        "",
                        "0",
                        "1",
                        "-1",
                        "101",
                        "true",
                        "false",
                        "TRUE",
                        "TASK_STATE_WORKING",
                        "working",
                        "²",
                        "1e3",
                        "2026-01-01T00:00:00Z",
                        "1.0",
                        "%FF",
                    ]
                )
                | st.text(max_size=8),
            ),
            max_size=4,
        )
    )
    return verb, path, body, headers, query


# ==================================================================================== the fuzz tests


def test_fuzz_jsonrpc_envelopes(fuzz: Fuzz) -> None:
    before = fuzz.sent

    @settings(SETTINGS, max_examples=450)
    @given(envelopes())
    def run(case: tuple[Any, dict[str, Any]]) -> None:
        envelope, headers = case
        fuzz.rpc(envelope, headers)

    run()
    assert fuzz.sent - before >= 430
    fuzz.assert_healthy()


def test_fuzz_rest(fuzz: Fuzz) -> None:
    before = fuzz.sent
    finished = fuzz.task_ids

    @settings(SETTINGS, max_examples=450)
    @given(rest_requests(finished))
    def run(case: tuple[str, str, bytes | None, dict[str, Any], list[tuple[str, str]]]) -> None:
        verb, path, body, headers, query = case
        fuzz.send(verb, path, body, headers, query)

    run()
    assert fuzz.sent - before >= 430
    fuzz.assert_healthy()


def test_fuzz_headers_and_other_paths(fuzz: Fuzz) -> None:
    before = fuzz.sent
    good = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": fuzz.task_ids[0]}}).encode()

    @settings(SETTINGS, max_examples=300)
    @given(
        st.dictionaries(
            st.sampled_from(
                [
                    "A2A-Version",
                    "content-type",
                    "accept",
                    "authorization",
                    "A2A-Extensions",
                    "X-A2A-Extensions",
                    "host",
                    "if-none-match",
                    "x-forwarded-host",
                    "transfer-encoding-x",
                    "x-" + "a" * 40,
                ]
            ),
            header_text,
            max_size=4,
        ),
        st.sampled_from(
            [
                RPC,
                RPC + "/",
                CARD,
                "/.well-known/agent.json",
                "/",
                "/a2a",
                "/a2a/",
                "/A2A/jsonrpc",
                "/a2a/jsonrpc/x",
                "/.well-known/",
                "/favicon.ico",
                "/a2a/restx",
                "/a2a/rest",
            ]
        ),
        st.sampled_from(VERBS),
    )
    def run(headers: dict[str, str], path: str, verb: str) -> None:
        fuzz.send(
            verb, path, good if verb in ("POST", "PUT", "PATCH") else None, {k: v.strip() for k, v in headers.items()}
        )

    run()
    assert fuzz.sent - before >= 280
    fuzz.assert_healthy()


# ----------------------------------------------------------------------------------- seeded mutations of valid requests


def valid_corpus(task_id: str) -> list[tuple[str, str, Any, dict[str, str]]]:
    """(verb, path, body, headers) for valid requests of every operation, both versions, both bindings."""
    v1: dict[str, str] = {"A2A-Version": "1.0"}
    v03: dict[str, str] = {}
    push = {"url": "http://127.0.0.1:9/hook", "authentication": {"scheme": "Bearer", "credentials": "c"}}

    def rpc(method: str, params: Any, headers: dict[str, str]) -> tuple[str, str, Any, dict[str, str]]:
        return "POST", RPC, {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, headers

    return [
        rpc(
            "SendMessage",
            {"message": message("m"), "configuration": {"historyLength": 1, "acceptedOutputModes": ["text/plain"]}},
            v1,
        ),
        rpc(
            "SendMessage",
            {"message": message("m"), "configuration": {"returnImmediately": True, "taskPushNotificationConfig": push}},
            v1,
        ),
        rpc("SendStreamingMessage", {"message": message("s")}, v1),
        rpc("GetTask", {"id": task_id, "historyLength": 0}, v1),
        rpc("ListTasks", {"pageSize": 2, "includeArtifacts": True, "status": "TASK_STATE_COMPLETED"}, v1),
        rpc("CancelTask", {"id": task_id}, v1),
        rpc("SubscribeToTask", {"id": task_id}, v1),
        rpc("CreateTaskPushNotificationConfig", {"taskId": task_id, **push}, v1),
        rpc("GetTaskPushNotificationConfig", {"taskId": task_id, "id": "p"}, v1),
        rpc("ListTaskPushNotificationConfigs", {"taskId": task_id}, v1),
        rpc("DeleteTaskPushNotificationConfig", {"taskId": task_id, "id": "p"}, v1),
        rpc("GetExtendedAgentCard", {}, v1),
        rpc("message/send", {"message": message03("m"), "configuration": {"blocking": True, "historyLength": 2}}, v03),
        rpc("message/stream", {"message": message03("s")}, v03),
        rpc("tasks/get", {"id": task_id}, v03),
        rpc("tasks/cancel", {"id": task_id}, v03),
        rpc("tasks/resubscribe", {"id": task_id}, v03),
        rpc(
            "tasks/pushNotificationConfig/set",
            {
                "taskId": task_id,
                "pushNotificationConfig": {
                    "id": "p",
                    "url": "http://127.0.0.1:9/h",
                    "authentication": {"schemes": ["Bearer"], "credentials": "c"},
                },
            },
            v03,
        ),
        rpc("tasks/pushNotificationConfig/get", {"id": task_id, "pushNotificationConfigId": "p"}, v03),
        rpc("tasks/pushNotificationConfig/list", {"id": task_id}, v03),
        rpc("tasks/pushNotificationConfig/delete", {"id": task_id, "pushNotificationConfigId": "p"}, v03),
        ("POST", f"{REST}/message:send", {"message": message("r")}, v1),
        ("POST", f"{REST}/message:stream", {"message": message("r")}, v1),
        ("GET", f"{REST}/tasks/{task_id}", None, v1),
        ("GET", f"{REST}/tasks", None, v1),
        ("POST", f"{REST}/tasks/{task_id}:cancel", {}, v1),
        ("POST", f"{REST}/tasks/{task_id}/pushNotificationConfigs", push, v1),
        ("GET", f"{REST}/tasks/{task_id}/pushNotificationConfigs", None, v1),
        (
            "POST",
            f"{REST}/v1/message:send",
            {"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}]}},
            v03,
        ),
        (
            "POST",
            f"{REST}/v1/tasks/{task_id}/pushNotificationConfigs",
            {"config": {"url": "http://127.0.0.1:9/h"}},
            v03,
        ),
        ("GET", f"{REST}/v1/tasks/{task_id}", None, v03),
    ]


JUNK: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    2**63,
    -(2**63) - 1,
    1.5,
    -0.0,
    1e308,
    "",
    " ",
    "\u0000",
    "\ud800",
    "\U0001f600",
    "x" * 5000,
    [],
    {},
    [[[]]],
    {"": {}},
    "ROLE_USER",
    "user",
    "TASK_STATE_COMPLETED",
    "completed",
    "http://10.0.0.1/",
    "1.0",
    "../..",
    "%00",
]


def mutate(rng: random.Random, value: Any) -> Any:
    """One random change somewhere inside a JSON value."""
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.15:
            del out[key]
        elif roll < 0.25:
            out[rng.choice(KEYS)] = rng.choice(JUNK)
        elif roll < 0.3:
            out[key.replace("Id", "_id") if "Id" in key else key.upper()] = out.pop(key)
        else:
            out[key] = mutate(rng, value[key])
        return out
    if isinstance(value, list) and value and rng.random() < 0.8:
        out_list = list(value)
        i = rng.randrange(len(out_list))
        roll = rng.random()
        if roll < 0.2:
            del out_list[i]
        elif roll < 0.35:
            out_list.append(rng.choice(JUNK))
        else:
            out_list[i] = mutate(rng, value[i])
        return out_list
    if isinstance(value, str) and value and rng.random() < 0.5:
        i = rng.randrange(len(value) + 1)
        return value[:i] + rng.choice(["", "\ud800", "é", "/", ":", "\x00", " ", "%", "{"]) + value[i + 1 :]
    return rng.choice(JUNK)


MUTATIONS = 2200


def test_fuzz_seeded_mutations(fuzz: Fuzz) -> None:
    rng = random.Random(20261130)
    corpus = valid_corpus(fuzz.task_ids[1])
    before = fuzz.sent
    for _ in range(MUTATIONS):
        verb, path, body, headers = rng.choice(corpus)
        roll = rng.random()
        if roll < 0.7 and body is not None:
            body = mutate(rng, body)
        elif roll < 0.8:
            headers = {**headers, "A2A-Version": rng.choice(VERSIONS)}
        elif roll < 0.85:
            verb = rng.choice(VERBS)
        elif roll < 0.9:
            path = path + rng.choice(["/", "x", "/x", ":x", "%20", "?a2a-version=1.0"])
        encoded = (
            None if body is None else json.dumps(body, ensure_ascii=rng.random() < 0.5).encode("utf-8", "surrogatepass")
        )
        if encoded is not None and rng.random() < 0.05:
            cut = rng.randrange(len(encoded))
            encoded = encoded[:cut]  # a truncated body
        fuzz.send(verb, path, encoded, {"content-type": "application/json", **headers})  # checks every answer
    assert fuzz.sent - before == MUTATIONS
    fuzz.assert_healthy()


# ------------------------------------------------------------------------------------ pathological bodies


def deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_fuzz_pathological_bodies(fuzz: Fuzz) -> None:
    limit = fuzz.app.scenario.limits.body_bytes
    v1 = {"A2A-Version": "1.0"}
    envelope_prefix = b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":'
    bodies: list[bytes] = [
        b"",
        b" ",
        b"\n",
        b"null",
        b"0",
        b"[]",
        b"{}",
        b'""',
        b"true",
        b"[1,2,3]",
        b"\xff\xfe\xfd",
        b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"\xff"}}',
        b"\xef\xbb\xbf{}",  # invalid UTF-8, BOM
        b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"\\ud800"}}',  # a lone surrogate escape
        b'{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"\\udc00\\ud83d"}]}}}',
        b'{"jsonrpc":"2.0","id":NaN,"method":"GetTask","params":{"id":"x"}}',
        b'{"jsonrpc":"2.0","id":Infinity,"method":"GetTask","params":{"id":"x"}}',
        b'{"jsonrpc":"2.0","id":1e400,"method":"GetTask","params":{"id":"x"}}',
        b'{"jsonrpc":"2.0","id":-Infinity,"method":"GetTask","params":{"historyLength":NaN,"id":"x"}}',
        b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"GetTask","params":{"id":"x"}}',
        b'{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask","method":"ListTasks"}',
        b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}} trailing',
        b'{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}',
        deep(10000),
        b'{"a":' * 10000 + b"1" + b"}" * 10000,
        deep(100000),
        envelope_prefix + deep(10000) + b"}}",
        envelope_prefix + deep(63) + b"}}",
        envelope_prefix + deep(65) + b"}}",
        envelope_prefix + b'{"messageId":"m","role":"ROLE_USER","parts":[{"text":"' + b"a" * (limit - 200) + b'"}]}}}',
        envelope_prefix + b'{"messageId":"m","role":"ROLE_USER","parts":[{"text":"' + b"a" * limit + b'"}]}}}',
        envelope_prefix + b'{"messageId":"' + "é".encode() * 100000 + b'","role":"ROLE_USER","parts":[{"text":"x"}]}}}',
        envelope_prefix
        + b'{"messageId":"m","role":"ROLE_USER","parts":['
        + b'{"text":"x"},' * 20000
        + b'{"text":"x"}]}}}',
        b'{"jsonrpc":"2.0","id":"' + b"i" * 500000 + b'","method":"GetTask","params":{"id":"x"}}',
        b'{"jsonrpc":"2.0","id":1,"method":"' + b"M" * 300000 + b'"}',
    ]
    before = fuzz.sent
    for body in bodies:
        fuzz.rpc(None, v1, raw=body)
        for path in (
            f"{REST}/message:send",
            f"{REST}/v1/message:send",
            f"{REST}/tasks/{fuzz.task_ids[0]}/pushNotificationConfigs",
        ):
            fuzz.send("POST", path, body, {**v1, "content-type": "application/json"})
    # chunked uploads of unknown length, over the limit
    # A chunked upload of unknown length that crosses the limit in its last chunk (so the server has read all of it).
    chunks = [b"[" * 1000] * (limit // 1000) + [b"[" * (limit % 1000 + 1)]
    fuzz.send("POST", RPC, iter(chunks), {"content-type": "application/json"})
    big_query = [("pageSize", "1" * 5000), ("x" * 2000, "y" * 2000)]
    fuzz.send("GET", f"{REST}/tasks", None, v1, big_query)
    fuzz.send("GET", f"{REST}/tasks/{'z' * 4000}", None, v1)
    assert fuzz.sent - before == len(bodies) * 4 + 3
    fuzz.assert_healthy()
