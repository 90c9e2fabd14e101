"""a2a-lab's harness, in rooms by who is judged (docs/explanation/architecture.md draws them):

- `client_judging/`: runs a client against scenarios and scores what it sent;
- `server_judging/`: judges a server by its card (card check, probe, ACTS) and records one;
- `proxy/`: stands between a real client and a real server and judges both;
- `clients/`: the lab acting as a client (the reference client, adapters of third-party clients);
- `reports/`: the report formats every room writes; `common/`: what the rooms share;
- `cli/` and `ui/`: the faces, `a2a-lab` and `a2a-lab ui`, the only rooms that import the others freely.

Public entry points: `a2a-lab` (cli), the pytest plugin (`pytest_plugin.py`) and `a2a_lab.harness.inprocess`."""
