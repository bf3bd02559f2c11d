"""Checking parsed citations against the sandbox; ``citations.verify`` is the entry point."""
