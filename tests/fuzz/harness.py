"""Sends requests to the target and judges each answer; tallies what it saw for the fuzz report."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy.ext.asyncio import create_async_engine

from tests.realtime.processes import end_process, spawn

from .known import open_class
from .oracle import Request, Verdict, judge
from .target import Rows, Target, changed_tables, ids_in, snapshot

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "fuzz"
GRAPHQL_RESPONSE = "application/graphql-response+json"
ANSWER_WITHIN = 30.0  # a request that has no answer by then is a failure of its own
# A request that keeps the server busy is what starves everyone else. Its cost is read as the CPU this
# process spent while it was in flight (the server runs in this process; its database threads too, on
# SQLite): a loaded machine stretches wall-clock answers several times but not CPU time, so the bound
# holds there, while an input that sends a matcher or a validator into a loop still burns far past it.
REQUEST_CPU_WITHIN = 1.0
HEALTH_WITHIN = 1.0  # a health probe slower than this is counted (a figure, not a failure)
ID_POOL_LIMIT = 2000


@dataclass
class Failure:
    problems: list[str]
    reproducer: str
    open_class: str | None  # the open class of defect that explains it, if any


@dataclass
class Tally:
    target: str
    seed: int | None = None
    operations: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    user_errors: Counter[str] = field(default_factory=Counter)
    fields: Counter[str] = field(default_factory=Counter)
    accepted: Counter[str] = field(default_factory=Counter)
    by_credential: Counter[str] = field(default_factory=Counter)
    refusals: int = 0
    failures: list[Failure] = field(default_factory=list)
    probes: int = 0
    slow_probes: int = 0
    slowest_probe: float = 0.0
    probe_failures: list[str] = field(default_factory=list)
    idle_slow_probes: int = 0
    failing_cases: dict[str, list[str]] = field(default_factory=dict)  # corpus case -> its problems

    def absorb(self, samples: list[Sample], during: Callable[[Sample], str | None]) -> list[str]:
        """Counts probe samples; returns (and keeps) one line per unanswered one that waited on a request.

        A probe that failed while no request of ours was in flight cannot be laid at any input's door.
        Slow probes are counted, not failed: their latency is the machine's load as much as the
        server's (``send`` bounds each request's CPU instead).
        """
        self.probes += len(samples)
        self.slow_probes += sum(1 for s in samples if s.took > HEALTH_WITHIN)
        self.slowest_probe = max([self.slowest_probe, *(s.took for s in samples)])
        failed = []
        for sample in (s for s in samples if not s.healthy):
            culprit = during(sample)
            if culprit is None:
                self.idle_slow_probes += 1
            else:
                failed.append(f"{sample.what} took {sample.took:.2f}s ({sample.status}) during {culprit}")
        self.probe_failures += failed
        return failed

    def record(self, request: Request, verdict: Verdict, failure: Failure | None) -> None:
        self.operations[request.kind] += 1
        self.statuses[verdict.status] += 1
        self.by_credential[f"{request.who} {verdict.status}"] += 1
        self.user_errors.update(verdict.user_error_codes)
        self.fields[request.label] += 1
        if verdict.refused:
            self.refusals += 1
        elif request.kind in ("mutation", "query", "corpus"):
            self.accepted[request.label] += 1
        if failure is not None:
            self.failures.append(failure)

    @property
    def unexplained(self) -> list[Failure]:
        return [f for f in self.failures if f.open_class is None]

    def summary(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "seed": self.seed,
            "operations": sum(self.operations.values()),
            "by_kind": dict(self.operations),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "statuses_by_credential": dict(sorted(self.by_credential.items())),
            "user_errors": dict(self.user_errors.most_common()),
            "refusals_checked_unwritten": self.refusals,
            "root_fields": len(self.fields),
            "root_fields_accepted": len(self.accepted),
            "health_probes": self.probes,
            "slow_health_probes": self.slow_probes,
            "slowest_health_probe_s": round(self.slowest_probe, 3),
            "slow_probes_while_idle": self.idle_slow_probes,
            "failures": len(self.failures),
            "open_classes": dict(Counter(f.open_class for f in self.failures if f.open_class)),
            "unexplained": [{"problems": f.problems, "request": f.reproducer} for f in self.unexplained],
            "failing_corpus_cases": self.failing_cases,
            "examples_of_open_classes": {
                c: next(f.reproducer for f in self.failures if f.open_class == c)
                for c in {f.open_class for f in self.failures if f.open_class}
            },
        }

    def headline(self, path: Path) -> str:
        s = self.summary()
        return (
            f"{self.target}: {s['operations']} requests (seed {self.seed}), statuses {s['statuses']}, "
            f"{s['root_fields']} root fields ({s['root_fields_accepted']} answered without refusal), "
            f"{s['refusals_checked_unwritten']} refusals wrote nothing, "
            f"slowest of {self.probes} health probes {s['slowest_health_probe_s']}s -> {path}"
        )

    def write(self, name: str) -> Path:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        path = ARTIFACTS / f"{name}-{self.target.replace('/', '-')}.json"
        path.write_text(json.dumps(self.summary(), indent=2, ensure_ascii=True) + "\n")
        return path

    def explain(self) -> str:
        lines = [f"{len(self.failures)} failure(s) on {self.target}:"]
        for f in self.failures[:20]:
            lines.append(f"  [{f.open_class or 'NEW'}] {'; '.join(f.problems)}\n      {f.reproducer}")
        # Lone surrogates cannot travel to pytest-xdist's controller (nor be printed as UTF-8).
        return "\n".join(lines).encode("utf-8", "backslashreplace").decode("utf-8")


class Harness:
    """One client of the target: sends, judges, compares the database before and after."""

    def __init__(self, target: Target, tally: Tally) -> None:
        self.target = target
        self.tally = tally
        # Every id seen (what the ID scalar draws from), and the same ids by kind (to aim id arguments).
        self.id_pool: list[str] = []
        self.ids_by_kind: dict[str, list[str]] = {}
        self._seen_ids: set[str] = set()
        self._add_ids(target.seeded_ids)
        self._http: httpx.AsyncClient | None = None
        self._engine = create_async_engine(target.database_url)
        self._rows: Rows | None = None
        self.timeline: list[tuple[float, float, Request]] = []  # (sent, answered, request)

    async def __aenter__(self) -> Harness:
        self._http = httpx.AsyncClient(base_url=self.target.url, timeout=ANSWER_WITHIN)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._http is not None:
            await self._http.aclose()
        await self._engine.dispose()

    async def send(self, request: Request) -> tuple[Verdict, Failure | None]:
        assert self._http is not None
        before = self._rows if self._rows is not None else await snapshot(self._engine)
        headers = {
            "content-type": "application/json",
            "accept": GRAPHQL_RESPONSE,
            **self.target.headers(request.who),
            **request.headers,
        }
        headers = {k: v for k, v in headers.items() if v}
        sent = time.monotonic()
        cpu = time.process_time()
        try:
            if request.method == "GET":  # the body, if any, is the raw URL query
                params = (
                    request.body.decode()
                    if request.body is not None
                    else {
                        "query": request.query,
                        "variables": json.dumps(request.variables or {}),
                    }
                )
                response = await self._http.get("/graphql", params=params, headers=headers)
            else:
                response = await self._http.post("/graphql", content=request.encoded(), headers=headers)
            verdict = judge(
                request, response.status_code, response.content, response.headers.get("content-type", "")
            )
        except httpx.HTTPError as exc:
            verdict = Verdict(0, True, [f"no answer: {exc.__class__.__name__}"])
        cpu = time.process_time() - cpu
        self.timeline.append((sent, time.monotonic(), request))
        if cpu > REQUEST_CPU_WITHIN:
            verdict.problems.append(f"the server spent {cpu:.2f} s of CPU on it")
        after = await snapshot(self._engine)
        self._rows = after
        may_write = request.kind in ("mutation", "setup") or request.writes
        if verdict.refused or not may_write:
            changed = changed_tables(before, after)
            if changed:
                what = "a refusal" if verdict.refused else "a query"
                verdict.problems.append(f"{what} wrote to {', '.join(changed)}")
        self._harvest(verdict.body)
        failure = None
        if verdict.problems:
            klass = open_class(request, verdict, self.target.database)
            failure = Failure(verdict.problems, request.reproducer(), klass)
        self.tally.record(request, verdict, failure)
        return verdict, failure

    def during(self, sample: Sample) -> str | None:
        """The requests that were in flight while ``sample`` waited for its answer (None: none was)."""
        end = sample.sent + sample.took
        overlapping = [r for sent, answered, r in self.timeline if sent <= end and answered >= sample.sent]
        return "; ".join(r.reproducer(200) for r in overlapping[-2:]) or None

    def _harvest(self, body: Any) -> None:
        self._add_ids(ids_in(body.get("data") if isinstance(body, dict) else None))

    def _add_ids(self, found: list[tuple[str | None, str]]) -> None:
        for kind, value in found:
            if value not in self._seen_ids and len(self.id_pool) < ID_POOL_LIMIT:
                self._seen_ids.add(value)
                self.id_pool.append(value)
                if kind is not None:
                    self.ids_by_kind.setdefault(kind, []).append(value)


@dataclass
class Sample:
    what: str
    sent: float  # time.monotonic() in the probe's process (the same clock as here)
    took: float
    ok: bool
    status: str

    @property
    def healthy(self) -> bool:
        return self.ok


class HealthProbe:
    """A process of its own (pinger.py) that asks the target how it is, every ``every`` seconds."""

    def __init__(self, target: Target, log: Path, every: float = 0.05) -> None:
        self.target = target
        self.log = log
        self.every = every
        self._proc: subprocess.Popen[bytes] | None = None
        self._returned = 0

    def __enter__(self) -> HealthProbe:
        token = self.target.tokens.get(self.target.reader) or ""
        argv = [sys.executable, "-m", "tests.fuzz.pinger", self.target.url, token, str(self.every)]
        self._proc = spawn(argv, dict(os.environ), self.log)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            end_process(self._proc)

    def _samples(self) -> list[Sample]:
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [Sample(**json.loads(line)) for line in lines if line.startswith("{") and line.endswith("}")]

    async def settle(self, wait: bool = True, within: float = 2 * ANSWER_WITHIN) -> list[Sample]:
        """The samples answered since the last call (each sample is returned once).

        With ``wait``, first waits until the probe has sent one after now, so that a probe request
        that was in flight, slow because the server was stuck, is among them. A short step of the
        test need not wait: a stuck server makes its own request slow, and whatever the probe has
        still in flight is returned by the next call.
        """
        now = time.monotonic()
        deadline = now + within
        while wait:
            samples = self._samples()
            if any(s.sent > now for s in samples[self._returned :]):
                break
            assert self._proc is not None
            assert self._proc.poll() is None, "the health probe died"
            if time.monotonic() > deadline:
                return [Sample("any", now, within, False, f"no answer within {within:.0f}s")]
            await asyncio.sleep(0.01)
        samples = self._samples()
        fresh, self._returned = samples[self._returned :], len(samples)
        return fresh


def fuzz_examples(default: int) -> int:
    """How many operations to generate; FLIGHTDECK_FUZZ_EXAMPLES runs more (or fewer) by hand."""
    return int(os.environ.get("FLIGHTDECK_FUZZ_EXAMPLES", default))
