"""DAG validation (seed 002 §5.2): every problem at once, each naming its steps.

1. no cycles (reported with their path), 2. every dependency exists, 3. at least one root (a step
without dependencies), 4. every step reachable from a root. A step is reached once all of its
dependencies are; unknown dependencies are reported once and otherwise ignored, so one typo does not
also make the steps after it "unreachable". Independent roots are fine: §4.3's example has no
``dependsOn`` at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


class DagProblemKind(StrEnum):
    DUPLICATE_NAME = "duplicate_name"
    DUPLICATE_DEPENDENCY = "duplicate_dependency"
    UNKNOWN_DEPENDENCY = "unknown_dependency"
    CYCLE = "cycle"
    NO_ROOT = "no_root"
    UNREACHABLE = "unreachable"


@dataclass(frozen=True)
class DagNode:
    name: str
    depends_on: tuple[str, ...] = ()


@dataclass(frozen=True)
class DagProblem:
    kind: DagProblemKind
    message: str
    index: int | None = None  # the step the problem is about, by position
    path: tuple[str, ...] = ()  # a cycle's steps, the first repeated at the end


def validate_dag(nodes: Sequence[DagNode]) -> list[DagProblem]:
    problems: list[DagProblem] = []
    index: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node.name in index:
            problems.append(
                DagProblem(DagProblemKind.DUPLICATE_NAME, f'two steps are named "{node.name}"', i)
            )
        else:
            index[node.name] = i
    deps: dict[str, list[str]] = {name: [] for name in index}
    for i, node in enumerate(nodes):
        seen: set[str] = set()
        for dep in node.depends_on:
            if dep in seen:
                problems.append(
                    DagProblem(
                        DagProblemKind.DUPLICATE_DEPENDENCY,
                        f'step "{node.name}" lists dependency "{dep}" twice',
                        i,
                    )
                )
                continue
            seen.add(dep)
            if dep not in index:
                problems.append(
                    DagProblem(
                        DagProblemKind.UNKNOWN_DEPENDENCY,
                        f'step "{node.name}" depends on "{dep}", which is not a step of this workflow',
                        i,
                    )
                )
            elif index[node.name] == i:
                deps[node.name].append(dep)
    for path in find_cycles(deps):
        problems.append(
            DagProblem(
                DagProblemKind.CYCLE,
                "cycle: " + " -> ".join(f'"{n}"' for n in path) + " (each depends on the next)",
                index[path[0]],
                tuple(path),
            )
        )
    if nodes and not any(not node.depends_on for node in nodes):
        problems.append(
            DagProblem(DagProblemKind.NO_ROOT, "no root: every step depends on another, so none can start")
        )
    else:
        reached = reachable_from_roots(deps)
        for name, i in index.items():
            if name not in reached:
                problems.append(
                    DagProblem(
                        DagProblemKind.UNREACHABLE,
                        f'step "{name}" cannot be reached from a root: it is on or behind a cycle',
                        i,
                    )
                )
    kinds = list(DagProblemKind)
    return sorted(problems, key=lambda p: (-1 if p.index is None else p.index, kinds.index(p.kind)))


def find_cycles(deps: dict[str, list[str]]) -> list[list[str]]:
    """One cycle per back edge of a depth-first search in definition order, as a closed path."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> None:
        state[name] = 1
        path.append(name)
        for dep in deps[name]:
            if state.get(dep) == 1:
                cycles.append([*path[path.index(dep) :], dep])
            elif dep not in state:
                visit(dep)
        path.pop()
        state[name] = 2

    for name in deps:
        if name not in state:
            visit(name)
    return cycles


def reachable_from_roots(deps: dict[str, list[str]]) -> set[str]:
    """Steps that can ever run: reached once every dependency is (Kahn's algorithm)."""
    waiting = {name: len(ds) for name, ds in deps.items()}
    dependents: dict[str, list[str]] = {name: [] for name in deps}
    for name, ds in deps.items():
        for dep in ds:
            dependents[dep].append(name)
    frontier = [name for name, n in waiting.items() if n == 0]
    reached: set[str] = set()
    while frontier:
        name = frontier.pop()
        reached.add(name)
        for nxt in dependents[name]:
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                frontier.append(nxt)
    return reached
