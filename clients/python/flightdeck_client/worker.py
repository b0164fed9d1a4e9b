"""A worker for Flightdeck workflow steps (seed 002): claim, heartbeat, complete or fail, undo.

    worker = Worker("http://127.0.0.1:8000", agent="data-pipeline")

    @worker.step("provision-workspace")
    async def provision(step: StepRun) -> dict:
        return {"workspace": "ws-1"}

    worker.run()   # until SIGTERM or SIGINT

It claims while it has free slots (``concurrency``), all the free slots in one call
(``claimWorkflowSteps``), runs each claimed step's handler with a heartbeat in
the background, and reports the result with the attempt it claimed, so a report for a step it lost
(its heartbeat timed out, another worker took the retry) is refused instead of overwriting. A finished
handler frees its slot at once; its completion goes with the claim that refills the slot
(``claimWorkflowSteps``' ``completed``: reported first, in the claim's transaction).
When nothing is claimable it sleeps until ``workAvailable`` wakes it, or until the claim's ``retryAt``,
or at most ``idle_poll`` seconds. SIGTERM stops claiming, lets running handlers finish for ``grace``
seconds, then cancels them and reports them failed as ``TRANSIENT`` so that the server retries them
elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import Any

import httpx

from .connection import connect, raise_for
from .errors import ClientError, category_of
from .generated.client import FlightdeckGraphQL
from .generated.enums import ClaimOutcome, WorkflowErrorCategory
from .generated.exceptions import GraphQLClientError
from .generated.fragments import ClaimedWork, CompensationFields, CompletionResults, StepFields
from .generated.input_types import StepCompletionInput

logger = logging.getLogger("flightdeck_client.worker")
UNDO_INTERRUPTED = "the worker shut down before the undo finished; its effect is unknown"
_BATCH = 100  # the most completions one completeWorkflowSteps request may carry (the server's limit)


@dataclass
class StepRun:
    """The step a handler runs: what it is, and a way to report progress with the next heartbeat."""

    step: StepFields
    agent: str
    progress: Any = None
    lost: asyncio.Event = field(default_factory=asyncio.Event)  # set when the step is no longer ours

    @property
    def id(self) -> str:
        return self.step.id

    @property
    def name(self) -> str:
        return self.step.name

    @property
    def attempt(self) -> int:
        return self.step.attempt

    @property
    def workflow_id(self) -> str:
        return self.step.workflow_id


StepHandler = Callable[[StepRun], Coroutine[Any, Any, Any]]
UndoHandler = Callable[[CompensationFields], Awaitable[None]]
Pending = tuple[StepCompletionInput, "asyncio.Future[list[Any]]"]  # a completion and who awaits its answer
# What a claim that could not reach the server, or was refused as a whole, raises: try again later.
_AWAY = (ClientError, GraphQLClientError, httpx.HTTPError, OSError, ValueError)


class Worker:
    def __init__(
        self,
        url: str | FlightdeckGraphQL,
        agent: str,
        *,
        token: str | None = None,
        concurrency: int = 4,
        workflow_id: str | None = None,
        heartbeat_seconds: float = 10.0,
        idle_poll: float = 30.0,
        wake_ups: bool = True,
        grace: float = 30.0,
    ) -> None:
        self._owns_client = isinstance(url, str)
        self.client = connect(url, token) if isinstance(url, str) else url
        self.agent = agent
        self.concurrency = concurrency
        self.workflow_id = workflow_id
        self.heartbeat_seconds = heartbeat_seconds
        self.idle_poll = idle_poll
        self.wake_ups = wake_ups
        self.grace = grace
        self.handlers: dict[str, StepHandler] = {}
        self.default_handler: StepHandler | None = None  # for steps without a handler of their own
        self.undo_handlers: dict[str, UndoHandler] = {}
        # For measurements: called with each successful claim's round trip, in seconds.
        self.on_claimed: Callable[[float], None] | None = None
        self._stopping = asyncio.Event()
        self._wake = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()
        self._completions: list[Pending] = []  # finished steps whose completion is not sent yet
        self._claiming = False  # while True, the claim loop sends the completions with its claims
        self._reporter: asyncio.Task[None] | None = None

    # -- registration --

    def step(self, name: str) -> Callable[[StepHandler], StepHandler]:
        """Register the handler of the steps called ``name``; what it returns is the step's output."""

        def register(fn: StepHandler) -> StepHandler:
            self.handlers[name] = fn
            return fn

        return register

    def undo(self, name: str) -> Callable[[UndoHandler], UndoHandler]:
        """Register the compensation of step ``name`` (it must be idempotent: seed 002 §4.2)."""

        def register(fn: UndoHandler) -> UndoHandler:
            self.undo_handlers[name] = fn
            return fn

        return register

    # -- running --

    def run(self) -> None:
        """Run until SIGTERM or SIGINT (the blocking entry point of a worker process)."""
        asyncio.run(self.serve())

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()

    async def serve(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self.stop)
        listener = asyncio.create_task(self._listen()) if self.wake_ups else None
        slots = asyncio.Semaphore(self.concurrency)
        self._claiming = True
        try:
            while not self._stopping.is_set():
                await slots.acquire()
                if self._stopping.is_set():
                    slots.release()
                    break
                wanted = 1
                while not slots.locked():  # every slot free now goes into the same claim
                    await slots.acquire()
                    wanted += 1
                self._wake.clear()  # before the claim: a wake-up during it is not lost
                try:
                    filled, retry_at = await self._claim(slots, wanted)
                except _AWAY as exc:  # the server is away: try again later
                    logger.warning("claim failed: %s", exc)
                    for _ in range(wanted):
                        slots.release()
                    filled, retry_at = False, None
                if not filled:  # nothing more to claim now: wait for a wake-up, a free slot or retryAt
                    await self._idle(retry_at)
        finally:
            self._claiming = False
            self._report_alone()  # no more claims to carry them
            await self._drain()
            if listener is not None:
                listener.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await listener
            if self._owns_client:
                await self.client.http_client.aclose()

    async def _claim(self, slots: asyncio.Semaphore, wanted: int) -> tuple[bool, datetime | None]:
        """Claim up to ``wanted`` pieces of work (one slot held for each) and start them; whether all
        ``wanted`` were handed out, and, when none was, when to come back (retryAt, or None). The
        completions waiting to be sent go first in the same request."""
        batch, self._completions = self._completions[:_BATCH], self._completions[_BATCH:]
        self._report_alone()  # more than one request holds (a worker with over 100 slots)
        sent = time.perf_counter()
        try:
            payload = await self._send_claim(batch, wanted)
        except BaseException as exc:
            # The whole request failed: on the server (the transaction that held the completions
            # rolled back, unless they spanned workflows and an earlier one committed) or on the way
            # (they may have run). The completions are reported failed, as a failed
            # completeWorkflowSteps would be.
            _settle(batch, exc)
            raise
        raise_for(payload.user_errors)
        started = 0
        for step in payload.steps:
            if self.on_claimed is not None:
                self.on_claimed(time.perf_counter() - sent)
            self._spawn(partial(self._run_step, StepRun(step, self.agent)), slots)
            started += 1
        if payload.outcome is ClaimOutcome.COMPENSATION and payload.compensation is not None:
            self._spawn(partial(self._run_undo, payload.compensation), slots)
            started += 1
        for _ in range(wanted - started):
            slots.release()
        return started == wanted, payload.retry_at if started == 0 else None

    async def _send_claim(self, batch: list[Pending], wanted: int) -> ClaimedWork:
        claimed = await self.client.claim_workflow_steps(
            self.agent, wanted, workflow_id=self.workflow_id, completed=[c for c, _ in batch] or None
        )
        payload = claimed.claim_workflow_steps
        _answer_each(batch, payload.completed)  # they stand even when the claim itself is refused
        return payload

    def _spawn(self, work: Callable[[Callable[[], None]], Awaitable[None]], slots: asyncio.Semaphore) -> None:
        freed = False

        def free() -> None:  # once: when the work is done, or earlier when only its report is left
            nonlocal freed
            if not freed:
                freed = True
                slots.release()
                self._wake.set()  # a free slot: look for more work

        async def run() -> None:
            try:
                await work(free)
            finally:
                free()

        task = asyncio.create_task(run())
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _idle(self, retry_at: datetime | None) -> None:
        wait = self.idle_poll
        if retry_at is not None:
            wait = min(wait, max(0.0, (retry_at - datetime.now(UTC)).total_seconds()))
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(wait):
                await self._wake.wait()

    async def _listen(self) -> None:
        """Follow workAvailable, resuming after the last seq seen; every wake-up sets ``_wake``."""
        after: int | None = None
        while not self._stopping.is_set():
            try:
                if after is None:
                    after = (await self.client.latest_seq()).latest_seq
                    self._wake.set()  # anything before the subscription: one more claim covers it
                async for item in self.client.work_available(self.agent, self.workflow_id, after):
                    after = item.work_available.seq
                    self._wake.set()
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection dropped: resume from `after`
                logger.info("workAvailable ended (%s); resuming", exc)
                await asyncio.sleep(1.0)

    async def _drain(self) -> None:
        """Let running work finish for ``grace`` seconds; then cancel it (it is reported TRANSIENT)."""
        if not self._running:
            return
        _done, pending = await asyncio.wait(set(self._running), timeout=self.grace)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)

    # -- one step, one compensation --

    async def _run_step(self, run: StepRun, free: Callable[[], None]) -> None:
        handler = self.handlers.get(run.name, self.default_handler)
        beats = asyncio.create_task(self._heartbeat(run))
        work: asyncio.Task[Any] | None = None
        try:
            if handler is None:
                raise LookupError(f"no handler for step {run.name!r} on this worker")
            work = asyncio.create_task(handler(run))
            lost = asyncio.create_task(run.lost.wait())
            await asyncio.wait({work, lost}, return_when=asyncio.FIRST_COMPLETED)
            lost.cancel()
            if run.lost.is_set():
                work.cancel()
                logger.warning("step %s (attempt %s) is no longer ours; dropped", run.id, run.attempt)
                return
            output = work.result()
        except asyncio.CancelledError:
            if work is not None:
                work.cancel()
            await self._fail(run, WorkflowErrorCategory.TRANSIENT, "the worker shut down")
            raise
        except Exception as exc:
            await self._fail(run, category_of(exc), f"{type(exc).__name__}: {exc}")
            return
        finally:
            beats.cancel()
        free()  # the handler is done: its slot goes to the next claim, which carries this completion
        self._note(await self._complete(run, output), run)

    async def _complete(self, run: StepRun, output: Any) -> list[Any]:
        """Report the step completed; its userErrors. While the worker claims, the completion goes with
        its next claim (the step's freed slot wakes the claim loop); once it stops claiming, completions
        that finish while another report is on its way go together in the next request. Either way
        ``completeWorkflowSteps``: each still checked and answered on its own; one workflow's run of
        them is one transaction on the server."""
        done: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # seen, even if we are cancelled
        self._completions.append(
            (StepCompletionInput(stepId=run.id, attempt=run.attempt, output=output), done)
        )
        if not self._claiming:
            self._report_alone()
        return await asyncio.shield(done)  # a cancelled handler does not take the others' report with it

    def _report_alone(self) -> None:
        """Send the waiting completions without a claim (the worker is stopping), unless already on it."""
        if self._completions and (self._reporter is None or self._reporter.done()):
            self._reporter = asyncio.create_task(self._report_completions())

    async def _report_completions(self) -> None:
        while self._completions:
            batch, self._completions = self._completions[:_BATCH], self._completions[_BATCH:]
            try:
                sent = await self.client.complete_workflow_steps(self.agent, [c for c, _ in batch])
            except Exception as exc:  # every completion of the batch sees the failure
                _settle(batch, exc)
                continue
            _answer(batch, sent.complete_workflow_steps)

    async def _fail(self, run: StepRun, category: WorkflowErrorCategory, message: str) -> None:
        payload = await self.client.fail_workflow_step(
            run.id, self.agent, category, message[:4000], run.attempt
        )
        self._note(payload.fail_workflow_step.user_errors, run)

    def _note(self, errors: list[Any], run: StepRun) -> None:
        if errors:  # the step was taken from us (timed out, cancelled): nothing to do but say so
            logger.warning("report for step %s refused: %s", run.id, errors[0].message)

    async def _heartbeat(self, run: StepRun) -> None:
        every = self.heartbeat_seconds
        if run.step.heartbeat_timeout_seconds:
            every = min(every, run.step.heartbeat_timeout_seconds / 3)
        while True:
            await asyncio.sleep(every)
            try:
                payload = await self.client.heartbeat_workflow_step(
                    run.id, self.agent, run.attempt, run.progress
                )
            except Exception as exc:  # one lost heartbeat is not fatal; the deadline leaves room for more
                logger.info("heartbeat for %s failed: %s", run.id, exc)
                continue
            if payload.heartbeat_workflow_step.user_errors:
                run.lost.set()
                return

    async def _run_undo(self, compensation: CompensationFields, free: Callable[[], None]) -> None:
        handler = self.undo_handlers.get(compensation.step_name)
        try:
            if handler is None:
                raise LookupError(f"no undo handler for step {compensation.step_name!r} on this worker")
            await handler(compensation)
        except asyncio.CancelledError:
            # Shut down past the grace: left RUNNING it would be stuck (a compensation has no timeout and
            # is handed out once), so it is reported failed like any failed undo: the workflow ends FAILED,
            # partially rolled back, for an operator to finish
            # (docs/decisions/0035-sqlite-connections-timers-shutdown.md).
            await self._fail_undo(compensation, UNDO_INTERRUPTED)
            raise
        except Exception as exc:
            await self._fail_undo(compensation, f"{type(exc).__name__}: {exc}")
            return
        done = await self.client.complete_workflow_compensation(compensation.id, self.agent)
        raise_for(done.complete_workflow_compensation.user_errors)

    async def _fail_undo(self, compensation: CompensationFields, message: str) -> None:
        failed = await self.client.fail_workflow_compensation(compensation.id, self.agent, message[:4000])
        raise_for(failed.fail_workflow_compensation.user_errors)


def _answer(batch: list[Pending], payload: CompletionResults) -> None:
    """Hand each completion its own userErrors (or the whole request's refusal)."""
    try:
        raise_for(payload.user_errors)
    except ClientError as exc:
        _settle(batch, exc)
        return
    _answer_each(batch, payload.results)


def _answer_each(batch: list[Pending], results: Sequence[Any]) -> None:
    """Hand each completion the userErrors of its own result (one per completion, in order)."""
    for (_, done), result in zip(batch, results, strict=True):
        if not done.done():
            done.set_result(result.user_errors)


def _settle(batch: list[Pending], exc: BaseException) -> None:
    for _, done in batch:
        if not done.done():
            done.set_exception(exc if isinstance(exc, Exception) else ClientError("CANCELLED", str(exc)))
