"""a2a-lab scenarios."""
