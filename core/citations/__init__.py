"""Citations as text: parsing every form an answer uses, verifying them against
the sandbox, judging whether a quote supports its claim, and rendering an
answer's Markdown with its ``[cN]`` links. The Django app ``citations`` stores
the results; this package knows nothing of it."""
