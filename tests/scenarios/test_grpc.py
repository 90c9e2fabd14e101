"""The gRPC scenarios (scenarios/grpc/): each is served over real gRPC as it describes, a correct client passes it
(the fake client speaking gRPC through grpcio and the a2a-sdk's proto types, and one that does not speak gRPC),
and the defect each exists to catch fails the named check."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

grpc = pytest.importorskip("grpc", reason="the grpc extra (grpcio) is not installed: pip install 'a2a-lab[grpc]'")

from a2a_lab.contract.catalogue import Catalogue  # noqa: E402
from a2a_lab.harness.common.model import Outcome, ScenarioResult  # noqa: E402
from a2a_lab.protocol import grpcwire, protobuf  # noqa: E402
from a2a_lab.protocol.bindings import Binding  # noqa: E402
from a2a_lab.protocol.cards import Support  # noqa: E402
from a2a_lab.protocol.operations import Operation  # noqa: E402
from a2a_lab.protocol.versions import Version  # noqa: E402

from .catalogue_runs import Miss, Run, assert_misses, assert_passes, defect, group_ids, run, run_cases  # noqa: E402

GRPC_ONLY: tuple[Support, ...] = ((Binding.GRPC, Version.V1_0),)
GRPC_AND_JSONRPC: tuple[Support, ...] = ((Binding.GRPC, Version.V1_0), (Binding.JSONRPC, Version.V1_0))
ARGS = ("--binding", "grpc")
BOTH = ("--binding", "grpc", "--binding", "jsonrpc")
V1 = [(grpcwire.VERSION_METADATA, "1.0")]
MESSAGE = {"message": {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hi"}]}}


class Dial:
    """gRPC calls to a served scenario's gRPC interface (the address its card names)."""

    def __init__(self, served: Any, index: int = 0) -> None:
        card = served.http.get("/.well-known/agent-card.json").json()
        self.url = card["supportedInterfaces"][index]["url"]
        self.address = grpcwire.address_of(self.url)
        assert self.address is not None, self.url
        self.channel = grpc.insecure_channel(self.address)

    def unary(self, op: Operation, value: dict[str, Any], timeout: float = 5.0) -> Any:
        call = self.channel.unary_unary(grpcwire.method_path(op))
        data = call(protobuf.encode_request(op, value), metadata=V1, timeout=timeout)
        return None if data is None else protobuf.decode_response(op, data)

    def stream(self, op: Operation, value: dict[str, Any]) -> Iterator[dict[str, Any]]:
        call = self.channel.unary_stream(grpcwire.method_path(op))
        for data in call(protobuf.encode_request(op, value), metadata=V1, timeout=10):
            yield protobuf.decode_response(op, data)


def refused(call: Callable[[], Any]) -> Any:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    return caught.value


def details(error: Any) -> dict[str, Any] | None:
    trailer = dict(error.trailing_metadata() or ()).get(grpcwire.STATUS_DETAILS_KEY)
    return protobuf.status_json(trailer) if trailer is not None else None


# ------------------------------------------------------------------------------------ served as described


def test_conformant_over_grpc(serve: Callable[[str], Any]) -> None:
    served = serve("grpc/conformant")
    dial = Dial(served)
    assert dial.address is not None and dial.url == dial.address and dial.address.startswith("127.0.0.1:")
    task = dial.unary(Operation.SEND_MESSAGE, MESSAGE)["task"]
    assert task["status"]["state"] == "TASK_STATE_COMPLETED" and task["artifacts"][0]["parts"][0]["text"] == "echo: hi"
    assert dial.unary(Operation.GET_TASK, {"id": task["id"]})["id"] == task["id"]
    kinds = [next(iter(event)) for event in dial.stream(Operation.SEND_STREAMING_MESSAGE, MESSAGE)]
    assert kinds[0] == "task" and kinds[-1] == "statusUpdate"
    missing = refused(lambda: dial.unary(Operation.GET_TASK, {"id": "no-such-task"}))
    assert missing.code() is grpc.StatusCode.NOT_FOUND
    info = details(missing)
    assert info is not None and info["details"][0]["reason"] == "TASK_NOT_FOUND"
    # No a2a-version metadata means 0.3 (§3.6): refused by a 1.0-only interface, with the reason.
    bare = dial.channel.unary_unary(grpcwire.method_path(Operation.SEND_MESSAGE))
    old = refused(lambda: bare(protobuf.encode_request(Operation.SEND_MESSAGE, MESSAGE), timeout=5))
    assert old.code() is grpc.StatusCode.FAILED_PRECONDITION
    assert details(old)["details"][0]["reason"] == "VERSION_NOT_SUPPORTED"  # type: ignore[index]
    # A method the 1.0 service does not define (the 0.3 package) is journaled and answered UNIMPLEMENTED.
    legacy = dial.channel.unary_unary(f"/{grpcwire.SERVICE_V03}/SendMessage")
    assert refused(lambda: legacy(b"", timeout=5)).code() is grpc.StatusCode.UNIMPLEMENTED
    journal = served.journal
    calls = [e for e in journal if e["kind"] == "grpc"]
    assert calls[0]["path"] == "/lf.a2a.v1.A2AService/SendMessage" and calls[0]["operation"] == "SendMessage"
    assert calls[0]["response"]["grpc_status"] == "OK" and calls[0]["url"] == dial.address
    assert calls[-1]["unmatched"] and calls[-1]["response"]["grpc_status"] == "UNIMPLEMENTED"


def test_unimplemented_despite_the_card(serve: Callable[[str], Any]) -> None:
    served = serve("grpc/unimplemented-despite-card")
    error = refused(lambda: Dial(served).unary(Operation.SEND_MESSAGE, MESSAGE))
    assert error.code() is grpc.StatusCode.UNIMPLEMENTED and details(error) is None
    answer = served.rpc("/a2a", "SendMessage", MESSAGE).json()
    assert answer["result"]["task"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_status_details_missing_and_trailers_only(serve: Callable[[str], Any]) -> None:
    error = refused(lambda: Dial(serve("grpc/status-details-missing")).unary(Operation.SEND_MESSAGE, MESSAGE))
    assert error.code() is grpc.StatusCode.INVALID_ARGUMENT and details(error) is None
    assert "upstream validator" in error.details()
    # grpcio's sync client returns None where a unary call ends OK without its message.
    assert Dial(serve("grpc/trailers-only")).unary(Operation.SEND_MESSAGE, MESSAGE) is None


def test_deadline_and_reset(serve: Callable[[str], Any]) -> None:
    stalled = serve("grpc/deadline-exceeded")
    late = refused(lambda: Dial(stalled).unary(Operation.SEND_MESSAGE, MESSAGE, timeout=0.3))
    assert late.code() is grpc.StatusCode.DEADLINE_EXCEEDED
    assert stalled.app.state.journal.wait_for(
        lambda entries: any(e.get("response", {}).get("fault_outcome") == "stalled" for e in entries)
    )

    dropped = serve("grpc/stream-reset")
    dial = Dial(dropped)
    seen: list[dict[str, Any]] = []
    broken = refused(lambda: seen.extend(dial.stream(Operation.SEND_STREAMING_MESSAGE, MESSAGE)))
    assert broken.code() is grpc.StatusCode.UNAVAILABLE and len(seen) == 2
    task_id = seen[0]["task"]["id"]
    # The task goes on: a new connection finds it completed once time has moved it on.
    assert dropped.app.state.journal.wait_for(lambda entries: any(e.get("kind") == "grpc" for e in entries))
    again = Dial(dropped)
    for _ in range(100):
        task = again.unary(Operation.GET_TASK, {"id": task_id})
        if task["status"]["state"] == "TASK_STATE_COMPLETED":
            break
        dropped.app.state.journal.wait_for(lambda entries: False, timeout=0.05)
    assert task["status"]["state"] == "TASK_STATE_COMPLETED"
    assert next(e for e in dropped.journal if e["kind"] == "grpc")["events"][-1] == {
        "t": pytest.approx(0, abs=1e9),
        "dropped": True,
    }


def test_url_with_scheme_and_the_mixed_card(serve: Callable[[str], Any]) -> None:
    card_url = Dial(serve("grpc/url-with-scheme")).url
    assert card_url.startswith("grpc://127.0.0.1:") and card_url.endswith("/a2a")
    mixed = serve("grpc/mixed-0.3-jsonrpc-1.0-grpc")
    card = mixed.http.get("/.well-known/agent-card.json").json()
    assert card["protocolVersion"] == "0.3.0" and card["supportedInterfaces"][0]["protocolBinding"] == "GRPC"
    assert Dial(mixed).unary(Operation.SEND_MESSAGE, MESSAGE)["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
    old = {"message": {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}}
    assert mixed.rpc("/a2a", "message/send", old, version=None).json()["result"]["kind"] == "task"


# ------------------------------------------------------------------------------------ scored

IDS = (
    "grpc/conformant",
    "grpc/deadline-exceeded",
    "grpc/grpc-first-jsonrpc-fallback",
    "grpc/mixed-0.3-jsonrpc-1.0-grpc",
    "grpc/status-details-missing",
    "grpc/stream-reset",
    "grpc/trailers-only",
    "grpc/unimplemented-despite-card",
    "grpc/url-with-scheme",
)
UNIMPLEMENTED, STREAM_RESET = "grpc/unimplemented-despite-card", "grpc/stream-reset"
CORRECT = [
    *(run(sid, *BOTH, "--stream", supports=GRPC_AND_JSONRPC) for sid in IDS),
    *(run(sid, *ARGS, supports=GRPC_ONLY) for sid in IDS if sid not in (UNIMPLEMENTED, STREAM_RESET)),
    run(STREAM_RESET, *ARGS, "--stream", supports=GRPC_ONLY),
    # A client without gRPC: JSON-RPC where the card has it, no call where it has nothing else (stream-reset then
    # judges nothing: see test_grpc_was_really_used).
    *(run(sid) for sid in IDS if sid != STREAM_RESET),
]
MISSES = [
    Miss(defect("grpc/conformant", "no-header", *ARGS, supports=GRPC_ONLY), "VERSION-HEADER"),
    Miss(defect("grpc/conformant", "wrong-header", *ARGS, supports=GRPC_ONLY), "VERSION-MATCHES-METHOD"),
    Miss(defect("grpc/conformant", "wrong-url", *ARGS, supports=GRPC_ONLY), "URL-FROM-CARD"),
    Miss(
        defect("grpc/grpc-first-jsonrpc-fallback", "ignore-interfaces", *BOTH, supports=GRPC_AND_JSONRPC),
        "INTERFACE-SELECTION",
        says="GRPC",
    ),
    Miss(
        defect("grpc/unimplemented-despite-card", "no-fallback", *BOTH, supports=GRPC_AND_JSONRPC),
        "FALLBACK",
        Outcome.NON_STRICT,
    ),
    Miss(defect("grpc/unimplemented-despite-card", "retry-loop", *BOTH, supports=GRPC_AND_JSONRPC), "NO-RETRY-LOOP"),
    Miss(defect("grpc/deadline-exceeded", "no-timeout", *ARGS, supports=GRPC_ONLY), "GIVES-UP", Outcome.NON_STRICT),
    Miss(defect("grpc/conformant", "get-task-loop", *ARGS, supports=GRPC_ONLY), "POLL-BOUNDED", Outcome.NON_STRICT),
    Miss(
        defect("grpc/grpc-first-jsonrpc-fallback", "stream-without-capability", *BOTH, supports=GRPC_AND_JSONRPC),
        "CAPABILITIES-RESPECTED",
        Outcome.NON_STRICT,
        says="SendStreamingMessage",
    ),
    Miss(defect("grpc/status-details-missing", "assume-success", *ARGS, supports=GRPC_ONLY), "RESULT-MATCHES"),
    Miss(defect("grpc/trailers-only", "assume-success", *ARGS, supports=GRPC_ONLY), "RESULT-MATCHES"),
    Miss(defect("grpc/stream-reset", "wrong-result", *ARGS, "--stream", supports=GRPC_ONLY), "RESULT-MATCHES"),
]


@pytest.fixture(scope="module")
def results(catalogue: Catalogue) -> dict[Run, ScenarioResult]:
    return run_cases(catalogue, [*CORRECT, *(m.run for m in MISSES), run(STREAM_RESET)], timeout=30.0)


@pytest.mark.parametrize("case", CORRECT, ids=str)
def test_a_correct_client_passes(case: Run, results: dict[Run, ScenarioResult]) -> None:
    assert_passes(results[case])


@pytest.mark.parametrize("miss", MISSES, ids=str)
def test_the_defect_fails_the_named_check(miss: Miss, results: dict[Run, ScenarioResult]) -> None:
    assert_misses(miss, results[miss.run])


def test_grpc_was_really_used(results: dict[Run, ScenarioResult]) -> None:
    """The gRPC client's traffic is gRPC, the JSON-RPC-only client's is not, and fallback went from one to the other."""
    used = results[run("grpc/conformant", *ARGS, supports=GRPC_ONLY)]
    assert {e["kind"] for e in used.journal} == {"card", "grpc"}
    fell = results[run("grpc/unimplemented-despite-card", *BOTH, "--stream", supports=GRPC_AND_JSONRPC)]
    sends = [e["endpoint"]["binding"] for e in fell.journal if e.get("operation") == "SendMessage"]
    assert sends == ["GRPC", "JSONRPC"]
    without = results[run("grpc/grpc-first-jsonrpc-fallback")]
    assert "grpc" not in {e["kind"] for e in without.journal}
    unjudged = results[run(STREAM_RESET)]
    assert unjudged.outcome is Outcome.UNIMPLEMENTED and {e["kind"] for e in unjudged.journal} == {"card"}


def test_every_grpc_scenario_is_proven(catalogue: Catalogue) -> None:
    assert set(IDS) == group_ids(catalogue, "grpc")
    for sid in IDS:
        scenario = catalogue.get(sid)
        assert scenario.checks or scenario.expect.stated, sid
        assert scenario.spec or scenario.observed, sid


# ------------------------------------------------------------------------------------------------ credentials


def test_grpc_metadata_credentials_are_judged_as_http_headers() -> None:
    """§10.2: service parameters travel as metadata. A call without credentials ends UNAUTHENTICATED with the
    challenge as the `www-authenticate` trailer; an API key in the declared header travels as metadata of that
    name and is accepted; anywhere else (Authorization) it is misplaced, as over HTTP; the journal keeps what
    travelled (never the key)."""
    import httpx

    from a2a_lab.contract.loader import load_file
    from a2a_lab.server.app import ScenarioApp
    from a2a_lab.server.hosting import BackgroundServer

    key = "a2a-lab-test-key-grpc"
    path = Path(__file__).resolve().parents[1] / "scenario_files" / "keyed-grpc.yaml"
    app = ScenarioApp(load_file(path))
    with BackgroundServer(app) as server:
        served_card = httpx.get(f"{server.url}/.well-known/agent-card.json").json()
        channel = grpc.insecure_channel(served_card["supportedInterfaces"][0]["url"])
        call = channel.unary_unary(grpcwire.method_path(Operation.SEND_MESSAGE))
        request = protobuf.encode_request(Operation.SEND_MESSAGE, MESSAGE)

        anonymous = refused(lambda: call(request, metadata=V1, timeout=5))
        assert anonymous.code() is grpc.StatusCode.UNAUTHENTICATED
        trailers = dict(anonymous.trailing_metadata() or ())
        assert trailers["www-authenticate"] == 'ApiKey realm="a2a-lab", in="header", name="X-API-Key"'
        info = details(anonymous)
        assert info is not None and info["details"][0]["reason"] == "UNAUTHENTICATED"

        misplaced = refused(lambda: call(request, metadata=[*V1, ("authorization", f"Bearer {key}")], timeout=5))
        assert misplaced.code() is grpc.StatusCode.UNAUTHENTICATED

        answer = protobuf.decode_response(
            Operation.SEND_MESSAGE, call(request, metadata=[*V1, ("x-api-key", key)], timeout=5)
        )
        assert answer["task"]["status"]["state"] == "TASK_STATE_COMPLETED"
        channel.close()
        entries = [e for e in app.state.journal.snapshot()["entries"] if e["kind"] == "grpc"]
    assert [e["credentials"] for e in entries] == ["absent", "invalid", "valid"]
    assert entries[1]["auth"]["schemes"] == {"key": "misplaced"}
    assert entries[1]["auth"]["carried"] == ["apiKey:header"] and entries[2]["auth"]["carried"] == ["apiKey:header"]
    assert key not in str(entries)


def test_a_grpc_server_that_cannot_start_costs_no_http_answer(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Out of descriptors (a flood), the scenario's gRPC server cannot start: the HTTP request that would have
    started it is still answered, the card names no address, the failure is logged, and the next request retries."""
    import httpx

    from a2a_lab.contract.catalogue import builtin_root
    from a2a_lab.contract.loader import load_file
    from a2a_lab.contract.placeholders import NO_GRPC_ADDRESS
    from a2a_lab.server.app import ScenarioApp
    from a2a_lab.server.grpc_host import GrpcHost
    from a2a_lab.server.hosting import BackgroundServer

    real_start, failures = GrpcHost.start, [OSError(24, "Too many open files")]

    async def start(self: GrpcHost, host: str) -> str:
        if failures:
            raise failures.pop()
        return await real_start(self, host)

    monkeypatch.setattr(GrpcHost, "start", start)
    app = ScenarioApp(load_file(builtin_root() / "grpc" / "conformant.yaml"))
    with BackgroundServer(app) as server, caplog.at_level("WARNING", logger="a2a_lab.server"):
        first = httpx.get(f"{server.url}/.well-known/agent-card.json")
        second = httpx.get(f"{server.url}/.well-known/agent-card.json").json()
    assert first.status_code == 200
    assert first.json()["supportedInterfaces"][0]["url"] == NO_GRPC_ADDRESS
    assert "gRPC server did not start" in caplog.text and "Too many open files" in caplog.text
    assert second["supportedInterfaces"][0]["url"] != NO_GRPC_ADDRESS
