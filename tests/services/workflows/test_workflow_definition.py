"""createWorkflow from a document or YAML: every problem at once, warnings, nothing half-written."""

from __future__ import annotations

from typing import Any

from server.errors import ErrorCode, ServiceError
from server.services.runtime import Tx
from server.services.workflows import create as workflow_create
from tests.services.workflow_helpers import WorkflowFlight, seed_4_3_yaml, step, wf

SEED_4_3 = "apiVersion: ioa/v1\nkind: Workflow\n" + seed_4_3_yaml()


def problems(error: ServiceError) -> list[tuple[str, str]]:
    return [(".".join(p.field), p.message) for p in error.problems]


async def test_the_seeds_compensation_example_is_accepted_as_yaml(workflows: WorkflowFlight) -> None:
    created = await workflows.create_yaml(SEED_4_3)
    w = created.workflow
    assert (w.name, w.status, w.failure_policy, w.outcome) == ("onboarding", "idle", "abort", None)
    assert [(s.name, s.on_failure, s.depends_on, s.status) for s in created.steps] == [
        ("create-account", "compensate", [], "pending"),
        ("provision-workspace", "compensate", [], "pending"),
        ("setup-analytics", "compensate", [], "pending"),
        ("send-welcome", "skip", [], "pending"),
    ]
    assert [(s.compensation_agent, s.compensation_action) for s in created.steps] == [
        ("growth-optimizer", "Deactivate account (soft delete)"),
        ("product-analyst", "Delete workspace and release resources"),
        ("data-pipeline", "Remove analytics configuration"),
        (None, None),
    ]
    assert created.warnings == []
    assert await workflows.kinds(w.id) == ["workflow_created"]


async def test_typed_input_and_yaml_store_the_same_document(workflows: WorkflowFlight) -> None:
    document = wf(
        step("fetch", timeout="5m", retryPolicy={"maxRetries": 2, "backoff": "linear", "initialDelay": "5s"}),
        step("analyze", "fetch", agent="analyst", onFailure="skip"),
        step("approve", "analyze", approval=True, timeout="1h"),
        name="report",
        timeout="30m",
        failurePolicy="compensate",
        compensation=[{"step": "fetch", "action": "delete the download", "agent": "janitor"}],
    )
    typed = await workflows.create_workflow(document)
    yaml_text = """
name: report
timeout: 30m
failurePolicy: compensate
steps:
  - {name: fetch, timeout: 5m, retryPolicy: {maxRetries: 2, backoff: linear, initialDelay: 5s}}
  - {name: analyze, dependsOn: [fetch], agent: analyst, onFailure: skip}
  - {name: approve, dependsOn: [analyze], approval: true, timeout: 1h}
compensation:
  - {step: fetch, action: delete the download, agent: janitor}
"""
    from_yaml = await workflows.create_yaml(yaml_text)
    assert typed.workflow.definition == from_yaml.workflow.definition
    spec = typed.workflow.definition["spec"]
    assert spec["timeout"] == "30m"
    assert spec["steps"][0]["retryPolicy"] == {
        "maxRetries": 2,
        "backoff": "linear",
        "initialDelay": "5s",
        "retryOn": ["transient"],
    }
    assert spec["steps"][1]["onFailure"] == "skip"
    assert spec["steps"][2] == {
        "name": "approve",
        "dependsOn": ["analyze"],
        "timeout": "1h",
        "onFailure": "compensate",  # the workflow's failure policy is every step's default
        "approval": True,
    }
    assert typed.workflow.timeout_seconds == 1800
    assert [s.timeout_seconds for s in typed.steps] == [300, None, 3600]


async def test_every_dag_problem_is_reported_at_once_by_step_name(workflows: WorkflowFlight) -> None:
    document = wf(
        step("root"),
        step("a", "c"),
        step("b", "a"),
        step("c", "b"),
        step("d", "ghost"),
        step("root"),
    )
    error = await workflows.refused(
        lambda tx: workflow_create.create_workflow(tx, document), ErrorCode.VALIDATION_FAILED
    )
    found = problems(error)
    assert ("steps.1.dependsOn", 'cycle: "a" -> "c" -> "b" -> "a" (each depends on the next)') in found
    assert ("steps.4.dependsOn", 'step "d" depends on "ghost", which is not a step of this workflow') in found
    assert ("steps.5.name", 'two steps are named "root"') in found
    unreachable = sorted(f for f, m in found if "cannot be reached from a root" in m)
    assert unreachable == ["steps.1.dependsOn", "steps.2.dependsOn", "steps.3.dependsOn"]
    assert len(found) == 6


async def test_no_root_is_an_error(workflows: WorkflowFlight) -> None:
    error = await workflows.refused(
        lambda tx: workflow_create.create_workflow(tx, wf(step("a", "b"), step("b", "a")))
    )
    assert ("steps", "no root: every step depends on another, so none can start") in problems(error)


async def test_field_problems_are_reported_together_with_dag_problems(workflows: WorkflowFlight) -> None:
    document: dict[str, Any] = wf(
        step("a", timeout="soon", onFailure="explode", retryPolicy={"maxRetries": -1, "backoff": "random"}),
        step("b", "a", "nope", approval="yes"),
        step("gate", approval=True, agent="someone"),
        step("", "a"),
        name="",
        timeout=30,
        failurePolicy="skip",
        compensation=[{"step": "zzz", "action": "x", "agent": "y"}, {"step": "a"}],
    )
    error = await workflows.refused(lambda tx: workflow_create.create_workflow(tx, document))
    fields = [f for f, _ in problems(error)]
    assert sorted(fields) == sorted(
        [
            "name",
            "failurePolicy",
            "timeout",
            "steps.0.onFailure",
            "steps.0.retryPolicy.maxRetries",
            "steps.0.retryPolicy.backoff",
            "steps.0.timeout",
            "steps.1.approval",
            "steps.2.approval",
            "steps.3.name",
            "compensation.0.step",
            "compensation.1.action",
            "compensation.1.agent",
            "steps.1.dependsOn",
        ]
    )


async def test_retry_on_may_not_name_categories_the_seed_never_retries(workflows: WorkflowFlight) -> None:
    policy = {
        "maxRetries": 1,
        "backoff": "constant",
        "initialDelay": "1s",
        "retryOn": ["external", "timeout"],
    }
    error = await workflows.refused(
        lambda tx: workflow_create.create_workflow(tx, wf(step("a", retryPolicy=policy)))
    )
    assert problems(error) == [
        ("steps.0.retryPolicy.retryOn.1", "timeout errors are never retried (seed 002 §3.1)")
    ]


async def test_more_than_ten_steps_is_a_warning_not_an_error(workflows: WorkflowFlight) -> None:
    chain = [step("s1")] + [step(f"s{i}", f"s{i - 1}") for i in range(2, 12)]
    created = await workflows.create_workflow(wf(*chain))
    assert len(created.steps) == 11
    assert [(w.code, w.field) for w in created.warnings] == [("TOO_MANY_STEPS", ["steps"])]
    assert "11 steps" in created.warnings[0].message


async def test_more_than_the_server_limit_is_an_error(workflows: WorkflowFlight) -> None:
    many = wf(*[step(f"s{i}") for i in range(workflows.runtime.settings.max_steps + 1)])
    error = await workflows.refused(lambda tx: workflow_create.create_workflow(tx, many))
    assert problems(error)[0][0] == "steps"


async def test_yaml_that_does_not_parse_or_is_not_a_mapping_is_refused_with_its_position(
    workflows: WorkflowFlight,
) -> None:
    async def from_yaml(text: str) -> ServiceError:
        async def go(tx: Tx) -> object:
            return await workflow_create.create_workflow_from_yaml(tx, text)

        return await workflows.refused(go, ErrorCode.VALIDATION_FAILED)

    broken = await from_yaml("spec:\n  steps: [a, b\n")
    assert problems(broken)[0][0] == "yaml"
    assert "line 3" in problems(broken)[0][1]
    assert problems(await from_yaml("- just\n- a list\n")) == [
        ("yaml", "yaml must be a mapping with spec.steps (or steps at the top)")
    ]
    nested = await from_yaml(
        "metadata: {name: x}\nspec:\n  steps:\n    - name: a\n      timeout: 5 minutes\n"
    )
    assert problems(nested) == [
        (
            "yaml.spec.steps.0.timeout",
            "steps.0.timeout: '5 minutes' is not a duration; write it like 30s, 5m or 1h30m",
        )
    ]
    unknown = await from_yaml("name: x\nsteps:\n  - name: a\n    depends_on: [b]\n")
    assert problems(unknown)[0][0] == "yaml.steps.0.depends_on"


async def test_a_refused_definition_writes_nothing(workflows: WorkflowFlight) -> None:
    await workflows.create_workflow(wf(step("ok")))
    before = await workflows.snapshot()
    await workflows.refused(lambda tx: workflow_create.create_workflow(tx, wf(step("a", "missing"))))
    assert await workflows.snapshot() == before
