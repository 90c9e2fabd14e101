"""What every room of the harness shares: the typed records of a run and its verdicts (model.py), exit codes, the
messages a refusal prints, the guarding of secrets, and the writing of scenario files (record and proxy both write
them). Nothing here imports another room."""
