"""Answer rendering, by idea; ``citations.render`` is the entry point."""
