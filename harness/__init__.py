"""a2a-lab harness."""
