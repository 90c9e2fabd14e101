"""The docs site builds: `mkdocs build --strict` (mkdocs.yml, docs/) passes, so a page missing from the nav, a
link to nothing or an anchor that is gone fails the README's test command, not only .ci/run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_docs_site_builds_strict(tmp_path: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    said = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    warnings = [line for line in said.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert done.returncode == 0 and not warnings, "mkdocs build --strict failed:\n" + "\n".join(
        warnings or said.splitlines()[-30:]
    )
    assert (tmp_path / "site" / "index.html").is_file()
