"""Harness test fixtures: the fake client, small scenario files of our own, and running a client through the runner."""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from typing import Any

import pytest
import yaml

from a2a_lab.contract.catalogue import Catalogue
from a2a_lab.contract.loader import load_file
from a2a_lab.contract.scenario import Scenario
from a2a_lab.harness.client_judging.runner import RunOptions, run_all
from a2a_lab.harness.common.model import ScenarioResult
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.cards import Support
from a2a_lab.protocol.versions import Version
from tests.harness.client_launch import fake_command

JSONRPC_BOTH: tuple[Support, ...] = ((Binding.JSONRPC, Version.V1_0), (Binding.JSONRPC, Version.V0_3))

JSONRPC_1_0 = {"url": "{base_url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
HTTP_JSON_1_0 = {"url": "{base_url}/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}


def _scenario(
    title: str, spec: str, interfaces: list[dict[str, Any]], streaming: bool = False, **rest: Any
) -> dict[str, Any]:
    card = {
        "name": "lab agent",
        "description": "a test scenario",
        "version": "1.0.0",
        "supportedInterfaces": interfaces,
        "capabilities": {"streaming": streaming},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "a", "name": "a", "description": "a", "tags": ["a"]}],
    }
    return {"title": title, "description": title + ".", "spec": spec, "card": {"object": card}, **rest}


#: Scenarios the catalogue does not have, each written for one or two checks (written to YAML files, loaded as users'
#: are).
SCENARIOS: dict[str, dict[str, Any]] = {
    "tenant": _scenario(
        "Tenant acme on every interface",
        "A2A 1.0 §8.3.2 rule 4",
        [{**JSONRPC_1_0, "tenant": "acme"}, {**HTTP_JSON_1_0, "tenant": "acme"}],
        task={"steps": ["COMPLETED"]},
    ),
    "tenantless": _scenario(
        "No tenant anywhere", "A2A 1.0 §8.3.2 rule 4", [JSONRPC_1_0, HTTP_JSON_1_0], task={"steps": ["COMPLETED"]}
    ),
    "fallback": _scenario(
        "JSON-RPC answers method not found, HTTP+JSON works",
        "A2A 1.0 §5.2",
        [JSONRPC_1_0, HTTP_JSON_1_0],
        task={"steps": ["COMPLETED"]},
        behaviour={"SendMessage": [{"when": {"binding": "JSONRPC"}, "reply": {"error": "MethodNotFound"}}]},
    ),
    "interrupted": _scenario(
        "The task stops to ask a question",
        "A2A 1.0 §3.2.2",
        [JSONRPC_1_0],
        task={"steps": ["WORKING", {"state": "INPUT_REQUIRED", "message": "Which city?"}]},
    ),
    "data-message": _scenario(
        "SendMessage answers a message without text",
        "A2A 1.0 §3.1.1",
        [JSONRPC_1_0],
        behaviour={"SendMessage": [{"reply": {"message": [{"data": {"ok": True}}]}}]},
    ),
    "transient-error": _scenario(
        "The first send fails with -32603, the next works",
        "A2A 1.0 §4.1.1",
        [JSONRPC_1_0],
        task={"steps": ["COMPLETED"]},
        behaviour={"SendMessage": [{"when": {"call": 1}, "reply": {"error": "InternalError"}}]},
    ),
    "survives": _scenario(
        "A task that completes, served as a2a-lab fuzz serves a case",
        "A2A 1.0 §3.1.1",
        [JSONRPC_1_0],
        task={"steps": ["COMPLETED"]},
        expect={"survives": True},
    ),
    "method-path": _scenario(
        "The HTTP+JSON interface's url names a method path",
        "A2A 1.0 §8.3.2 rule 3, §11.3",
        [{**HTTP_JSON_1_0, "url": "{base_url}/rest/message:send"}],
        tenant_routes="none",
        endpoints=[{"path": "/rest", "binding": "HTTP+JSON", "versions": ["1.0"]}],
        expect={"result": "error"},
    ),
    "method-path-served": _scenario(
        "The HTTP+JSON interface's url names a method path, and the server's tenant routes answer the doubled path",
        "A2A 1.0 §8.3.2 rules 3-4, §11.3",
        [{**HTTP_JSON_1_0, "url": "{base_url}/rest/message:send"}],
        endpoints=[{"path": "/rest", "binding": "HTTP+JSON", "versions": ["1.0"]}],
        task={"steps": ["COMPLETED"]},
        expect={"result": "task", "state": "COMPLETED"},
    ),
    "unknown-event": _scenario(
        "A paced stream carries an event of a kind A2A does not define; GetTask cannot help",
        "A2A 1.0 §5.7, §3.1.2; a2a-go#435",
        [JSONRPC_1_0],
        streaming=True,
        behaviour={
            "SendStreamingMessage": [
                {
                    "reply": {
                        "stream": {"interval_ms": 300, "events": [{"at": 2, "insert": {"json": {"futureEvent": {}}}}]}
                    }
                }
            ],
            "GetTask": [{"reply": {"error": "TaskNotFound"}}],
        },
        expect={"result": "task", "state": "COMPLETED"},
    ),
    "wrapped-get-task": _scenario(
        "GetTask answers the Task wrapped one level too deep, {task: ...} (an edit of the generated answer)",
        "A2A 1.0 §3.1.3",
        [JSONRPC_1_0],
        task={"steps": ["SUBMITTED", "COMPLETED"], "returns": "first", "advance": "get_task"},
        behaviour={"GetTask": [{"reply": {"edit": [{"at": "result", "wrap": "task"}]}}]},
        expect={"result": ["task", "error"], "state": "COMPLETED"},
    ),
    "working-forever": _scenario(
        "SendMessage answers WORKING and GetTask never moves it",
        "A2A 1.0 §3.1.3",
        [JSONRPC_1_0],
        task={"steps": ["WORKING", "COMPLETED"], "returns": "first", "advance": "never"},
    ),
}


@pytest.fixture(scope="session")
def lab_scenarios(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Scenario]:
    folder = tmp_path_factory.mktemp("lab-scenarios")
    out = {}
    for name, data in SCENARIOS.items():
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")
        out[name] = load_file(path, f"lab/{name}")
    return out


@pytest.fixture(scope="session")
def scenario(catalogue: Catalogue, lab_scenarios: dict[str, Scenario]) -> Callable[[str], Scenario]:
    """A catalogue scenario by id, or one of SCENARIOS by name."""
    return lambda ref: lab_scenarios[ref] if ref in lab_scenarios else catalogue.get(ref)


RunClient = Callable[..., list[ScenarioResult]]


@pytest.fixture(scope="session")
def run_client(scenario: Callable[[str], Scenario]) -> RunClient:
    def run(
        refs: str | Iterable[str],
        *args: str,
        supports: Iterable[Support] | None = JSONRPC_BOTH,
        timeout: float = 10.0,
        jobs: int = 1,
        seed: int = 0,
        client: str | None = None,
    ) -> list[ScenarioResult]:
        refs = [refs] if isinstance(refs, str) else list(refs)
        opts = RunOptions(
            client=client or fake_command(*args),
            seed=seed,
            timeout=timeout,
            jobs=jobs,
            supports=list(supports) if supports is not None else None,
        )
        # The tests' own shorter variant of a scenario whose subject is a wait (faults/never-answers): its own time is
        # the least `--timeout` gives it.
        results, _ = run_all([replace(s, timeout=min(s.timeout, timeout)) for s in map(scenario, refs)], opts)
        return results

    return run


def alive(pid: int) -> bool:
    """os.kill(pid, 0), except that a zombie counts as gone (an orphan may wait a while for init to reap it)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.fixture(scope="session")
def is_alive() -> Callable[[int], bool]:
    return alive


@pytest.fixture(scope="session")
def fake() -> Callable[..., str]:
    return fake_command


def sdk_echo_executor() -> Any:
    """An a2a-sdk 1.3.0 AgentExecutor: SUBMITTED -> WORKING -> one `echo: <text>` artifact -> COMPLETED (the one the
    persona fidelity tests serve, tests/personas/sdk13.py; imported here only when a test needs the SDK)."""
    from tests.personas.sdk13 import EchoExecutor

    return EchoExecutor()


def sdk_card(interfaces: list[tuple[str, str, str]]) -> Any:
    """An a2a-sdk AgentCard of the echo agent with these (url, binding, version) interfaces, streaming on."""
    from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill

    return AgentCard(
        name="a2a-sdk echo",
        description="a2a-sdk 1.3.0 reference echo agent",
        version="0.0.1",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding=binding, protocol_version=version)
            for url, binding, version in interfaces
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="echo", name="echo", description="echoes text", tags=["echo"])],
    )


@pytest.fixture
def a2a_sdk_server() -> Iterator[str]:
    """The official a2a-sdk 1.3.0 server (nobody here wrote it) with an echo executor, under uvicorn on loopback port 0:
    JSON-RPC 1.0 at /, HTTP+JSON 1.0 at /rest, and the SDK's 0.3 compatibility layer on JSON-RPC (a 0.3 interface at /).
    Yields its origin."""
    from a2a.server.request_handlers import DefaultRequestHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes, create_rest_routes
    from a2a.server.tasks import InMemoryTaskStore
    from starlette.applications import Starlette

    from a2a_lab.server.hosting import BackgroundServer

    app = Starlette()
    server = BackgroundServer(app)  # binds port 0 now, so the card can name the real URL
    card = sdk_card(
        [
            (f"{server.url}/", "JSONRPC", "1.0"),
            (f"{server.url}/rest", "HTTP+JSON", "1.0"),
            (f"{server.url}/", "JSONRPC", "0.3"),
        ]
    )
    handler = DefaultRequestHandler(sdk_echo_executor(), InMemoryTaskStore(), card)
    app.router.routes.extend(
        [
            *create_agent_card_routes(card),
            *create_jsonrpc_routes(handler, rpc_url="/", enable_v0_3_compat=True),
            *create_rest_routes(handler, path_prefix="/rest"),
        ]
    )
    with server:
        yield server.url


@pytest.fixture
def a2a_sdk_grpc_server() -> Iterator[str]:
    """The official a2a-sdk 1.3.0 gRPC server: its GrpcHandler on a grpc.aio server (its own event loop in a thread,
    loopback port 0), as the SDK documents it, with the echo executor; the card (gRPC `host:port` first, JSON-RPC 1.0
    second) served by the SDK's card routes under uvicorn. Yields the HTTP origin."""
    import grpc
    from a2a.server.request_handlers import DefaultRequestHandler, GrpcHandler
    from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
    from a2a.server.tasks import InMemoryTaskStore
    from a2a.types import a2a_pb2_grpc
    from starlette.applications import Starlette

    from a2a_lab.server.hosting import BackgroundServer

    app = Starlette()
    http = BackgroundServer(app)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="a2a-sdk-grpc", daemon=True)
    thread.start()

    async def start() -> Any:
        server = grpc.aio.server()
        port = server.add_insecure_port("127.0.0.1:0")
        card = sdk_card([(f"127.0.0.1:{port}", "GRPC", "1.0"), (f"{http.url}/", "JSONRPC", "1.0")])
        handler = DefaultRequestHandler(sdk_echo_executor(), InMemoryTaskStore(), card)
        a2a_pb2_grpc.add_A2AServiceServicer_to_server(GrpcHandler(handler), server)
        await server.start()
        # The JSON-RPC routes run on uvicorn's loop: a handler (and task store) of their own, never shared across loops.
        http_handler = DefaultRequestHandler(sdk_echo_executor(), InMemoryTaskStore(), card)
        app.router.routes.extend([*create_agent_card_routes(card), *create_jsonrpc_routes(http_handler, rpc_url="/")])
        return server

    grpc_server = asyncio.run_coroutine_threadsafe(start(), loop).result(timeout=30)
    try:
        with http:
            yield http.url
    finally:
        asyncio.run_coroutine_threadsafe(grpc_server.stop(0), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        loop.close()
