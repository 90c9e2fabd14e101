"""`a2a-lab card check`: offline linting of an agent card, the requests a narrow client would derive from it,
and signature verification."""
