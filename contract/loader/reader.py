"""The `Reader` every section reads with (typed values out, or a `ScenarioError` naming the field and a fix) and
`ScenarioError` itself."""

from __future__ import annotations

from typing import Any

from a2a_lab.protocol import bindings, errors, states, versions
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.exceptions import LabError
from a2a_lab.protocol.states import TaskState
from a2a_lab.protocol.versions import Version

from .. import http_values
from ..suggest import did_you_mean, one_of
from .tables import CHOICES, FIELDS, LARGEST


class ScenarioError(LabError, ValueError):
    """A scenario file that cannot be used: where, what, and how to fix it."""

    def __init__(self, source: str, field_path: str, problem: str, hint: str = "", where: str = "") -> None:
        self.source, self.field_path, self.problem, self.hint = source, field_path, problem, hint
        #: `line L, column C` of the value in the file, where it is known.
        self.where = where
        text = f"{source}{f', {where}' if where else ''}: {field_path or '(top level)'}: {problem}"
        super().__init__(text + (f"\n  hint: {hint}" if hint else ""))


class Reader:
    """Walks YAML data with a field path, raising ScenarioError with hints. Records the options and named values it
    met (`used`), so a test can tell which parts of the format a file exercises."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.used: set[tuple[str, str]] = set()

    def fail(self, path: str, problem: str, hint: str = "") -> ScenarioError:
        return ScenarioError(self.source, path, problem, hint)

    def mapping(self, value: Any, path: str, section: str | None = None) -> dict[str, Any]:
        """A mapping; with a section, only that section's options are allowed."""
        if not isinstance(value, dict):
            raise self.fail(path, f"expected a mapping, got {type(value).__name__}")
        if section is not None:
            allowed = FIELDS[section]
            for key in value:
                if key not in allowed:
                    raise self.fail(
                        f"{path}.{key}" if path else str(key),
                        "unknown field",
                        did_you_mean(str(key), sorted(allowed), f"allowed here: {', '.join(sorted(allowed))}"),
                    )
                self.used.add((section, key))
        return value

    def choice(self, value: Any, path: str, option: str, hint: str = "", what: str = "value") -> Any:
        """One of the names CHOICES lists for `option`, as its enum member."""
        kind = CHOICES[option]
        try:
            member = kind(value)
        except ValueError:
            raise self.fail(
                path, f"unknown {what} {value!r}", hint or one_of(str(value), [m.value for m in kind])
            ) from None
        self.used.add((option, member.value))
        return member

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected text, got {type(value).__name__}")
        return value

    def integer(self, value: Any, path: str, minimum: int = 0, most: int | None = None, why: str = "") -> int:
        """A whole number >= minimum; with `most`, a size option no greater than that (`why`: the hint)."""
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.fail(path, f"expected a whole number >= {minimum}, got {value!r}")
        if most is not None and value > most:
            raise self.fail(path, f"{value} is more than {most}, the most a2a-lab allows here", why)
        return value

    def status(self, value: Any, path: str, has_body: bool = False) -> int:
        """An HTTP status the server can answer with (contract/http_values.py: 200-599, no body on 204 or 304)."""
        problem = http_values.status_problem(value, has_body)
        if problem is not None:
            raise self.fail(path, problem.what, problem.hint)
        return int(value)

    def header_value(self, value: Any, path: str) -> str:
        """A header value the server can send: text without control characters (contract/http_values.py)."""
        text = self.string(value, path)
        problem = http_values.header_value_problem(text)
        if problem is not None:
            raise self.fail(path, problem.what, problem.hint)
        return text

    def headers(self, value: Any, path: str) -> tuple[tuple[str, str], ...]:
        """Extra response headers: each name a token, each value sendable (contract/http_values.py)."""
        pairs = []
        for name, text in self.mapping(value, path).items():
            problem = http_values.header_problem(name, text)
            if problem is not None:
                raise self.fail(f"{path}.{name}", problem.what, problem.hint)
            pairs.append((str(name), str(text)))
        return tuple(pairs)

    def number(self, value: Any, path: str) -> float:
        """A positive finite number (YAML's .inf and .nan, and integers beyond a float's range, are refused)."""
        if not isinstance(value, bool) and isinstance(value, (int, float)) and 0 < value < LARGEST:
            return float(value)
        raise self.fail(path, f"expected a positive number, got {value!r}")

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(path, f"expected true or false, got {value!r}")
        return value

    def strings(self, value: Any, path: str, what: str) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
            raise self.fail(path, f"expected a list of {what}")
        return tuple(value)

    def state(self, value: Any, path: str) -> TaskState:
        state = states.parse(value)
        if state is None or state is TaskState.UNSPECIFIED:
            raise self.fail(
                path,
                f"unknown task state {value!r}",
                one_of(str(value), [s.short for s in TaskState if s is not TaskState.UNSPECIFIED]),
            )
        return state

    def version(self, value: Any, path: str) -> Version:
        version = versions.to_known(str(value))
        if version is None:
            raise self.fail(path, f"unknown protocol version {value!r}", 'write "1.0" or "0.3" (quoted)')
        return version

    def binding(self, value: Any, path: str) -> Binding:
        text = self.string(value, path)
        binding = bindings.parse(text) or bindings.SHORT_NAMES.get(text.lower())
        if binding is None:
            raise self.fail(path, f"unknown binding {text!r}", one_of(text, [b.value for b in Binding]))
        return binding

    def error(self, value: Any, path: str, section: str) -> tuple[errors.A2AError, dict[str, Any]]:
        """An error answer: a name (`TaskNotFound`), a code (-32001), or `{code, message, ...}` (`section` says which
        other fields). The code and message are kept exactly as written; an unknown numeric code answers as an
        InternalError with that code. Returns the error and the mapping (for the section's other fields)."""
        if isinstance(value, (str, int)) and not isinstance(value, bool):
            value = {"code": value}
        spec = self.mapping(value, path, section)
        code = spec.get("code")
        message = self.string(spec["message"], f"{path}.message") if "message" in spec else None
        if isinstance(code, str):
            etype = errors.by_name(code)
            if etype is None:
                raise self.fail(
                    f"{path}.code",
                    f"unknown error {code!r}",
                    did_you_mean(code, errors.names(), "one of " + ", ".join(errors.names())),
                )
            return errors.A2AError(etype, message), spec
        if isinstance(code, int) and not isinstance(code, bool):
            etype = errors.by_code(code)
            override = None if etype else code
            return errors.A2AError(etype or errors.ErrorType.INTERNAL_ERROR, message, code_override=override), spec
        raise self.fail(f"{path}.code", "required: an error name (TaskNotFound) or a JSON-RPC code (-32601)")
