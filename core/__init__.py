"""Research Mind's pure core: engines, ingest (documents too), the agent result
protocols, the stream-json interpreter, citation parsing, verification,
rendering and the support judge, the sandbox resolver and thread prompts.

Rule: nothing under ``core/`` imports django, channels, daphne, celery or any
of the Django apps beside it (``researchmind``, ``citations``, ``progress``).
The apps call down into ``core``; ``core`` never calls up. Everything here is
plain Python, tested, fuzzed and benchmarked without a database.
``tests/test_architecture.py`` holds the code to this rule."""
