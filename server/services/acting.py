"""Who a caller may act as: an API key may name the agents it claims and reports work as (issue 13)."""

from __future__ import annotations

from ..errors import ErrorCode, fail
from ..limits import SHORT_TEXT
from .runtime import Tx
from .validation import check_text


def check_acting_agent(tx: Tx, agent: str, field: str = "agent") -> None:
    """``agent`` is a bounded name this transaction's key may act as; FORBIDDEN otherwise.

    A key without agents (and dev mode's principal) may act as any agent, as before.
    """
    check_text(agent, [field], SHORT_TEXT, required=True)
    allowed = tx.principal.agents
    if allowed is not None and agent not in allowed:
        names = ", ".join(sorted(allowed))
        raise fail(ErrorCode.FORBIDDEN, f"this API key acts as {names}, not as {agent}", [field])
