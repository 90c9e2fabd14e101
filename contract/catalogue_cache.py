"""The built-in catalogue, read from its files once and then from a cache: every `a2a-lab run`, `serve`, `drive`,
`score` and `scenarios` starts by loading it, a few tenths of a CPU second of YAML reading and checking; read back
from the cache, a few hundredths (benchmarks/README.md has the measured figures).

The cache is one file, `$XDG_CACHE_HOME/a2a-lab/catalogue-KEY.pickle` (`~/.cache/...` without XDG_CACHE_HOME). KEY
covers everything the loaded catalogue depends on: the Python version, the path and bytes of every scenario file
under the root, and the path, size and modification time of every module of the packages whose objects it holds
(contract and protocol: the loader and the scenario model). A changed scenario file or a2a-lab's code gives a new
key, hence a fresh read; the older files are removed when the new one is written.

It is used only where it is safe: a folder owned by this user that nobody else may write to (a pickle is code), and
never when `A2A_LAB_NO_CACHE` is set (to anything but empty). A cache that cannot be read, written or trusted is
passed by quietly: the catalogue is read from its files, as without a cache, and nothing is lost.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

#: Set (to anything but empty) to read the catalogue from its files every time, and write no cache.
NO_CACHE_ENV = "A2A_LAB_NO_CACHE"
PREFIX = "catalogue-"
SUFFIX = ".pickle"

T = TypeVar("T")


def folder() -> Path:
    """Where the cache lives: $XDG_CACHE_HOME/a2a-lab, or ~/.cache/a2a-lab."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "a2a-lab"


def _code_folders() -> list[Path]:
    """The packages whose objects a loaded catalogue holds: contract (this one) and protocol."""
    from a2a_lab import protocol

    return [Path(__file__).resolve().parent, Path(protocol.__file__).resolve().parent]


def key(root: Path) -> str:
    """What the catalogue under `root` depends on, hashed: Python, every scenario file's path and bytes, every module
    of the code that reads them (path, size, modification time)."""
    digest = hashlib.sha256(f"{sys.version_info[:3]}|{pickle.HIGHEST_PROTOCOL}|{root}".encode())
    for path in sorted(root.rglob("*")):
        if path.suffix in (".yaml", ".yml") and path.is_file():
            digest.update(f"\0{path.relative_to(root).as_posix()}\0".encode())
            digest.update(path.read_bytes())
    for code in _code_folders():
        for path in sorted(code.rglob("*.py")):
            info = path.stat()
            digest.update(f"\0{path}\0{info.st_size}\0{info.st_mtime_ns}".encode())
    return digest.hexdigest()[:32]


def _trusted(place: Path) -> bool:
    """A folder of this user's that no one else may write to."""
    try:
        info = place.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o022


def load(root: Path, read: Callable[[], T], kind: type[T], place: Path | None = None) -> T:
    """`read()` (the catalogue under `root`, read from its files), or what the cache in `place` holds for it when it
    is an instance of `kind`; writes the cache after a read. Errors of the cache's own are never raised."""
    if os.environ.get(NO_CACHE_ENV):
        return read()
    place = place or folder()
    try:
        name = PREFIX + key(root) + SUFFIX
    except OSError:
        return read()
    if _trusted(place):
        try:
            with open(place / name, "rb") as cached:
                found = pickle.load(cached)
            if isinstance(found, kind):
                return found
        except Exception:  # missing, truncated, or from another build: read the files
            pass
    made = read()
    _write(place, name, made)
    return made


def _write(place: Path, name: str, value: object) -> None:
    try:
        place.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _trusted(place):
            return
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        handle, temp = tempfile.mkstemp(prefix=".catalogue-", dir=place)
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temp, place / name)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        for older in place.glob(PREFIX + "*" + SUFFIX):
            if older.name != name:
                older.unlink(missing_ok=True)
    except Exception:  # a read-only home, a full disk, a value that does not pickle: no cache, nothing lost
        return
