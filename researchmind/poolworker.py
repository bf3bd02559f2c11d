"""The start of a process in the embedded ingest pool
(``researchmind/runs/contentjobs.py``). A module of its own: a spawned
process imports it by name before Django is set up, so it imports no model."""

from __future__ import annotations

import os

import django


def start(nice: int) -> None:
    """Step back in the scheduler's queue (the web process serving pages comes
    first: conversion is CPU-heavy and can wait), then set Django up."""
    if nice:
        os.nice(nice)
    django.setup()
