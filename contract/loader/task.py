"""The `task:` section: the task a scenario's server runs (its steps, artifacts, status message, how it advances)."""

from __future__ import annotations

from typing import Any

from ..scenario import (
    ArtifactSpec,
    HistoryLength,
    Step,
    TaskScript,
)
from ..suggest import nearest
from .reader import Reader


def read_parts(r: Reader, value: Any, path: str) -> tuple[dict[str, Any], ...]:
    """Parts in canonical form from either `text: ...` shorthand or a list of 1.0 parts."""
    if isinstance(value, str):
        return ({"text": value},)
    if not isinstance(value, list) or not value:
        raise r.fail(
            path,
            "expected text or a non-empty list of parts",
            "e.g. [{text: hi}, {data: {ok: true}}, {raw: aGk=, mediaType: text/plain}, {url: https://x/y.pdf}]",
        )
    out = []
    for i, part in enumerate(value):
        p = r.mapping(part, f"{path}[{i}]", "part")
        kinds = [k for k in ("text", "raw", "url", "data") if k in p]
        if len(kinds) != 1:
            raise r.fail(f"{path}[{i}]", "a part needs exactly one of text, raw, url, data")
        out.append(dict(p))
    return tuple(out)


def _artifacts(r: Reader, value: Any, path: str) -> tuple[ArtifactSpec, ...]:
    if not isinstance(value, list):
        raise r.fail(path, "expected a list of artifacts", "e.g. [{name: result, parts: [{text: done}]}]")
    out = []
    for i, item in enumerate(value):
        a = r.mapping(item, f"{path}[{i}]", "artifact")
        if ("parts" in a) == ("text" in a):
            raise r.fail(f"{path}[{i}]", "an artifact needs `parts` or `text` (one of them)")
        art: dict[str, Any] = {"artifactId": a.get("artifactId", f"artifact-{i + 1}")}
        for key in ("name", "description", "metadata"):
            if key in a:
                art[key] = a[key]
        art["parts"] = list(read_parts(r, a.get("parts", a.get("text")), f"{path}[{i}].parts"))
        append, last = (
            None if a.get(k) is None else r.boolean(a[k], f"{path}[{i}].{k}") for k in ("append", "lastChunk")
        )
        out.append(ArtifactSpec(art, r.boolean(a.get("chunked", False), f"{path}[{i}].chunked"), append, last))
    return tuple(out)


def _status_message(r: Reader, value: Any, path: str) -> tuple[str | None, tuple[dict[str, Any], ...], bool]:
    """A step's status message: text (one text part), or `{parts: [...]}` / a list of parts (data only, several);
    `{parts: []}` is a message with an empty parts list (a server that sends one, adk-python#3769). The third
    value says the message is that empty one."""
    if value is None or isinstance(value, str):
        return (r.string(value, path) if value is not None else None), (), False
    parts = r.mapping(value, path, "reply.message").get("parts") if isinstance(value, dict) else value
    if isinstance(value, dict) and parts == []:
        return None, (), True
    return None, read_parts(r, parts, path), False


def _steps(r: Reader, value: Any, path: str) -> tuple[Step, ...]:
    if not isinstance(value, list) or not value:
        raise r.fail(path, "expected a non-empty list of states", "e.g. [SUBMITTED, WORKING, COMPLETED]")
    steps: list[Step] = []
    for i, item in enumerate(value):
        sp = f"{path}[{i}]"
        if isinstance(item, str):
            steps.append(Step(r.state(item, sp)))
            continue
        s = r.mapping(item, sp, "task.steps[]")
        text, parts, empty = _status_message(r, s.get("message"), f"{sp}.message")
        steps.append(
            Step(
                r.state(s.get("state"), f"{sp}.state"),
                text,
                _artifacts(r, s["artifacts"], f"{sp}.artifacts") if "artifacts" in s else (),
                parts,
                empty,
            )
        )
    for i, step in enumerate(steps[:-1]):
        if step.state.terminal:
            raise r.fail(
                f"{path}[{i}]",
                f"{step.state.short} is terminal, so no step may follow it",
                "a terminal task never changes (§8)",
            )
    return tuple(steps)


def _advance(r: Reader, value: Any, path: str, base: TaskScript) -> tuple[int, int | None, int]:
    """`never`, `get_task` or `{get_task: N, after_ms: T, follow_ms: F}`: (GetTask calls per step, 0 for never;
    ms per step; ms per GetTask while a subscriber or a webhook follows the task)."""
    if value == "never":
        return 0, None, base.follow_ms
    if value == "get_task":
        return 1, None, base.follow_ms
    if not isinstance(value, dict):
        near = nearest(str(value), ["get_task", "never"], cutoff=0.5)
        raise r.fail(
            path,
            f"unknown advance {value!r}",
            (f"did you mean {near!r}? " if near else "")
            + "one of get_task, never, or a mapping {get_task: N, after_ms: T, follow_ms: F}",
        )
    a = r.mapping(value, path, "task.advance")
    return (
        r.integer(a.get("get_task", 0), f"{path}.get_task"),
        r.integer(a["after_ms"], f"{path}.after_ms", 1) if "after_ms" in a else None,
        r.integer(a.get("follow_ms", base.follow_ms), f"{path}.follow_ms", 1),
    )


def read_task_script(r: Reader, value: Any, path: str, base: TaskScript) -> TaskScript:
    """A task script; what it leaves out comes from `base` (the scenario's task, or the default one)."""
    spec = r.mapping(value, path, "task")
    steps = _steps(r, spec["steps"], f"{path}.steps") if spec.get("steps") is not None else base.steps
    artifacts = _artifacts(r, spec["artifacts"], f"{path}.artifacts") if "artifacts" in spec else base.artifacts
    returns = (
        r.choice(
            spec["returns"],
            f"{path}.returns",
            "task.returns",
            "stop (honour blocking, §3.2.2) or first (answer with the first step)",
        )
        if "returns" in spec
        else base.returns
    )
    advance_on_get, advance_after, follow_ms = (
        _advance(r, spec["advance"], f"{path}.advance", base)
        if "advance" in spec
        else (base.advance_on_get, base.advance_after_ms, base.follow_ms)
    )
    history = r.boolean(spec.get("history", base.history), f"{path}.history")
    ignore_history_length = (
        r.choice(spec["history_length"], f"{path}.history_length", "task.history_length") is HistoryLength.IGNORE
        if "history_length" in spec
        else base.ignore_history_length
    )
    return TaskScript(
        steps,
        artifacts,
        returns,
        advance_on_get,
        advance_after,
        history,
        follow_ms=follow_ms,
        ignore_history_length=ignore_history_length,
    )
