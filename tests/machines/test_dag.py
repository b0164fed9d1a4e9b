"""DAG validation (seed 002 §5.2): every problem at once, by step name."""

from __future__ import annotations

from server.machines.dag import DagNode, DagProblemKind, validate_dag


def dag(**steps: list[str]) -> list[DagNode]:
    return [DagNode(name.replace("_", "-"), tuple(deps)) for name, deps in steps.items()]


def kinds(nodes: list[DagNode]) -> list[tuple[str, int | None]]:
    return [(p.kind.value, p.index) for p in validate_dag(nodes)]


def test_the_seeds_parallel_example_is_valid() -> None:
    # §5.1: a -> (b, c) -> d
    assert (
        validate_dag(dag(step_a=[], step_b=["step-a"], step_c=["step-a"], step_d=["step-b", "step-c"])) == []
    )


def test_independent_roots_are_valid() -> None:
    # §4.3's example has no dependsOn at all.
    assert validate_dag(dag(a=[], b=[], c=[], d=[])) == []


def test_a_cycle_is_reported_with_its_path_and_its_steps_are_unreachable() -> None:
    problems = validate_dag(dag(root=[], a=["c", "root"], b=["a"], c=["b"]))
    cycles = [p for p in problems if p.kind is DagProblemKind.CYCLE]
    assert [p.path for p in cycles] == [("a", "c", "b", "a")]
    assert '"a" -> "c" -> "b" -> "a"' in cycles[0].message
    unreachable = sorted(p.message.split('"')[1] for p in problems if p.kind is DagProblemKind.UNREACHABLE)
    assert unreachable == ["a", "b", "c"]


def test_a_step_depending_on_itself_is_a_cycle_of_one() -> None:
    problems = validate_dag(dag(root=[], a=["a"]))
    assert [(p.kind, p.path) for p in problems if p.kind is DagProblemKind.CYCLE] == [
        (DagProblemKind.CYCLE, ("a", "a"))
    ]


def test_unknown_dependencies_are_named_and_do_not_make_later_steps_unreachable() -> None:
    problems = validate_dag(dag(a=[], b=["a", "nope"], c=["b"]))
    assert [(p.kind.value, p.index) for p in problems] == [("unknown_dependency", 1)]
    assert '"b" depends on "nope"' in problems[0].message


def test_no_root_is_reported_once_without_listing_every_step_as_unreachable() -> None:
    assert kinds(dag(a=["b"], b=["a"])) == [("no_root", None), ("cycle", 0)]


def test_every_problem_is_reported_at_once() -> None:
    nodes = [
        DagNode("a"),
        DagNode("b", ("ghost",)),
        DagNode("a", ()),
        DagNode("c", ("d", "c")),
        DagNode("d", ("c",)),
        DagNode("e", ("a", "a")),
    ]
    found = {(p.kind.value, p.index) for p in validate_dag(nodes)}
    assert found == {
        ("unknown_dependency", 1),
        ("duplicate_name", 2),
        ("cycle", 3),  # c -> d -> c
        ("cycle", 3),  # c -> c
        ("unreachable", 3),
        ("unreachable", 4),
        ("duplicate_dependency", 5),
    }
    cycles = sorted(p.path for p in validate_dag(nodes) if p.kind is DagProblemKind.CYCLE)
    assert cycles == [("c", "c"), ("c", "d", "c")]
