"""benchmarks/acts_table.py (issue 46 item 4): the measured ACTS table of docs/reference/conformance.md written from
runs, between its markers, with the ACTS commit; here on a small draft of the tests' own (the real draft is never
needed by a test)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

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


def table_rows(tmp_path: Path, test: dict[str, Any], level: str) -> list[str]:
    """The measured table's rows of `level` after a run of the draft with NOT_FOUND and `test` in one suite."""
    acts_table = table_module()
    folder = draft(tmp_path)
    (folder / "core.acts.yaml").write_text(yaml.safe_dump(suite(NOT_FOUND, test)))
    doc = tmp_path / "conformance.md"
    doc.write_text(f"{acts_table.BEGIN}\n{acts_table.END}\n")
    assert acts_table.main([str(folder), "--commit", "0123abcd", "--doc", str(doc)]) == 0
    return [line for line in doc.read_text().splitlines() if line.startswith(f"| {level} |")]


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
    # the variant without streaming and push notifications has rows of its own too
    nocap = "spec/acts-sut-no-capabilities"
    assert f"a2a-lab `{nocap}`, JSON-RPC | a2a-lab `{nocap}`, HTTP+JSON | a2a-lab `{nocap}`, gRPC" in heads[2]
    assert f"Server tests against `{nocap}` (no streaming, no push notifications declared" in text
    # CORE-ERR-001 passes on each binding of every SUT (on the auth variant only with its token: a 401 would be no
    # TaskNotFound); the client test is left out of the server columns and run on the client
    assert musts == ["| MUST | 1 / 1 | 1 / 1 | 1 / 1 |"] * 3 + ["| MUST | 1 / 1 |"]
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
    shoulds = table_rows(tmp_path, unjudged, "SHOULD")
    cell = "0 / 1 (1 of them not judged)"
    assert shoulds[:2] == [f"| SHOULD | {cell} | {cell} | {cell} |"] * 2


def test_a_capability_absent_test_skips_on_the_sut_and_runs_on_the_no_capabilities_variant(tmp_path: Path) -> None:
    """CORE-CAP-001's kind of test (a card without push notifications): skipped by its precondition on spec/acts-sut
    and spec/acts-sut-auth, run (and passed: PushNotificationNotSupportedError, A2A 1.0 §3.1.7) only on the variant."""
    create = {
        "id": "create",
        "operation": "send_message",
        "params": {"message": {"role": "ROLE_USER", "parts": [{"text": "tck-complete-task for push"}]}},
        "capture": {"taskId": "task.id"},
    }
    no_push = {
        "id": "PUSH-CFG-X",
        "name": "push config on a card without push",
        "level": "may",
        "preconditions": {"capabilities": {"pushNotifications": False}},
        "requires_behaviors": ["tck-complete-task"],
        "steps": [
            create,
            {
                "id": "set-config",
                "operation": "set_push_notification_config",
                "params": {"taskId": "{{create.taskId}}", "pushNotificationConfig": {"url": "https://example.com/h"}},
                "expect_error": {"code": "PushNotificationNotSupportedError"},
            },
        ],
    }
    mays = table_rows(tmp_path, no_push, "MAY")
    skipped = "0 / 0 (+1 skipped)"
    assert mays[:3] == [
        f"| MAY | {skipped} | {skipped} | {skipped} |",
        f"| MAY | {skipped} | {skipped} | {skipped} |",
        "| MAY | 1 / 1 | 1 / 1 | 1 / 1 |",
    ]
