"""Named sets of tools a host enables, so it pays in context only for the tools it uses.

Every tool belongs to one set (its ``toolset``). A connection asks for sets by name (``/mcp?toolsets=
plans,workflows``, ``flightdeck mcp --toolsets plans``); without asking it gets every set, and always
only the tools its key's role may call.
"""

from __future__ import annotations

from enum import StrEnum


class Toolset(StrEnum):
    PLANS = "plans"  # seed 003: research plans, reviews, skills, outputs
    WORKFLOWS = "workflows"  # seed 002: defining, starting and working workflows
    MISSIONS = "missions"  # seed 004: the agent's side of missions, hops, tool steps and assets
    ADMIN = "admin"  # a person's overrides of work under way: hops, missions and whole workflows


Selection = frozenset[Toolset] | None  # None: every set


class UnknownToolset(ValueError):
    """A name that is no set, or no name at all."""


MAX_SELECTION_CHARS = 200


def parse_toolsets(given: str | None) -> Selection:
    """``plans,workflows`` as sets; None (not given) selects every set."""
    if given is None:
        return None
    known = ", ".join(t.value for t in Toolset)
    if len(given) > MAX_SELECTION_CHARS:
        raise UnknownToolset(f"toolsets is longer than {MAX_SELECTION_CHARS} characters; known sets: {known}")
    names = [n.strip() for n in given.split(",") if n.strip()]
    if not names:
        raise UnknownToolset(f"toolsets names no set; known sets: {known}")
    unknown = [n for n in names if n not in {t.value for t in Toolset}]
    if unknown:
        shown = ", ".join(repr(n[:40]) for n in unknown[:5])
        raise UnknownToolset(f"unknown toolset {shown}; known sets: {known}")
    return frozenset(Toolset(n) for n in names)


# A tool in several sets (waiting for a person serves plans, workflows and missions alike) is listed
# when any of them is enabled.
Membership = Toolset | frozenset[Toolset]


def selected(toolset: Membership, selection: Selection) -> bool:
    if selection is None:
        return True
    return bool(toolset & selection) if isinstance(toolset, frozenset) else toolset in selection


def set_names(toolset: Membership) -> str:
    sets = sorted(toolset) if isinstance(toolset, frozenset) else [toolset]
    return " or ".join(repr(t.value) for t in sets)
