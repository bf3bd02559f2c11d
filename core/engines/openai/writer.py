"""Claude Code stream-json lines for a run the app drives against a model API.

The built-in engine's ``StreamWriter`` makes the shapes; this one names the
model the server ran and the tools it was offered, marks refused tool calls
as errors, and closes with the usage the server reported.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.engines.builtin.streamjson import StreamWriter, usage

VERSION = "researchmind-openai/1.0"


class ModelStreamWriter(StreamWriter):
    version = VERSION  # what ``system/init`` names as the CLI's version

    def __init__(self, session_id: str, *, model: str, tools: list[str], mode: str) -> None:
        super().__init__(session_id, partial=True)
        self.model = model
        self.tools = tools
        self.mode = mode
        self.input_tokens = 0  # as the server reported them
        self.completion_tokens = 0
        self.attached: list[str] = []  # citation ids the app attached to the answer (``attach.py``)
        self.left_out: list[str] = []  # what was left out to fit the model's context, one sentence each

    def _line(self, obj: dict) -> str:
        if obj.get("type") == "result":
            if self.attached:
                obj["attached_citations"] = list(self.attached)
            if self.left_out:
                obj["context_left_out"] = list(self.left_out)
        return super()._line(obj)

    def init(self, cwd: str) -> str:
        return self._line(
            {
                "type": "system",
                "subtype": "init",
                "cwd": cwd,
                "tools": self.tools,
                "mcp_servers": [],
                "model": self.model,
                "permissionMode": "default",
                "slash_commands": [],
                "apiKeySource": "none",
                "claude_code_version": self.version,
                "output_style": "default",
                "agents": [],
                "skills": [],
                "plugins": [],
                "research_mode": self.mode,
            }
        )

    def _message(self, content: list) -> dict:
        return super()._message(content) | {"model": self.model}

    def notice(self, text: str) -> str:
        """A line the page shows as a step of the run (``system/informational``)."""
        return self._line({"type": "system", "subtype": "informational", "content": text})

    def retry(self, *, attempt: int, max_retries: int, delay_s: float, status: int | None, error: str) -> str:
        """A retried API error, as Claude Code reports its own (``system/api_retry``)."""
        return self._line(
            {
                "type": "system",
                "subtype": "api_retry",
                "attempt": attempt,
                "max_retries": max_retries,
                "retry_delay_ms": int(delay_s * 1000),
                "error_status": status,
                "error": error,
            }
        )

    def tool_result(self, tool_use_id: str, content: str, structured: dict, *, is_error: bool = False) -> str:
        block = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        return self._line(
            {
                "type": "user",
                "message": {"role": "user", "content": [block]},
                "parent_tool_use_id": None,
                "tool_use_result": structured,
            }
        )

    def result_usage(self) -> dict:
        """The usage the server reported (estimated where it reported none)."""
        return usage(self.input_tokens, self.completion_tokens or self.output_tokens)
