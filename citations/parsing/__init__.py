"""Citation parsing, split by form; ``citations.parse`` is the entry point."""
