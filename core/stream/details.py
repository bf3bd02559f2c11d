"""Readable one-line details (≤ 100 characters) for system, other and result lines.

Pure Python, no Django imports.
"""

from __future__ import annotations

from typing import Any

from core.stream.events import as_dict, as_str, clip


def system_detail(data: dict[str, Any], subtype: str) -> str:
    """One readable line for a ``system`` line of any subtype."""
    if subtype == "init":
        tools = data.get("tools")
        count = f" · {len(tools)} tools" if isinstance(tools, list) else ""
        model = as_str(data.get("model"))
        return clip(f"Engine started{' · ' + model if model else ''}{count}")
    if subtype in ("hook_started", "hook_progress", "hook_response"):
        name = as_str(data.get("hook_name")) or as_str(data.get("hook_event")) or "hook"
        if subtype == "hook_response":
            outcome = as_str(data.get("outcome")) or "done"
            return clip(f"Hook {name}: {outcome}")
        return clip(f"Hook {'started' if subtype == 'hook_started' else 'running'}: {name}")
    if subtype == "status":
        return clip(f"Status: {as_str(data.get('status')) or 'idle'}")
    if subtype == "compact_boundary":
        trigger = as_str(as_dict(data.get("compact_metadata")).get("trigger")) or "auto"
        return clip(f"Context compacted ({trigger})")
    if subtype == "api_retry":
        delay = data.get("retry_delay_ms")
        wait = (
            f" in {delay / 1000:.1f} s"
            if isinstance(delay, int | float) and not isinstance(delay, bool)
            else ""
        )
        return clip(
            f"API error ({as_str(data.get('error')) or data.get('error_status') or 'unknown'}), "
            f"retry {data.get('attempt', '?')}/{data.get('max_retries', '?')}{wait}"
        )
    if subtype in ("informational", "local_command_output"):
        return clip(as_str(data.get("content")) or "Engine notice")
    if subtype.startswith("task_"):
        what = as_str(data.get("description")) or as_str(data.get("summary")) or as_str(data.get("task_id"))
        state = {"task_started": "started", "task_progress": "working"}.get(subtype)
        state = state or as_str(data.get("status")) or subtype.removeprefix("task_")
        return clip(f"Sub-agent {state}: {what or 'task'}")
    if subtype == "thinking_tokens":
        tokens = data.get("estimated_tokens")
        count = f" (~{tokens} tokens)" if isinstance(tokens, int) and not isinstance(tokens, bool) else ""
        return clip(f"Thinking…{count}")
    return clip(f"System event: {subtype or 'unknown'}")


def other_detail(data: dict[str, Any], kind: str) -> str:
    """One readable line for a top-level type the interpreter does not handle specially."""
    if kind == "rate_limit_event":
        status = as_str(as_dict(data.get("rate_limit_info")).get("status")) or "unknown"
        return clip(f"Rate limit status: {status}")
    if kind == "tool_progress":
        seconds = data.get("elapsed_time_seconds")
        elapsed = (
            f" ({seconds:.0f} s)"
            if isinstance(seconds, int | float) and not isinstance(seconds, bool)
            else ""
        )
        return clip(f"Still running {as_str(data.get('tool_name')) or 'a tool'}{elapsed}")
    if kind == "tool_use_summary":
        return clip(as_str(data.get("summary")) or "Tool summary")
    return clip(f"Engine event: {kind or 'untyped line'}")


def result_detail(
    is_error: bool,
    duration_ms: int | None,
    num_turns: int | None,
    cost_usd: float | None,
    errors: list[str],
    text: str | None,
    subtype: str,
) -> str:
    """ "Completed in 12.3 s · 4 turns · $0.0123" or "Failed: <first error>"."""
    if not is_error:
        parts = ["Completed"]
        if duration_ms is not None:
            parts.append(f"in {duration_ms / 1000:.1f} s")
        if num_turns is not None:
            parts.append(f"· {num_turns} turn{'s' if num_turns != 1 else ''}")
        if cost_usd:  # an offline engine reports 0: nothing worth a "$0.0000"
            parts.append(f"· ${cost_usd:.4f}")
        return clip(" ".join(parts))
    reason = errors[0] if errors else (text or subtype or "unknown error")
    return clip(f"Failed: {reason}")
