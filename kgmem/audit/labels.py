"""Short one-line labels for the audit's pictures and charts."""

from __future__ import annotations

__all__ = ["shorten"]


def shorten(text: str, width: int) -> str:
    """``text`` on one line, cut to ``width`` characters with a trailing "…" when longer."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= width else flat[: max(0, width - 1)].rstrip() + "…"
