"""Who a caller may act as: an API key may name the agents it claims and reports work as."""

from __future__ import annotations

from ..auth import Principal
from ..errors import ErrorCode, fail
from ..limits import SHORT_TEXT
from .validation import check_text


def check_acting_agent(principal: Principal, agent: str, field: str = "agent") -> None:
    """``agent`` is a bounded name the caller's key may act as; FORBIDDEN otherwise.

    A key without agents (and dev mode's principal) may act as any agent, as before.
    """
    check_text(agent, [field], SHORT_TEXT, required=True)
    allowed = principal.agents
    if allowed is not None and agent not in allowed:
        names = ", ".join(sorted(allowed))
        raise fail(ErrorCode.FORBIDDEN, f"this API key acts as {names}, not as {agent}", [field])
