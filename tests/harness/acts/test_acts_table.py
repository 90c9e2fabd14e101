"""benchmarks/acts_table.py (issue 46 item 4): the measured ACTS table of docs/reference/conformance.md written from
runs, between its markers, with the ACTS commit; here on a small draft of the tests' own (the real draft is never
needed by a test)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from .test_acts import HEAD, NOT_FOUND, PARSE, suite

ROOT = Path(__file__).resolve().parents[3]


def table_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("acts_table", ROOT / "benchmarks" / "acts_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("acts_table", module)  # its dataclasses look their module up
    spec.loader.exec_module(sys.modules["acts_table"])
    return sys.modules["acts_table"]


def draft(tmp_path: Path) -> Path:
    folder = tmp_path / "acts"
    folder.mkdir()
    (folder / "core.acts.yaml").write_text(yaml.safe_dump(suite(NOT_FOUND)))
    (folder / "client-parsing.acts.yaml").write_text(yaml.safe_dump(suite(PARSE)))
    top = {**HEAD, "include": ["core.acts.yaml", "client-parsing.acts.yaml"]}
    (folder / "suite.acts.yaml").write_text(yaml.safe_dump(top))
    return folder


def test_the_table_is_written_between_the_markers_from_runs(tmp_path: Path) -> None:
    acts_table = table_module()
    doc = tmp_path / "conformance.md"
    doc.write_text(f"# before\n\n{acts_table.BEGIN}\nstale hand-typed 99 / 99\n{acts_table.END}\n\n# after\n")
    assert acts_table.main([str(draft(tmp_path)), "--commit", "0123abcd", "--doc", str(doc)]) == 0
    text = doc.read_text()
    assert text.startswith("# before\n") and text.endswith("# after\n") and "99 / 99" not in text
    assert "from ACTS commit `0123abcd` (2 tests)" in text
    lines = text.splitlines()
    heads = [line for line in lines if line.startswith("| level |")]
    musts = [line for line in lines if line.startswith("| MUST |")]
    assert "a2a-lab `spec/acts-sut`, JSON-RPC | a2a-lab `spec/acts-sut`, HTTP+JSON" in heads[0]
    # the authenticated variant, run as its first user with its second user given, has rows of its own
    assert "a2a-lab `spec/acts-sut-auth`, JSON-RPC | a2a-lab `spec/acts-sut-auth`, HTTP+JSON" in heads[1]
    assert "Server tests against `spec/acts-sut-auth` (authentication required)" in text
    # CORE-ERR-001 passes on each binding of both SUTs (on the variant only with its token: a 401 would be no
    # TaskNotFound); the client test is left out of the server columns and run on the client
    assert musts == ["| MUST | 1 / 1 | 1 / 1 | 1 / 1 |", "| MUST | 1 / 1 | 1 / 1 | 1 / 1 |", "| MUST | 1 / 1 |"]
    assert "reference client (`builtin`)" in text


@pytest.mark.parametrize("case", ["no markers", "no draft", "no commit"])
def test_unusable_input_is_refused_before_any_run(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    acts_table = table_module()
    doc = tmp_path / "conformance.md"
    doc.write_text("# no markers\n" if case == "no markers" else f"{acts_table.BEGIN}\n{acts_table.END}\n")
    folder = draft(tmp_path) if case != "no draft" else tmp_path
    args = [str(folder), "--doc", str(doc), *([] if case == "no commit" else ["--commit", "abc"])]
    before = doc.read_text()
    assert acts_table.main(args) == 2
    assert doc.read_text() == before
    said = capsys.readouterr().err
    hint = {"no markers": "markers: add them", "no draft": "no suite.acts.yaml", "no commit": "--commit SHA"}[case]
    assert hint in said


def test_a_test_that_ends_in_error_is_counted_not_judged_and_the_table_still_written(tmp_path: Path) -> None:
    # tck-complete-task ends at once: the runner's second stream cannot join it (not judged: `error`, exit 3)
    unjudged = {
        "id": "STREAM-MULTI-X",
        "name": "two streams",
        "level": "should",
        "runner_requirements": ["concurrent_streams"],
        "steps": [
            {
                "id": "stream",
                "operation": "send_streaming_message",
                "params": {"message": {"role": "ROLE_USER", "parts": [{"text": "tck-complete-task now"}]}},
                "expect_stream": {"min_count": 1},
            }
        ],
    }
    acts_table = table_module()
    folder = draft(tmp_path)
    (folder / "core.acts.yaml").write_text(yaml.safe_dump(suite(NOT_FOUND, unjudged)))
    doc = tmp_path / "conformance.md"
    doc.write_text(f"{acts_table.BEGIN}\n{acts_table.END}\n")
    assert acts_table.main([str(folder), "--commit", "0123abcd", "--doc", str(doc)]) == 0
    shoulds = [line for line in doc.read_text().splitlines() if line.startswith("| SHOULD |")]
    cell = "0 / 1 (1 of them not judged)"
    assert shoulds[:2] == [f"| SHOULD | {cell} | {cell} | {cell} |"] * 2
