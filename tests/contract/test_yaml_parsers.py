"""contract/yamlfile.py reads with libyaml's parser where PyYAML has it and with PyYAML's pure-Python parser
otherwise: the two must read every file alike (the same data, the same refusals, the same places), and a text that
is not YAML is refused in PyYAML's own words whichever parser met it first."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from a2a_lab.contract import yamlfile
from a2a_lab.contract.userfile import SCENARIO, Refused

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "scenarios").rglob("*.yaml"))

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="this PyYAML has no libyaml: one parser only")


def _read(loader: type, text: str) -> object:
    reader = loader(text, SCENARIO)
    try:
        return reader.get_single_data()
    finally:
        reader.dispose()


def test_libyaml_reads_every_catalogue_file_as_pyyaml_does() -> None:
    assert FILES, "no catalogue files found"
    fast = yamlfile._FastLoader  # the parser `loads` takes where libyaml is there
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        assert _read(fast, text) == _read(yamlfile._Loader, text), path


def test_the_places_of_values_are_the_same() -> None:
    text = "a:\n  b: [1, 2]\n  c: {d: x}\n"
    fast = yamlfile._FastLoader(text, SCENARIO).get_single_node()
    slow = yamlfile._Loader(text, SCENARIO).get_single_node()
    assert isinstance(fast, yaml.MappingNode) and isinstance(slow, yaml.MappingNode)
    assert [yamlfile.where(v) for _, v in fast.value[0][1].value] == ["line 2, column 6", "line 3, column 6"]
    assert [yamlfile.where(v) for _, v in fast.value[0][1].value] == [
        yamlfile.where(v) for _, v in slow.value[0][1].value
    ]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a: [1, 2\nb: 3\n", "line 2, column 2"),  # an unclosed flow sequence
        ("a: *nowhere\n", "found undefined alias"),
        ("a: 1\n\x01\n", "#x0001"),  # a character YAML does not allow: PyYAML's check, made before libyaml's
        ("a: !!python/object:os.system x\n", "the tag !!python/object:os.system is not allowed"),
        ("a: " + "[" * 200 + "]" * 200 + "\n", "nested more than"),
    ],
)
def test_refusals_are_pyyamls_and_the_bounds_hold(text: str, said: str) -> None:
    with pytest.raises(Refused) as got:
        yamlfile.loads(text, SCENARIO, "f.yaml")
    assert said in str(got.value), str(got.value)
