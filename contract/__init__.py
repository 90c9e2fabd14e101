"""The contract between a2a-lab's parts: what the server is told, what it writes, and what a client is handed.

- the scenario format (`scenario`, `loader`, `matrix`, `placeholders`, `style`, `wording`, `catalogue`): what a
  scenario server is to do and what the harness expects of a client there;
- the journal record (`journal_record`, `redaction`): what the server saw and sent, as the harness reads it;
- the client handshake (`handshake`, and `ResultKind` in `journal_record`; `backoff`): what a client under test
  is handed and what it may answer;
- the one bounded reader of user files (`userfile`, `yamlfile`).

It imports nothing of a2a-lab but `a2a_lab.protocol`, and no HTTP library (checked by import-linter, see
pyproject.toml).
"""
