"""Render every machine of the registry as Markdown (tables and Mermaid diagrams).

``docs/state-machines.md`` is this text; ``flightdeck export-machines`` prints it and a test fails when
the file is stale, so the documentation cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from .machine import Machine
from .registry import COORDINATION, MACHINES

HEADER = """# State machines

Generated from `server/machines` by `flightdeck export-machines` (`make docs`); do not edit by hand.
A test fails when this file is stale. Every state change in the engine goes through one function that
checks these tables (`server/services/transitions.py`).
"""


def _mermaid_id(state: str) -> str:
    return state.replace("-", "_")


def render_machine(machine: Machine[Any]) -> str:
    title = machine.entity.replace("_", " ")
    lines = [f"### {title}", ""]
    if machine.description:
        lines += [machine.description, ""]
    final = ", ".join(f"`{s}`" for s in sorted(machine.final)) or "none"
    lines += [f"Initial state `{machine.initial}`; final states {final}.", ""]
    lines += ["| from | to |", "|---|---|"]
    for source in machine.states:
        targets = ", ".join(f"`{t}`" for t in sorted(machine.transitions[source])) or "(none)"
        lines.append(f"| `{source}` | {targets} |")
    lines += render_actions(machine)
    lines += ["", "```mermaid", "stateDiagram-v2", f"    [*] --> {_mermaid_id(machine.initial)}"]
    for source, target in machine.edges():
        lines.append(f"    {_mermaid_id(source)} --> {_mermaid_id(target)}")
    for state in sorted(machine.final):
        lines.append(f"    {_mermaid_id(state)} --> [*]")
    lines += ["```", ""]
    return "\n".join(lines)


def render_actions(machine: Machine[Any]) -> list[str]:
    """What the services do to the entity, by name: from which states, to where, on what condition."""
    if not machine.actions:
        return []
    lines = ["", "| action | from | to | only when |", "|---|---|---|---|"]
    for action in machine.actions:
        sources = ", ".join(f"`{s}`" for s in sorted(action.sources))
        if action.internal:
            to = "(stays: a check)"
        elif action.target is None:
            to = "where it failed from"
        else:
            to = f"`{action.target}`" + (f" (through `{action.via}` if need be)" if action.via else "")
        guards = "; ".join(g.describe() for g in action.guards)
        lines.append(f"| `{action.name}` | {sources} | {to} | {guards} |")
    return lines


def render_coordination(title: str, text: str, table: Mapping[Any, frozenset[StrEnum]]) -> str:
    lines = [f"### Coordination: {title}", "", text, "", "| when | allows |", "|---|---|"]
    for state, allowed in table.items():
        lines.append(f"| `{state}` | {', '.join(f'`{a}`' for a in sorted(allowed)) or '(none)'} |")
    return "\n".join([*lines, ""])


def render_all() -> str:
    parts = [HEADER]
    domains = list(dict.fromkeys(domain for domain, _ in MACHINES))
    for domain in domains:
        parts.append(f"## {domain.capitalize()}\n")
        parts += [render_machine(machine) for d, machine in MACHINES if d == domain]
        parts += [
            render_coordination(title, text, table) for d, title, text, table in COORDINATION if d == domain
        ]
    return "\n".join(parts).rstrip() + "\n"
