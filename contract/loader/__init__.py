"""Loading scenario files: YAML in, a typed `Scenario` out, or a `ScenarioError` naming the file, the field and a fix.

Everything a file says is validated and converted here, once: error specs become `A2AError`s, named choices become
the model's enums, shorthands are expanded. The server only ever sees the typed model (`scenario`).

The package, by job: `reader` (the `Reader` every section reads with, and `ScenarioError`), `tables` (the format as
data: `FIELDS` and `CHOICES`, every option each mapping accepts and every named value, and the limits; they drive the
validation, and docs/reference/scenario-format.md documents exactly them, a test keeps the two equal), one module
per section of a scenario file (`card`, `task`, `stream`, `reply`, `changes`, `behaviour`, `client`, `limits`,
`styling`, `error_texts`), `family` (a family file's matrix, expanded into members), `document` (a whole file's
data into scenarios) and `files` (reading from disk, errors located at their line).
"""

from __future__ import annotations

from .document import options_used, parse, parse_all, parse_with
from .files import load_file, load_scenarios
from .reader import Reader, ScenarioError
from .tables import CHOICES, FIELDS, LIMITS_MOST, MAX_ANSWER_BYTES, MAX_PAD_TO, MIB

__all__ = [
    "CHOICES",
    "FIELDS",
    "LIMITS_MOST",
    "MAX_ANSWER_BYTES",
    "MAX_PAD_TO",
    "MIB",
    "Reader",
    "ScenarioError",
    "load_file",
    "load_scenarios",
    "options_used",
    "parse",
    "parse_all",
    "parse_with",
]
