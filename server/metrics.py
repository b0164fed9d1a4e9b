"""Prometheus metrics of one server process, served at ``/metrics`` (docs/guides/operations.md).

Each process counts what it did itself; Prometheus scrapes every process and sums across them (the
``instance`` label tells them apart), which is the usual model for several independent servers and
needs no shared state. Metrics are the operator's (they span every tenant), never a tenant's. Labels are
closed sets or bounded: an operation is labelled by its root fields (schema names) unless the operator
lets clients' own operation names through, and either way only the first ``MAX_OPERATION_NAMES``
distinct labels get a series of their own and the rest count as ``other``.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

MAX_OPERATION_NAMES = 200
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
# A collection of a large old generation on a loaded machine takes seconds; those must not all land in +Inf.
GC_BUCKETS = (0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
WEBHOOK_LAG_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 1800, 3600, 7200, 18_000, 36_000, 86_400)
WEBHOOK_ATTEMPT_BUCKETS = (1, 2, 3, 4, 5, 6, 7, 8)

REGISTRY = CollectorRegistry(auto_describe=True)

OPERATIONS = Counter(
    "flightdeck_graphql_operations",
    "GraphQL operations answered, by name, type and outcome (ok, user_error, error).",
    ["operation", "type", "outcome"],
    registry=REGISTRY,
)
OPERATION_SECONDS = Histogram(
    "flightdeck_graphql_operation_duration_seconds",
    "Time from parse to answer of queries and mutations (a subscription's whole life is not timed).",
    ["operation", "type"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
USER_ERRORS = Counter(
    "flightdeck_user_errors", "userErrors returned by mutations, by code.", ["code"], registry=REGISTRY
)
TRANSITIONS = Counter(
    "flightdeck_transitions",
    "Committed state changes, by machine (entity), from-state and to-state.",
    ["machine", "from_state", "to_state"],
    registry=REGISTRY,
)
WEBSOCKETS = Gauge("flightdeck_websockets_open", "Open WebSocket connections.", registry=REGISTRY)
SUBSCRIPTIONS = Gauge(
    "flightdeck_subscriptions_active", "Running subscriptions, by root field.", ["kind"], registry=REGISTRY
)
DELIVERY_LAG = Histogram(
    "flightdeck_delivery_lag_seconds",
    "From an event's commit to its send to a subscriber (server clock).",
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
FEED_POLLS = Counter(
    "flightdeck_feed_fallback_polls",
    "Event-log re-reads because no change notice came within FLIGHTDECK_FEED_POLL_SECONDS.",
    registry=REGISTRY,
)
LOOP_RUNS = Counter(
    "flightdeck_loop_runs",
    "Background loop passes, by loop and outcome.",
    ["loop", "outcome"],
    registry=REGISTRY,
)
LOOP_ITEMS = Counter(
    "flightdeck_loop_items",
    "Items a background loop acted on (stalls, timeouts, ...).",
    ["loop"],
    registry=REGISTRY,
)
LOOP_ITEM_FAILURES = Counter(
    "flightdeck_loop_item_failures",
    "Items whose transaction failed in a background loop's pass (logged; the pass went on).",
    ["loop"],
    registry=REGISTRY,
)
LOOP_SECONDS = Histogram(
    "flightdeck_loop_duration_seconds",
    "Duration of one background loop pass.",
    ["loop"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
GC_PAUSES = Histogram(
    "flightdeck_gc_pause_seconds",
    "Garbage collections of this process (everything else waits for them), by generation.",
    ["generation"],
    buckets=GC_BUCKETS,
    registry=REGISTRY,
)
GC_CPU = Counter(
    "flightdeck_gc_cpu_seconds",
    "CPU time of the thread that ran each garbage collection (its pause on a busy machine is longer).",
    registry=REGISTRY,
)

MCP_TOOL_CALLS = Counter(
    "flightdeck_mcp_tool_calls",
    "MCP tool calls answered, by tool and outcome (ok, error: the tool refused; unknown_tool).",
    ["tool", "outcome"],
    registry=REGISTRY,
)
MCP_TOOL_SECONDS = Histogram(
    "flightdeck_mcp_tool_call_duration_seconds",
    "Time from an MCP tool call's arrival to its answer.",
    ["tool"],
    buckets=LATENCY_BUCKETS,
    registry=REGISTRY,
)
WEBHOOK_DELIVERIES = Counter(
    "flightdeck_webhook_deliveries",
    "Webhook delivery attempts, by outcome (delivered, retry_scheduled, failed: no attempt left).",
    ["outcome"],
    registry=REGISTRY,
)
WEBHOOK_ATTEMPTS = Histogram(
    "flightdeck_webhook_delivery_attempts",
    "Attempts a delivery took, counted when it is delivered or fails for good.",
    ["outcome"],
    buckets=WEBHOOK_ATTEMPT_BUCKETS,
    registry=REGISTRY,
)
WEBHOOK_LAG = Histogram(
    "flightdeck_webhook_delivery_lag_seconds",
    "From an event's commit to its delivery to an endpoint (server clock), retries included.",
    buckets=WEBHOOK_LAG_BUCKETS,
    registry=REGISTRY,
)

_names: set[str] = set()
_names_lock = threading.Lock()
_gc_started: list[float] = []


def _time_gc(phase: str, info: dict[str, int]) -> None:
    if phase == "start":
        _gc_started[:] = [time.perf_counter(), time.thread_time()]
    elif _gc_started:
        wall, cpu = _gc_started
        _gc_started.clear()
        GC_PAUSES.labels(str(info["generation"])).observe(time.perf_counter() - wall)
        GC_CPU.inc(time.thread_time() - cpu)


def watch_gc() -> None:
    """Time every garbage collection into ``GC_PAUSES`` (once per process; ``flightdeck serve`` calls it)."""
    if _time_gc not in gc.callbacks:
        gc.callbacks.append(_time_gc)


def operation_label(name: str | None) -> str:
    """The label while fewer than MAX_OPERATION_NAMES are known, else ``other``."""
    if not name:
        return "anonymous"
    if name in _names:  # a known name: no lock (a set is only ever added to, under the lock)
        return name
    with _names_lock:
        if name in _names:
            return name
        if len(_names) < MAX_OPERATION_NAMES:
            _names.add(name)
            return name
    return "other"


# Each series' child, looked up once: ``labels()`` takes the metric's lock and checks its arguments on
# every call. Bounded as the labels are (MAX_OPERATION_NAMES names, three types, three outcomes).
_operation_counts: dict[tuple[str, str, str], Any] = {}
_operation_seconds: dict[tuple[str, str], Any] = {}


def record_operation(name: str | None, kind: str, seconds: float | None, outcome: str) -> None:
    label = operation_label(name)
    count = _operation_counts.get((label, kind, outcome))
    if count is None:
        count = _operation_counts[label, kind, outcome] = OPERATIONS.labels(label, kind, outcome)
    count.inc()
    if seconds is not None:
        timer = _operation_seconds.get((label, kind))
        if timer is None:
            timer = _operation_seconds[label, kind] = OPERATION_SECONDS.labels(label, kind)
        timer.observe(seconds)


def record_tool_call(tool: str | None, outcome: str, seconds: float) -> None:
    """``tool`` None: a name the server does not know (it is the client's text, so it gets no label)."""
    label = tool if tool is not None else "unknown"
    MCP_TOOL_CALLS.labels(label, outcome).inc()
    MCP_TOOL_SECONDS.labels(label).observe(seconds)


def record_webhook_attempt(outcome: str, attempts: int, lag_seconds: float | None) -> None:
    WEBHOOK_DELIVERIES.labels(outcome).inc()
    if outcome != "retry_scheduled":
        WEBHOOK_ATTEMPTS.labels(outcome).observe(attempts)
    if outcome == "delivered" and lag_seconds is not None:
        WEBHOOK_LAG.observe(max(lag_seconds, 0.0))


def record_user_errors(codes: Iterable[str]) -> None:
    for code in codes:
        USER_ERRORS.labels(code).inc()


# A child per edge, kept: ``labels()`` costs a lock and a tuple of the label values each call, several
# times the increment; the edges are bounded by the machines' tables.
_transition_counts: dict[tuple[str, str, str], Any] = {}


def record_transitions(changes: Iterable[tuple[str, str, str]]) -> None:
    for edge in changes:
        count = _transition_counts.get(edge)
        if count is None:
            count = _transition_counts[edge] = TRANSITIONS.labels(*edge)
        count.inc()


def record_loop_pass(loop: str, started: float, ok: bool, items: int) -> None:
    LOOP_RUNS.labels(loop, "ok" if ok else "error").inc()
    LOOP_SECONDS.labels(loop).observe(time.perf_counter() - started)
    if items:
        LOOP_ITEMS.labels(loop).inc(items)


def record_item_failure(loop: str) -> None:
    LOOP_ITEM_FAILURES.labels(loop).inc()


def items_of(result: Any) -> int:
    """How many items a loop's pass acted on: its length, or the sum of a result's list fields."""
    if isinstance(result, Sequence):
        return len(result)
    fields = getattr(result, "__dataclass_fields__", None)
    if fields:
        return sum(len(v) for v in (getattr(result, f) for f in fields) if isinstance(v, Sequence))
    return 0


class StateCollector(Collector):
    """Gauges read when scraped: database pools and the operation-log queue of this process."""

    def __init__(self, read: Callable[[], dict[str, Any]]) -> None:
        self._read = read

    def collect(self) -> Iterable[GaugeMetricFamily]:
        state = self._read()
        pools = GaugeMetricFamily(
            "flightdeck_db_pool_connections",
            "Database connections by pool (writer, reader) and state (in_use, idle, capacity).",
            labels=["pool", "state"],
        )
        for pool, counts in state.get("pools", {}).items():
            for name, value in counts.items():
                pools.add_metric([pool, name], value)
        yield pools
        queue = GaugeMetricFamily(
            "flightdeck_operation_log_queue_depth", "Operation log records waiting to be written."
        )
        queue.add_metric([], state.get("oplog_queue", 0))
        yield queue
        dropped = GaugeMetricFamily(
            "flightdeck_operation_log_dropped", "Operation log records dropped because the queue was full."
        )
        dropped.add_metric([], state.get("oplog_dropped", 0))
        yield dropped
