"""Command-line client for the Research Mind JSON API and websocket
(``python -m researchmind.client``). It imports nothing from Django: it is a
program like any other API client."""
