"""The built-in catalogue's cache (contract/catalogue_cache.py): read back only while nothing it depends on changed,
never from a folder someone else may write to, never when A2A_LAB_NO_CACHE is set, and a broken cache costs nothing."""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from a2a_lab.contract import catalogue_cache
from a2a_lab.contract.catalogue import Catalogue, builtin_root
from a2a_lab.protocol.errors import A2AError, ErrorType


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of a few built-in scenario files."""
    copy = tmp_path / "catalogue"
    for sid in ("spec/conformant", "spec/acts-sut"):
        (copy / sid).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(builtin_root() / f"{sid}.yaml", copy / f"{sid}.yaml")
    return copy


@pytest.fixture(autouse=True)
def cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(catalogue_cache.NO_CACHE_ENV, raising=False)


def counted(root: Path) -> tuple[Callable[[], Catalogue], list[int]]:
    reads: list[int] = []

    def read() -> Catalogue:
        reads.append(1)
        return Catalogue.read(root)

    return read, reads


def test_the_second_load_comes_from_the_cache_and_equals_a_read(root: Path, tmp_path: Path) -> None:
    place = tmp_path / "cache"
    read, reads = counted(root)
    first = catalogue_cache.load(root, read, Catalogue, place)
    second = catalogue_cache.load(root, read, Catalogue, place)
    assert len(reads) == 1
    assert second == first == Catalogue.read(root) and second is not first
    assert [p.name for p in place.iterdir()] == [f"catalogue-{catalogue_cache.key(root)}.pickle"]
    assert place.stat().st_mode & 0o777 == 0o700


def test_a_changed_scenario_file_is_read_again_and_the_old_cache_removed(root: Path, tmp_path: Path) -> None:
    place = tmp_path / "cache"
    read, reads = counted(root)
    catalogue_cache.load(root, read, Catalogue, place)
    path = root / "spec" / "conformant.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("title:", "title: Changed", 1), encoding="utf-8")
    again = catalogue_cache.load(root, read, Catalogue, place)
    assert len(reads) == 2
    assert again.get("spec/conformant").title.startswith("Changed")
    assert len(list(place.iterdir())) == 1


def test_changed_code_gives_another_key(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = tmp_path / "code"
    code.mkdir()
    module = code / "loader.py"
    module.write_text("A = 1\n", encoding="utf-8")
    monkeypatch.setattr(catalogue_cache, "_code_folders", lambda: [code])
    before = catalogue_cache.key(root)
    module.write_text("A = 22\n", encoding="utf-8")
    assert catalogue_cache.key(root) != before


def test_a_broken_cache_file_is_read_past_and_replaced(root: Path, tmp_path: Path) -> None:
    place = tmp_path / "cache"
    read, reads = counted(root)
    catalogue_cache.load(root, read, Catalogue, place)
    (cached,) = place.iterdir()
    cached.write_bytes(b"\x80\x05not a pickle")
    assert catalogue_cache.load(root, read, Catalogue, place) == Catalogue.read(root)
    assert len(reads) == 2
    assert isinstance(pickle.loads(cached.read_bytes()), Catalogue)


def test_a_folder_others_may_write_to_is_neither_read_nor_written(root: Path, tmp_path: Path) -> None:
    place = tmp_path / "cache"
    place.mkdir()
    os.chmod(place, 0o777)
    planted = place / f"catalogue-{catalogue_cache.key(root)}.pickle"
    planted.write_bytes(pickle.dumps(Catalogue(root)))  # an empty catalogue someone else put there
    read, reads = counted(root)
    loaded = catalogue_cache.load(root, read, Catalogue, place)
    assert len(reads) == 1 and loaded.ids() == ["spec/acts-sut", "spec/conformant"]
    assert [p.name for p in place.iterdir()] == [planted.name]


def test_no_cache_when_the_environment_says_so(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(catalogue_cache.NO_CACHE_ENV, "1")
    place = tmp_path / "cache"
    read, reads = counted(root)
    catalogue_cache.load(root, read, Catalogue, place)
    catalogue_cache.load(root, read, Catalogue, place)
    assert len(reads) == 2 and not place.exists()


def test_an_unwritable_cache_costs_nothing(root: Path, tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a folder", encoding="utf-8")
    read, reads = counted(root)
    assert catalogue_cache.load(root, read, Catalogue, blocked / "cache") == Catalogue.read(root)
    assert len(reads) == 1


def test_the_builtin_catalogue_loads_through_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    first = Catalogue.load()
    assert list((tmp_path / "a2a-lab").glob("catalogue-*.pickle"))
    assert Catalogue.load() == first == Catalogue.read(builtin_root())


def test_an_a2a_error_pickles_as_its_fields() -> None:
    error = A2AError(ErrorType.TASK_NOT_FOUND, "gone", field="id", metadata={"k": "v"}, code_override=-1)
    back = pickle.loads(pickle.dumps(error))
    assert back == error and str(back) == str(error) and back.code == -1
