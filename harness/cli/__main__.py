"""`python -m a2a_lab.harness.cli`: the `a2a-lab` command."""

import sys

from a2a_lab.harness.cli.entry import main

sys.exit(main())
