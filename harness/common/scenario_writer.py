"""Writing a scenario file that a2a-lab made (`record` from a live server, `record --from-har`, `proxy --out`):
YAML whose multi-line text reads as blocks, refused before it is written when it could not be a scenario file (too
many values, too much text) or does not load back as a valid scenario, then written atomically.

Below both the recorder (harness/server_judging/record/) and the proxy (harness/proxy/), which share it.
"""

from __future__ import annotations

import os
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from a2a_lab.contract import userfile, yamlfile
from a2a_lab.contract.loader import ScenarioError, parse
from a2a_lab.protocol.exceptions import LabError


class RecordError(LabError):
    """The server could not be recorded. `usage`: the input itself is unusable (no card, not a URL): exit 2."""

    def __init__(self, message: str, usage: bool = False) -> None:
        super().__init__(message)
        self.usage = usage


def tool_version() -> str:
    try:
        return f"a2a-lab {metadata.version('a2a-lab')}"
    except metadata.PackageNotFoundError:
        return "a2a-lab (unknown version)"


class _Dumper(yaml.SafeDumper):
    """Multi-line text (the description, pretty-printed answers) as literal blocks.

    PyYAML quotes what a block cannot hold.
    """


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


_Dumper.add_representer(str, _str)


def _measure(value: Any) -> tuple[int, int]:
    """What a YAML file of `value` holds, without writing it: its values as the loader counts them (every mapping,
    list, key and scalar) and the characters of its keys and text, which its bytes are at least. Linear."""
    values = chars = 0
    stack = [value]
    while stack:
        item = stack.pop()
        values += 1
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            chars += len(item)
    return values, chars


def _within(doc: dict[str, Any]) -> None:
    """Refuse, before it is written, a recording that cannot be a scenario file: more values than the loader reads,
    or more text than the file may be. Says the part that weighs most."""
    kind = userfile.SCENARIO
    values, chars = _measure(doc)
    if values <= kind.max_values and chars <= kind.max_bytes:
        return
    parts = {
        f"behaviour.{op}[{i}]": rule for op, rules in doc.get("behaviour", {}).items() for i, rule in enumerate(rules)
    }
    parts.update({key: part for key, part in doc.items() if key != "behaviour"})
    heaviest = max(parts, key=lambda name: _measure(parts[name]))
    most_values, most_chars = _measure(parts[heaviest])
    said = (
        f"{values} values, more than the {kind.max_values} a scenario file may hold"
        if values > kind.max_values
        else f"at least {chars} bytes, more than a scenario file may be ({kind.max_bytes})"
    )
    raise RecordError(
        f"the recording would be {said}; the largest part is {heaviest} ({most_values} values, {most_chars} "
        "characters): record fewer or shorter exchanges"
    )


def render(doc: dict[str, Any], path: Path) -> str:
    """The YAML text, checked before it is written (`_within`), then that it loads back to the same data and as a
    valid scenario."""
    _within(doc)
    text: str = yaml.dump(
        doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1 << 20, default_flow_style=False
    )
    size = len(text.encode())
    if size > userfile.SCENARIO.max_bytes:
        raise RecordError(
            f"the recording is {size} bytes, more than a scenario file may be ({userfile.SCENARIO.max_bytes})"
        )
    try:
        data = yamlfile.loads(text)  # as the loader reads it back
    except userfile.Refused as exc:
        raise RecordError(f"the recording is more than a scenario file may hold: {exc}") from None
    if data != doc:
        raise RecordError("the recording does not survive a YAML round trip; please report it")
    try:
        parse(data, path.stem, str(path))
    except ScenarioError as exc:
        raise RecordError(f"the recording is not a valid scenario: {exc}") from None
    return text


#: The first line of a recorded file (`{path}`: where it is written).
HEADER = "# Recorded by a2a-lab record; replay with: a2a-lab serve {path}"


def write(path: Path, text: str, force: bool, header: str = HEADER) -> None:
    """Atomically: a temporary file in the same folder, renamed over the target.

    Refused if it exists, unless forced.
    """
    if path.exists() and not force:
        raise RecordError(f"{path} exists; give --force to overwrite it", usage=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(header.format(path=path) + "\n")
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
