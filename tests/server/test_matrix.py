"""Scenario families (`matrix:`, contract/loader/family.py): a file becomes one scenario per combination, ids and
titles say which, overlays and placeholders make the members differ, and every bad matrix is refused naming the file,
the key and a fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from a2a_lab.contract.catalogue import Catalogue, SelectionError, load_files
from a2a_lab.contract.loader import ScenarioError, load_file, load_scenarios
from a2a_lab.protocol.bindings import Binding
from a2a_lab.protocol.versions import Version

from .helpers import write_scenario

MATRIX = """\
matrix:
  version: ["1.0", "0.3"]
  binding: [JSONRPC, HTTP+JSON]
  let:
    binding:
      JSONRPC: {path: /rpc}
      HTTP+JSON: {path: /rest}
  overlay:
    version:
      "1.0":
        card:
          object:
            supportedInterfaces: [{url: "{base_url}{path}", protocolBinding: "{binding}", protocolVersion: "1.0"}]
      "0.3":
        card: {object: {protocolVersion: "0.3.0", url: "{base_url}{path}", preferredTransport: "{binding}"}}
"""
BODY = """\
title: A family
description: Asks over {binding} in A2A {version}; GET /tasks/{id} stays text.
spec: A2A 1.0 (test)
card:
  object:
    name: "family agent ({binding})"
    skills: [{id: s, name: s, description: s, tags: [t]}]
behaviour:
  SendMessage:
    - when: {version: "{version}", binding: "{binding}"}
      reply: {message: "hello over {binding} {version}"}
"""
FAMILY = MATRIX + BODY
MEMBERS = ["0.3-http-json", "0.3-jsonrpc", "1.0-http-json", "1.0-jsonrpc"]


def load(tmp_path: Path, text: str) -> dict[str, object]:
    return dict(load_scenarios(write_scenario(tmp_path, text, "fam.yaml")))


def refused(tmp_path: Path, text: str) -> ScenarioError:
    path = write_scenario(tmp_path, text, "fam.yaml")
    with pytest.raises(ScenarioError) as caught:
        load_scenarios(path)
    assert str(path) in str(caught.value), "the error names the file"
    return caught.value


def test_a_family_makes_one_scenario_per_combination(tmp_path: Path) -> None:
    members = load_scenarios(write_scenario(tmp_path, FAMILY, "fam.yaml"))
    assert sorted(members) == [f"fam/{m}" for m in MEMBERS]
    rest03 = members["fam/0.3-http-json"]
    assert rest03.family == "fam" and rest03.id == "fam/0.3-http-json"
    assert rest03.title == "A family [0.3, HTTP+JSON]"
    assert rest03.description == "Asks over HTTP+JSON in A2A 0.3; GET /tasks/{id} stays text."
    assert rest03.card.object == {
        "name": "family agent (HTTP+JSON)",
        "skills": [{"id": "s", "name": "s", "description": "s", "tags": ["t"]}],
        "protocolVersion": "0.3.0",
        "url": "{base_url}/rest",
        "preferredTransport": "HTTP+JSON",
    }
    assert [(e.path, e.binding, e.versions) for e in rest03.endpoints] == [
        ("/rest", Binding.HTTP_JSON, (Version.V0_3,))
    ]
    rpc10 = members["fam/1.0-jsonrpc"]
    assert rpc10.card.object is not None and "url" not in rpc10.card.object
    assert rpc10.card.object["supportedInterfaces"] == [
        {"url": "{base_url}/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    (rule,) = rpc10.rules[next(iter(rpc10.rules))]
    assert rule.when.version is Version.V1_0 and rule.when.binding is Binding.JSONRPC


def test_exclude_leaves_combinations_out_and_overlays_merge(tmp_path: Path) -> None:
    text = MATRIX.replace(
        "  let:", '  exclude: [{version: "0.3", binding: HTTP+JSON}, {binding: JSONRPC, version: "1.0"}]\n  let:'
    )
    assert sorted(load(tmp_path, text + BODY)) == ["fam/0.3-jsonrpc", "fam/1.0-http-json"]
    # A mapping merges key by key (name kept); a list replaces (skills).
    text = MATRIX.replace('"0.3":\n', '"0.3":\n        timeout: 3\n') + BODY
    members = load_scenarios(write_scenario(tmp_path, text, "fam.yaml"))
    assert members["fam/0.3-jsonrpc"].timeout == 3 and members["fam/1.0-jsonrpc"].timeout == 20


def test_one_axis(tmp_path: Path) -> None:
    text = """\
matrix: {version: ["0.3", "1.0"]}
title: t
description: d
spec: s
card:
  object:
    name: "v{version}"
    supportedInterfaces: [{url: "{base_url}/a", protocolBinding: JSONRPC, protocolVersion: "{version}"}]
"""
    members = load_scenarios(write_scenario(tmp_path, text, "one.yaml"))
    assert list(members) == ["one/0.3", "one/1.0"] and members["one/0.3"].title == "t [0.3]"


def test_a_family_file_is_not_one_scenario(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="scenario family") as caught:
        load_file(write_scenario(tmp_path, FAMILY, "fam.yaml"))
    assert caught.value.field_path == "matrix" and "--scenario FILE" in caught.value.hint


def test_a_family_among_the_users_files_and_in_a_catalogue(tmp_path: Path) -> None:
    write_scenario(tmp_path, FAMILY, "mine/fam.yaml")
    assert sorted(load_files(str(tmp_path / "mine"))) == [f"fam/{m}" for m in MEMBERS]
    assert sorted(load_files(str(tmp_path / "mine" / "fam.yaml"))) == [f"fam/{m}" for m in MEMBERS]
    cat = Catalogue.load(tmp_path)
    assert cat.families() == {"mine/fam": [f"mine/fam/{m}" for m in MEMBERS]}
    assert [s.id for s in cat.choose(["mine/fam"], exclude=["*/1.0-*"])] == [
        "mine/fam/0.3-http-json",
        "mine/fam/0.3-jsonrpc",
    ]
    files = cat.choose([str(tmp_path / "mine" / "fam.yaml")], exclude=["fam"])
    assert files == [], "a family's id excludes its members from a file too"


def test_a_broken_family_is_one_broken_file(tmp_path: Path) -> None:
    write_scenario(tmp_path, FAMILY.replace("{path}", "{pth}"), "fams/fam.yaml")
    cat = Catalogue.load(tmp_path)
    assert list(cat.broken) == ["fams/fam"] and cat.scenarios == {}
    with pytest.raises(ScenarioError, match=r"placeholder \{pth\} is not defined"):
        cat.get("fams/fam/1.0-jsonrpc")
    with pytest.raises(SelectionError, match=r"placeholder \{pth\}"):
        cat.choose([str(tmp_path / "fams")])


@pytest.mark.parametrize(
    ("change", "where", "says", "hint"),
    [
        (("version:", "versions:"), "matrix.versions", "unknown field", "did you mean 'version'?"),
        (("  let:", "  colour: [red]\n  let:"), "matrix.colour", "unknown field", "allowed here"),
        (('version: ["1.0", "0.3"]', "version: []"), "matrix.version", "non-empty list", 'version: ["1.0", "0.3"]'),
        (('version: ["1.0", "0.3"]', "version: 1.0"), "matrix.version", "non-empty list", "e.g."),
        (("[JSONRPC, HTTP+JSON]", "[JSONRPC, SOAP]"), "matrix.binding[1]", "unknown binding 'SOAP'", "JSONRPC"),
        (("[JSONRPC, HTTP+JSON]", "[JSONRPC, GRPC]"), "matrix.binding[1]", "cannot be a matrix value", "HTTP+JSON"),
        (('["1.0", "0.3"]', '["1.0", "2.0"]'), "matrix.version[1]", "unknown protocol version", '"1.0" or "0.3"'),
        (('["1.0", "0.3"]', '["1.0", "1.0"]'), "matrix.version[1]", "listed twice", "once"),
        (
            ("{base_url}{path}", "{base_url}{pth}"),
            "card.object.supportedInterfaces[0].url",
            "{pth} is not defined",
            "matrix.let",
        ),
        (
            ("    binding:\n      JSONRPC", "    version:\n      JSONRPC"),
            "matrix.let.version.JSONRPC",
            "unknown protocol version",
            "",
        ),
        (
            ("HTTP+JSON: {path: /rest}", "HTTP+JSON: {other: /rest}"),
            "matrix.let.binding.JSONRPC",
            "does not define {other}",
            "same names",
        ),
        (
            (
                "JSONRPC: {path: /rpc}",
                "JSONRPC: {path: /rpc, extra: x}\n      HTTP+JSON: {path: /rest, extra: y}\n      X: {}",
            ),
            "matrix.let.binding.X",
            "unknown binding",
            "",
        ),
        (
            ("JSONRPC: {path: /rpc}", "JSONRPC: {text: /rpc}"),
            "matrix.let.binding.JSONRPC.text",
            "{text} is already a placeholder",
            "another name",
        ),
        (("JSONRPC: {path: /rpc}", "JSONRPC: {path: 7}"), "matrix.let.binding.JSONRPC.path", "expected text", "quote"),
        (
            ('      "0.3":\n        card', '      "0.2":\n        card'),
            "matrix.overlay.version.0.2",
            "unknown protocol version",
            "",
        ),
        (
            ("  let:", '  exclude: [{version: "0.3"}, {version: "1.0"}]\n  let:'),
            "matrix.exclude",
            "excludes every combination",
            "plain scenario",
        ),
        (
            ("  let:", "  exclude: [{transport: JSONRPC}]\n  let:"),
            "matrix.exclude[0].transport",
            "unknown matrix axis",
            "the axes are version, binding",
        ),
        (("  let:", "  exclude: [{}]\n  let:"), "matrix.exclude[0]", "excludes everything", "at least one axis"),
        (("  let:", "  exclude: {version: '0.3'}\n  let:"), "matrix.exclude", "expected a list", "e.g."),
        (
            ('      "0.3":\n        card:', '      "0.3":\n        matrix: {binding: [JSONRPC]}\n        card:'),
            "matrix.overlay.version.0.3.matrix",
            "cannot hold a matrix",
            "top level",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_bad_matrix_input_is_refused_with_a_fix(
    tmp_path: Path, change: tuple[str, str], where: str, says: str, hint: str
) -> None:
    old, new = change
    assert old in FAMILY
    exc = refused(tmp_path, FAMILY.replace(old, new, 1))
    assert exc.field_path == where and says in exc.problem and hint in exc.hint, str(exc)


def test_a_placeholder_of_an_axis_the_matrix_lacks_is_undefined(tmp_path: Path) -> None:
    text = MATRIX.replace("  binding: [JSONRPC, HTTP+JSON]\n", "").replace(
        "  let:\n    binding:\n      JSONRPC: {path: /rpc}\n      HTTP+JSON: {path: /rest}\n", ""
    )
    exc = refused(tmp_path, text + BODY)
    # In prose too: {binding} names an axis, never text.
    assert exc.field_path == "description" and "{binding} is not defined for member 1.0" in exc.problem
    assert "this matrix defines {version}" in exc.hint


def test_a_name_defined_and_never_used(tmp_path: Path) -> None:
    text = FAMILY.replace("JSONRPC: {path: /rpc}", "JSONRPC: {path: /rpc, spare: a}").replace(
        "HTTP+JSON: {path: /rest}", "HTTP+JSON: {path: /rest, spare: b}"
    )
    exc = refused(tmp_path, text)
    assert (exc.field_path, exc.problem) == ("matrix.let.binding.*.spare", "{spare} is defined but never used")
    assert "use {spare} in the file, or drop it from matrix.let.binding" in exc.hint


def test_an_axis_that_changes_nothing(tmp_path: Path) -> None:
    text = """\
matrix: {version: ["1.0", "0.3"], binding: [JSONRPC, HTTP+JSON]}
title: t
description: d
spec: s
card:
  object:
    name: "{version}"
    supportedInterfaces: [{url: "{base_url}/a", protocolBinding: JSONRPC, protocolVersion: "{version}"}]
"""
    exc = refused(tmp_path, text)
    assert exc.field_path == "matrix.binding" and "every member along this axis would be the same" in exc.problem
    assert "use {binding}" in exc.hint and "or drop the axis" in exc.hint


def test_a_matrix_without_an_axis_and_a_member_that_does_not_parse(tmp_path: Path) -> None:
    exc = refused(tmp_path, "matrix: {}\n" + BODY)
    assert exc.field_path == "matrix" and exc.problem == "names no axis"
    # Only the 0.3 members go wrong: the error names the first made (the lists' order).
    text = FAMILY.replace('      "0.3":\n        card:', '      "0.3":\n        seed: -1\n        card:')
    exc = refused(tmp_path, text)
    assert exc.field_path == "seed" and exc.problem.endswith("(matrix member 0.3-jsonrpc)")


def test_a_member_id_another_file_has_is_refused(tmp_path: Path) -> None:
    write_scenario(tmp_path, FAMILY, "fam.yaml")
    plain = "title: t\ndescription: d\nspec: s\ncard: {object: {name: plain}}\n"
    write_scenario(tmp_path, plain, "fam/1.0-jsonrpc.yaml")
    cat = Catalogue.load(tmp_path)
    assert list(cat.broken) == ["fam"] and cat.scenarios["fam/1.0-jsonrpc"].family is None
    exc = cat.broken["fam"]
    assert (exc.field_path, exc.hint) == ("matrix", "rename one file")
    assert exc.problem == f"makes 'fam/1.0-jsonrpc', which {tmp_path / 'fam' / '1.0-jsonrpc.yaml'} makes too"
