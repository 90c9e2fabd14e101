"""The client of a run that a concurrent hostile client attacks (resetter.py): it does its work (the well-behaved
fake client), tells the attacker its server's port through HOSTILE_SYNC_DIR/ready (a FIFO), and exits only once
the attack is over (HOSTILE_SYNC_DIR/done), so that the harness reads its journal after the attack."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

from _common import card_url

HERE = Path(__file__).resolve().parent
SYNC = Path(os.environ["HOSTILE_SYNC_DIR"])

worked = subprocess.run([sys.executable, str(HERE.parent / "fake_client.py"), *sys.argv[1:]], check=False)
with (SYNC / "ready").open("w", encoding="ascii") as ready:  # blocks until the attacker listens
    ready.write(f"{urlsplit(card_url()).port}\n")
with (SYNC / "done").open("r", encoding="ascii") as done:  # blocks until the attacker is through
    print(f"victim: the attacker says {done.read().strip()}")
sys.exit(worked.returncode)
