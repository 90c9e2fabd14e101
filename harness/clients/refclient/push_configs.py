"""Managing the webhook's push config with the config methods (A2A 1.0 §3.1.7-§3.1.10; 0.3 §7.5-§7.8), when asked
(A2A_LAB_ACTION push_configs): create it for the task, find it with List, read it back with Get by the id the agent
gave, and, once the task has stopped, delete it. Each request in the spelling of the interface's version (the
protocol package builds it: 1.0 `{taskId, id}`, 0.3 `{id, pushNotificationConfigId}`).

A config the agent refuses to create is a warning (the task is then followed up with GetTask); what List or Get
answer that does not match the config is a warning too.
"""

from __future__ import annotations

from a2a_lab.harness.clients.refclient.failures import ClientFailure
from a2a_lab.harness.clients.refclient.transport import A2ATransport
from a2a_lab.harness.clients.refclient.webhook import WebhookReceiver
from a2a_lab.protocol import shapes
from a2a_lab.protocol.json_types import TaskPushNotificationConfig
from a2a_lab.protocol.operations import Operation


def _config(body: object, transport: A2ATransport, what: str) -> TaskPushNotificationConfig | None:
    config, problems = shapes.parse_push_config(body, transport.form, what)
    return config if config is not None and not any(not p.foreign for p in problems) else None


def _listed(body: object, transport: A2ATransport) -> list[TaskPushNotificationConfig]:
    """The configs a List answer holds: 1.0 `{configs: [...]}`, 0.3 a bare array."""
    items = body.get("configs") if isinstance(body, dict) else body
    found = [_config(item, transport, "config") for item in items] if isinstance(items, list) else []
    return [c for c in found if c is not None]


def register(transport: A2ATransport, receiver: WebhookReceiver, task_id: str, warnings: list[str]) -> str | None:
    """Create the webhook's config for the task, then List and Get it; the id the agent gave it (None: not made)."""
    try:
        body = transport.call(Operation.CREATE_PUSH_CONFIG, {"taskId": task_id, **receiver.config()}, warnings)
    except ClientFailure as failure:
        warnings.append(f"CreateTaskPushNotificationConfig for task {task_id} failed ({failure.message})")
        return None
    created = _config(body, transport, "CreateTaskPushNotificationConfig result")
    config_id = created.get("id") if created is not None else None
    if not isinstance(config_id, str) or not config_id:
        warnings.append("CreateTaskPushNotificationConfig answered no config id: it cannot be read or deleted")
        return None
    try:
        listed = _listed(transport.call(Operation.LIST_PUSH_CONFIGS, {"taskId": task_id}, warnings), transport)
        if not any(c.get("id") == config_id for c in listed):
            warnings.append(f"ListTaskPushNotificationConfigs for task {task_id} does not list config {config_id}")
        got = _config(
            transport.call(Operation.GET_PUSH_CONFIG, {"taskId": task_id, "id": config_id}, warnings),
            transport,
            "GetTaskPushNotificationConfig result",
        )
        if got is None or got.get("url") != receiver.url:
            warnings.append(f"GetTaskPushNotificationConfig {config_id} did not answer this webhook's config")
    except ClientFailure as failure:
        warnings.append(f"reading push config {config_id} back failed ({failure.message})")
    return config_id


def unregister(transport: A2ATransport, task_id: str, config_id: str, warnings: list[str]) -> None:
    """Delete the config (the task has stopped: nothing more is due)."""
    try:
        transport.call(Operation.DELETE_PUSH_CONFIG, {"taskId": task_id, "id": config_id}, warnings)
    except ClientFailure as failure:
        warnings.append(f"DeleteTaskPushNotificationConfig {config_id} failed ({failure.message})")
