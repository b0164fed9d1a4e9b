"""Reading a workflow definition from typed input or YAML: check every field, report every problem.

Both forms are the same document in the YAML's words (``spec.steps[].dependsOn``, ``timeout: "5m"``,
``onFailure``, ``retryPolicy``, ``compensation``, ``failurePolicy``; the typed input is turned into it)
and one reader checks it, so both accept exactly the same workflows and name problems the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from enum import StrEnum
from typing import Any, TypeVar

import yaml

from ...config import Settings
from ...echo import shown
from ...errors import invalid
from ...limits import SHORT_TEXT, text_problem_for
from ...machines.dag import DagNode, DagProblemKind, validate_dag
from ...machines.durations import BadDuration, parse_duration
from ...machines.retry import (
    CONFIGURABLE,
    DEFAULT_RETRY_POLICY,
    MAX_RETRIES_LIMIT,
    Backoff,
    ErrorCategory,
    RetryPolicy,
)
from ...machines.workflow import FailurePolicy, OnFailure
from ..validation import Problems
from .definition import Compensation, StepDefinition, WorkflowDefinition, definition_document

ADVISED_MAX_STEPS = 10  # seed §6.5: "Keep workflows under 10 steps"
E = TypeVar("E", bound=StrEnum)
# libyaml's loader when PyYAML has it: the same safe subset, ~6x faster, so a large or deeply nested
# definition holds the event loop far less (a 400 kB flow list took 6.7 s in the Python loader).
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class DefinitionWarning:
    code: str
    message: str
    field: list[str]


def document_from_yaml(text: str, settings: Settings) -> tuple[Any, list[str]]:
    """The ``spec`` mapping of a YAML definition (with the name folded in) and its field path prefix."""
    size = len(text.encode())
    if size > settings.max_result_bytes:
        raise invalid(f"yaml is {size} bytes; the limit is {settings.max_result_bytes}", ["yaml"])
    try:
        doc = yaml.load(text, Loader=_SAFE_LOADER)
    except RecursionError:  # the pure-Python loader recurses once per level of nesting
        raise invalid("yaml is nested too deeply", ["yaml"]) from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        at = f" at line {where.line + 1}, column {where.column + 1}" if where is not None else ""
        raise invalid(f"yaml does not parse{at}: {getattr(exc, 'problem', None) or exc}", ["yaml"]) from None
    if not isinstance(doc, dict):
        raise invalid("yaml must be a mapping with spec.steps (or steps at the top)", ["yaml"])
    return unwrap_spec(doc, ["yaml"])


def unwrap_spec(doc: dict[str, Any], prefix: list[str]) -> tuple[Any, list[str]]:
    """A document's ``spec`` with ``metadata.name`` folded in (a stored definition has this form too),
    or the document itself when it has no ``spec``; and the field path prefix of what is returned."""
    if "spec" not in doc:
        return doc, prefix
    spec = doc["spec"]
    if not isinstance(spec, dict):
        raise invalid("spec must be a mapping", [*prefix, "spec"])
    metadata = doc.get("metadata")
    name = metadata.get("name") if isinstance(metadata, dict) else doc.get("name")
    return {"name": name, **spec} if name is not None and "name" not in spec else spec, [*prefix, "spec"]


def read_definition(
    doc: Any, settings: Settings, prefix: Sequence[str] = (), name: str | None = None
) -> tuple[WorkflowDefinition, list[DefinitionWarning]]:
    """Check a definition document; every problem at once as one ``ServiceError``."""
    reader = _Reader(list(prefix), settings)
    definition = reader.workflow(doc, name)
    reader.problems.raise_if_any()
    assert definition is not None
    warnings = []
    if len(definition.steps) > ADVISED_MAX_STEPS:
        warnings.append(
            DefinitionWarning(
                "TOO_MANY_STEPS",
                f"{len(definition.steps)} steps: seed 002 advises under {ADVISED_MAX_STEPS}; "
                "consider splitting it into sub-workflows",
                [*prefix, "steps"],
            )
        )
    return definition, warnings


class _Reader:
    def __init__(self, prefix: list[str], settings: Settings) -> None:
        self.prefix = prefix
        self.settings = settings
        self.problems = Problems()

    def bad(self, message: str, *path: str | int) -> None:
        self.problems.add(message, [*self.prefix, *(str(p) for p in path)])

    def text(
        self, value: Any, *path: str | int, required: bool = False, limit: int = SHORT_TEXT
    ) -> str | None:
        label = ".".join(str(p) for p in path)
        if value is None or value == "":
            if required:
                self.bad(f"{label} is required", *path)
            return None
        if not isinstance(value, str):
            self.bad(f"{label} must be a string", *path)
            return None
        if why := text_problem_for(value, limit):
            self.bad(f"{label} {why}", *path)
            return None
        if len(value.encode()) > limit:
            self.bad(f"{label} is longer than {limit} bytes", *path)
            return None
        return value

    def duration(self, value: Any, *path: str | int) -> timedelta | None:
        if value is None:
            return None
        if not isinstance(value, str):
            self.bad(f"{'.'.join(map(str, path))} must be a duration string like 30s, 5m or 1h30m", *path)
            return None
        try:
            return parse_duration(value)
        except BadDuration as exc:
            self.bad(f"{'.'.join(map(str, path))}: {exc}", *path)
            return None

    def choice(self, enum: type[E], value: Any, default: E, *path: str | int) -> E:
        if value is None:
            return default
        options = [e.value for e in enum]
        if isinstance(value, str) and value.lower() in options:
            return enum(value.lower())
        self.bad(f"{'.'.join(map(str, path))} must be one of {', '.join(options)}", *path)
        return default

    def mapping(self, value: Any, *path: str | int) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            return value
        self.bad(f"{'.'.join(map(str, path)) or 'the definition'} must be a mapping", *path)
        return None

    def sequence(self, value: Any, *path: str | int) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, list):
            return value
        self.bad(f"{'.'.join(map(str, path))} must be a list", *path)
        return []

    def workflow(self, doc: Any, name: str | None) -> WorkflowDefinition | None:
        spec = self.mapping(doc)
        if spec is None:
            return None
        name = self.text(name if name is not None else spec.get("name"), "name", required=True) or ""
        policy = self.choice(FailurePolicy, spec.get("failurePolicy"), FailurePolicy.ABORT, "failurePolicy")
        timeout = self.duration(spec.get("timeout"), "timeout")
        raw_steps = self.sequence(spec.get("steps"), "steps")
        if not raw_steps:
            self.bad("a workflow needs at least one step", "steps")
        elif len(raw_steps) > self.settings.max_steps:
            self.bad(f"a workflow may have at most {self.settings.max_steps} steps", "steps")
            raw_steps = raw_steps[: self.settings.max_steps]
        steps = [self.step(raw, i, policy, len(raw_steps)) for i, raw in enumerate(raw_steps)]
        compensations = self.compensations(spec.get("compensation"), [s.name for s in steps])
        for p in validate_dag([DagNode(s.name, s.depends_on) for s in steps]):
            where = ["steps"] if p.index is None else ["steps", p.index, _DAG_FIELD[p.kind]]
            self.bad(p.message, *where)
        final = tuple(replace(s, compensation=compensations.get(s.name)) for s in steps)
        document = definition_document(name, final, timeout, policy)
        return WorkflowDefinition(name, final, timeout, policy, document)

    def step(self, raw: Any, i: int, policy: FailurePolicy, count: int) -> StepDefinition:
        step = self.mapping(raw, "steps", i) or {}
        known = {
            "name",
            "dependsOn",
            "agent",
            "timeout",
            "heartbeatTimeout",
            "onFailure",
            "retryPolicy",
            "approval",
        }
        for key in sorted(set(step) - known, key=str):
            self.bad(
                f"steps.{i}: unknown field {shown(key)} (known: {', '.join(sorted(known))})", "steps", i, key
            )
        name = self.text(step.get("name"), "steps", i, "name", required=True) or f"#{i + 1}"
        deps = self.sequence(step.get("dependsOn"), "steps", i, "dependsOn")
        if len(deps) > count:
            self.bad(
                f'step "{name}" lists more dependencies than the workflow has steps', "steps", i, "dependsOn"
            )
            deps = []
        depends_on = tuple(
            d for j, d in enumerate(deps) if self.text(d, "steps", i, "dependsOn", j, required=True)
        )
        approval = step.get("approval", False)
        if not isinstance(approval, bool):
            self.bad(f'step "{name}": approval must be true or false', "steps", i, "approval")
            approval = False
        default_on_failure = OnFailure(policy.value)
        on_failure = self.choice(
            OnFailure, step.get("onFailure"), default_on_failure, "steps", i, "onFailure"
        )
        agent = self.text(step.get("agent"), "steps", i, "agent")
        retry = self.retry_policy(step.get("retryPolicy"), i)
        if approval and (agent is not None or retry is not None):
            self.bad(
                f'step "{name}" is an approval gate: a reviewer decides it, so it takes no agent or '
                "retryPolicy",
                "steps",
                i,
                "approval",
            )
        timeout = self.duration(step.get("timeout"), "steps", i, "timeout")
        heartbeat = self.duration(step.get("heartbeatTimeout"), "steps", i, "heartbeatTimeout")
        if approval and heartbeat is not None:
            why = "no worker heartbeats a gate, so it takes no heartbeatTimeout"
            self.bad(f'step "{name}" is an approval gate: {why}', "steps", i, "heartbeatTimeout")
        return StepDefinition(name, depends_on, agent, timeout, on_failure, retry, approval, None, heartbeat)

    def retry_policy(self, raw: Any, i: int) -> RetryPolicy | None:
        if raw is None:
            return None
        path: tuple[str | int, ...] = ("steps", i, "retryPolicy")
        policy = self.mapping(raw, *path)
        if policy is None:
            return None
        default = DEFAULT_RETRY_POLICY
        max_retries = policy.get("maxRetries", default.max_retries)
        if (
            isinstance(max_retries, bool)
            or not isinstance(max_retries, int)
            or not 0 <= max_retries <= MAX_RETRIES_LIMIT
        ):
            self.bad(f"maxRetries must be a whole number from 0 to {MAX_RETRIES_LIMIT}", *path, "maxRetries")
            max_retries = 0
        backoff = self.choice(Backoff, policy.get("backoff"), default.backoff, *path, "backoff")
        initial = self.duration(policy.get("initialDelay"), *path, "initialDelay") or default.initial_delay
        cap = self.duration(policy.get("maxDelay"), *path, "maxDelay")
        if cap is not None and cap < initial:
            self.bad("maxDelay must not be shorter than initialDelay", *path, "maxDelay")
            cap = None
        retry_on = {ErrorCategory.TRANSIENT}
        for j, raw_category in enumerate(self.sequence(policy.get("retryOn"), *path, "retryOn")):
            category = self.choice(ErrorCategory, raw_category, ErrorCategory.TRANSIENT, *path, "retryOn", j)
            if category is not ErrorCategory.TRANSIENT and category not in CONFIGURABLE:
                self.bad(f"{category} errors are never retried (seed 002 §3.1)", *path, "retryOn", j)
                continue
            retry_on.add(category)
        # Each refusal above was recorded and its value replaced by one the policy accepts, so the
        # rest of the definition is still checked; the recorded problems refuse the whole input.
        return RetryPolicy(max_retries, backoff, initial, cap, frozenset(retry_on))

    def compensations(self, raw: Any, step_names: list[str]) -> dict[str, Compensation]:
        found: dict[str, Compensation] = {}
        for j, item in enumerate(self.sequence(raw, "compensation")):
            entry = self.mapping(item, "compensation", j) or {}
            step = self.text(entry.get("step"), "compensation", j, "step", required=True)
            action = self.text(
                entry.get("action"),
                "compensation",
                j,
                "action",
                required=True,
                limit=self.settings.max_text_bytes,
            )
            agent = self.text(entry.get("agent"), "compensation", j, "agent", required=True)
            if step is None:
                continue
            if step not in step_names:
                self.bad(
                    f'compensation names step "{step}", which is not a step of this workflow',
                    "compensation",
                    j,
                    "step",
                )
            elif step in found:
                self.bad(f'step "{step}" has two compensation entries', "compensation", j, "step")
            elif action is not None and agent is not None:
                found[step] = Compensation(action, agent)
        return found


_DAG_FIELD = {
    DagProblemKind.DUPLICATE_NAME: "name",
    DagProblemKind.DUPLICATE_DEPENDENCY: "dependsOn",
    DagProblemKind.UNKNOWN_DEPENDENCY: "dependsOn",
    DagProblemKind.CYCLE: "dependsOn",
    DagProblemKind.NO_ROOT: "dependsOn",
    DagProblemKind.UNREACHABLE: "dependsOn",
}
