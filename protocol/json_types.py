"""JSON values, and the canonical A2A 1.0 objects (their ProtoJSON form, spec §4.1-4.4), as types.

a2a-lab keeps every object in its 1.0 ProtoJSON form; these are the types of that form where it crosses modules.
They are TypedDicts, plain dicts at runtime: nothing here checks or converts a value (shapes.py and cards.py do
that, reporting problems with field paths). Optional members are absent, never None (§5.7).

Untrusted input (a body as decoded, before it is checked) is `object`: a reader narrows it with isinstance.
"""

from __future__ import annotations

from typing import Required, TypeAlias, TypedDict

#: Any JSON value as decoded (RFC 8259): objects are dicts with string keys.
JSONValue: TypeAlias = "dict[str, JSONValue] | list[JSONValue] | str | int | float | bool | None"
#: A JSON object.
JSONObject: TypeAlias = "dict[str, JSONValue]"


class Part(TypedDict, total=False):
    """Exactly one of `text`, `raw` (base64), `url`, `data` (any JSON value), with optional siblings."""

    text: str
    raw: str
    url: str
    data: JSONValue
    filename: str
    mediaType: str
    metadata: JSONObject


class Message(TypedDict, total=False):
    messageId: Required[str]
    #: `ROLE_USER` or `ROLE_AGENT` (states.Role).
    role: Required[str]
    parts: Required[list[Part]]
    contextId: str
    taskId: str
    metadata: JSONObject
    extensions: list[str]
    referenceTaskIds: list[str]


class TaskStatus(TypedDict, total=False):
    #: A TASK_STATE_* spelling (states.TaskState).
    state: Required[str]
    message: Message
    #: ISO 8601 UTC, `Z`.
    timestamp: str


class Artifact(TypedDict, total=False):
    artifactId: Required[str]
    name: str
    description: str
    parts: Required[list[Part]]
    metadata: JSONObject
    extensions: list[str]


class Task(TypedDict, total=False):
    id: Required[str]
    contextId: str
    status: Required[TaskStatus]
    artifacts: list[Artifact]
    history: list[Message]
    metadata: JSONObject


class TaskStatusUpdateEvent(TypedDict, total=False):
    taskId: Required[str]
    contextId: Required[str]
    status: Required[TaskStatus]
    metadata: JSONObject


class TaskArtifactUpdateEvent(TypedDict, total=False):
    taskId: Required[str]
    contextId: Required[str]
    artifact: Required[Artifact]
    append: bool
    lastChunk: bool
    metadata: JSONObject


class StreamResponse(TypedDict, total=False):
    """Exactly one member: SSE events, gRPC stream messages and push payloads."""

    task: Task
    message: Message
    statusUpdate: TaskStatusUpdateEvent
    artifactUpdate: TaskArtifactUpdateEvent


class SendMessageResponse(TypedDict, total=False):
    """Exactly one member."""

    task: Task
    message: Message


class AuthenticationInfo(TypedDict, total=False):
    scheme: Required[str]
    credentials: str


class TaskPushNotificationConfig(TypedDict, total=False):
    """1.0's flat push config (0.3 nests it under `pushNotificationConfig`)."""

    id: str
    taskId: str
    url: Required[str]
    token: str
    authentication: AuthenticationInfo
    tenant: str


class AgentInterface(TypedDict, total=False):
    url: Required[str]
    #: `JSONRPC`, `GRPC`, `HTTP+JSON` (bindings.Binding) or a custom binding's URI.
    protocolBinding: Required[str]
    #: `Major.Minor` (versions.Version).
    protocolVersion: Required[str]
    tenant: str


class AgentProvider(TypedDict):
    url: str
    organization: str


class AgentCapabilities(TypedDict, total=False):
    streaming: bool
    pushNotifications: bool
    extensions: list[JSONObject]
    extendedAgentCard: bool


class AgentSkill(TypedDict, total=False):
    id: Required[str]
    name: Required[str]
    description: Required[str]
    tags: Required[list[str]]
    examples: list[str]
    inputModes: list[str]
    outputModes: list[str]
    securityRequirements: list[JSONObject]


class AgentCardSignature(TypedDict, total=False):
    protected: Required[str]
    signature: Required[str]
    header: JSONObject


class AgentCard(TypedDict, total=False):
    name: Required[str]
    description: Required[str]
    supportedInterfaces: Required[list[AgentInterface]]
    provider: AgentProvider
    version: Required[str]
    documentationUrl: str
    capabilities: Required[AgentCapabilities]
    securitySchemes: dict[str, JSONObject]
    securityRequirements: list[JSONObject]
    defaultInputModes: Required[list[str]]
    defaultOutputModes: Required[list[str]]
    skills: Required[list[AgentSkill]]
    signatures: list[AgentCardSignature]
    iconUrl: str
