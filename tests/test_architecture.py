"""docs/explanation/architecture.md, the newcomer's map, stays true to the tree.

Its table under "## The packages" names every package, one row each, the folder in backticks in the first column and
the import name in the second. A package is a folder that pyproject.toml maps in `[tool.setuptools.package-dir]`, or
a folder with an `__init__.py` below one. The map fails when a package exists that it does not name, or names one
that is gone; when a file it cites is gone; and when a relative link in it (or in the README) leads nowhere.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "explanation" / "architecture.md"
README = ROOT / "README.md"

#: The heading of the section whose table lists the packages.
SECTION = "## The packages"
#: A row of that table: | `folder/` | `import.name` | its one job |
ROW = re.compile(r"^\|\s*`([^`]+?)/?`\s*\|\s*`([^`]+)`\s*\|")


def packages_named(text: str) -> dict[str, str]:
    """folder -> import name, from the rows of the table in the section SECTION of the map's `text`."""
    lines = text.splitlines()
    assert SECTION in lines, f"docs/explanation/architecture.md has no section {SECTION!r}"
    named: dict[str, str] = {}
    for line in lines[lines.index(SECTION) + 1 :]:
        if line.startswith("## "):
            break
        row = ROW.match(line)
        if row:
            folder, name = row.group(1), row.group(2)
            assert folder not in named, f"{folder} named twice"
            named[folder] = name
    assert named, f"no package rows under {SECTION!r}"
    return named


def packages_in(root: Path) -> dict[str, str]:
    """folder -> import name, for every package of the tree at `root`: the folders pyproject.toml maps, and the
    folders with an `__init__.py` below them."""
    mapped: dict[str, str] = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-dir"
    ]
    found: dict[str, str] = {}
    for name, folder in mapped.items():
        found[folder] = name
        for init in (root / folder).rglob("__init__.py"):
            below = init.parent.relative_to(root / folder)
            if below.parts:
                found[(Path(folder) / below).as_posix()] = ".".join((name, *below.parts))
    return found


def differences(named: dict[str, str], actual: dict[str, str]) -> list[str]:
    """What the map gets wrong, one sentence each (empty when it is right)."""
    problems = [
        f"{p}: a package the map does not name (add a row to its table)" for p in sorted(set(actual) - set(named))
    ]
    problems += [
        f"{p}: named by the map, but no such package (remove its row)" for p in sorted(set(named) - set(actual))
    ]
    problems += [
        f"{p}: the map says {named[p]}, the tree {actual[p]}"
        for p in sorted(set(named) & set(actual))
        if named[p] != actual[p]
    ]
    return problems


def test_the_map_names_every_package_and_no_other() -> None:
    problems = differences(packages_named(DOC.read_text(encoding="utf-8")), packages_in(ROOT))
    assert not problems, "docs/explanation/architecture.md, section 'The packages':\n" + "\n".join(problems)


def _without_row(text: str, folder: str) -> str:
    kept = [line for line in text.splitlines() if not line.startswith(f"| `{folder}/` |")]
    assert len(kept) == len(text.splitlines()) - 1, f"no row for {folder} to remove"
    return "\n".join(kept)


def test_a_map_missing_a_row_fails() -> None:
    text = _without_row(DOC.read_text(encoding="utf-8"), "harness/server_judging/probe")
    assert "harness/server_judging/probe: a package the map does not name (add a row to its table)" in differences(
        packages_named(text), packages_in(ROOT)
    )


def test_a_map_naming_a_package_that_is_gone_fails() -> None:
    text = DOC.read_text(encoding="utf-8").replace(
        "| `harness/server_judging/probe/` |",
        "| `harness/ghost/` | `a2a_lab.harness.ghost` | gone |\n| `harness/server_judging/probe/` |",
    )
    assert "harness/ghost: named by the map, but no such package (remove its row)" in differences(
        packages_named(text), packages_in(ROOT)
    )


def test_a_wrong_import_name_fails() -> None:
    text = DOC.read_text(encoding="utf-8").replace("`a2a_lab.harness.server_judging.probe`", "`a2a_lab.probe`")
    wrong = "harness/server_judging/probe: the map says a2a_lab.probe, the tree a2a_lab.harness.server_judging.probe"
    assert wrong in differences(packages_named(text), packages_in(ROOT))


def test_a_map_without_its_table_fails() -> None:
    with pytest.raises(AssertionError, match="no section"):
        packages_named(DOC.read_text(encoding="utf-8").replace(SECTION + "\n", "## Packages\n"))


def test_a_new_package_in_the_tree_is_found(tmp_path: Path) -> None:
    """The tree side: a folder with an `__init__.py` below a mapped folder is a package, at any depth; a folder
    without one (data, caches) is not."""
    (tmp_path / "pyproject.toml").write_text(
        '[tool.setuptools.package-dir]\n"a2a_lab.harness" = "harness"\n', encoding="utf-8"
    )
    for folder in ("harness", "harness/client_judging", "harness/client_judging/checks/deep"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "harness" / "__pycache__").mkdir()
    (tmp_path / "harness" / "client_judging" / "checks" / "data").mkdir()
    assert packages_in(tmp_path) == {
        "harness": "a2a_lab.harness",
        "harness/client_judging": "a2a_lab.harness.client_judging",
        "harness/client_judging/checks/deep": "a2a_lab.harness.client_judging.checks.deep",
    }
    named = {"harness": "a2a_lab.harness", "harness/client_judging": "a2a_lab.harness.client_judging"}
    assert differences(named, packages_in(tmp_path)) == [
        "harness/client_judging/checks/deep: a package the map does not name (add a row to its table)"
    ]


# ==================================================================================== what the map cites

#: A file the map cites: a path with a folder and an extension, or a bare file name.
CITED = re.compile(r"`((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.(?:py|md|yml|yaml|toml|sh))`")


def cited_files(text: str) -> list[str]:
    return sorted(set(CITED.findall(text)))


def cited_file_exists(cited: str, root: Path) -> bool:
    """A path names a file from the root, from `harness/` or from one of its rooms (a sub-package's own path:
    `probe/runner.py` is harness/server_judging/probe/runner.py); a bare name, a file somewhere in the package
    folders."""
    if "/" not in cited:
        folders = ("protocol", "contract", "server", "harness", "scenarios", "tests", "benchmarks")
        return any(next((root / f).rglob(cited), None) is not None for f in folders) or (root / cited).is_file()
    rooms = [p.relative_to(root).as_posix() for p in (root / "harness").iterdir() if (p / "__init__.py").is_file()]
    return any((root / c).is_file() for c in (cited, f"harness/{cited}", *(f"{r}/{cited}" for r in rooms)))


def test_every_file_the_map_cites_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    gone = [c for c in cited_files(text) if not cited_file_exists(c, ROOT)]
    assert cited_files(text), "the map cites no file: the pattern no longer matches how it cites them"
    assert not gone, f"docs/explanation/architecture.md cites files that do not exist: {gone}"


def test_a_file_that_is_gone_is_found() -> None:
    text = DOC.read_text(encoding="utf-8") + "\nSee `server/gone.py` and `nowhere.py`.\n"
    gone = {c for c in cited_files(text) if not cited_file_exists(c, ROOT)}
    assert {"nowhere.py", "server/gone.py"} <= gone


# ==================================================================================== links


def relative_links(text: str) -> list[str]:
    """The targets of the Markdown links in `text` that point into the repository (no scheme, no bare anchor), without
    their anchors."""
    targets = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#", 1)[0] for t in targets if "://" not in t and not t.startswith(("#", "mailto:"))]


@pytest.mark.parametrize("doc", [DOC, README], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(doc: Path) -> None:
    links = relative_links(doc.read_text(encoding="utf-8"))
    broken = [link for link in links if not (doc.parent / link).exists()]
    assert links and not broken, f"{doc.name}: links to nothing: {broken}"


def test_the_readme_points_to_the_map_before_anything_else() -> None:
    readme = README.read_text(encoding="utf-8")
    assert "](docs/explanation/architecture.md)" in readme[: readme.index("## Quick start")], (
        "the map, linked before the quick start"
    )
    documentation = readme[readme.index("## The documentation") :]
    assert "](docs/explanation/architecture.md)" in documentation
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert "](explanation/architecture.md)" in home, "the docs site's home links the map"
