"""Exits before it ever connects."""
raise SystemExit(3)
