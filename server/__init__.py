"""a2a-lab server."""
