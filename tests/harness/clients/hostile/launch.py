"""Run the hostile client this scenario names (A2A_LAB_SCENARIO `hostile/<client>` runs `<client>.py`); any other
scenario gets the well-behaved fake client, so one run can mix hostile and ordinary scenarios."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

scenario = os.environ.get("A2A_LAB_SCENARIO", "")
if scenario.startswith("hostile/"):
    script = HERE / f"{scenario.removeprefix('hostile/')}.py"
else:
    script = HERE.parent / "fake_client.py"
os.execv(sys.executable, [sys.executable, str(script), *sys.argv[1:]])
