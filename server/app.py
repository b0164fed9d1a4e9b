"""The ASGI application: GraphQL at /graphql, GraphiQL for browsers, the dashboard at /."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import timedelta
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .api.view import FlightdeckGraphQL
from .auth import Authenticator, count_active_keys, decide_dev_mode
from .clock import Clock, SystemClock
from .config import Settings, load_settings
from .db.engine import Database
from .db.migrate import head_revisions, upgrade_async
from .db.models import McpToolCallLog
from .graphiql import FRONTEND_DIST, render_graphiql
from .health import Readiness
from .hosts import is_loopback
from .key_watch import KeyWatch
from .loops.asset_expiry import expire_assets
from .loops.decision_deadlines import run_decision_deadlines
from .loops.retention import run_retention
from .loops.runner import Loop
from .loops.stalls import scan_stalls
from .loops.webhooks import WebhookDispatcher
from .loops.workflow_timers import run_workflow_timers
from .mcp.http import McpHttp
from .metrics import REGISTRY as METRICS
from .metrics import StateCollector
from .metrics_access import metrics_refusal
from .oauth import OAuthConfig, TokenVerifier, metadata_routes
from .oplog import OperationLogWriter
from .realtime import Notice, NoticeBus
from .request_layer import RequestLayer
from .security_headers import content_security_policy
from .services.operation_log import prune_logs
from .services.runtime import Runtime

logger = logging.getLogger(__name__)

# Open WebSockets are re-checked against their keys every auth_cache_seconds, but not more often.
MIN_KEY_WATCH_INTERVAL = 0.1


class McpEndpoint:
    """Streamable HTTP for MCP clients (server/mcp/http.py), made in the lifespan like GraphQL's view."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app.state.mcp(scope, receive, send)


class GraphQLEndpoint:
    """GraphiQL for a browser's GET; everything else is GraphQL."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        view: FlightdeckGraphQL = self.app.state.graphql
        if scope["type"] == "http" and scope["method"] == "GET" and view.runtime.settings.graphiql:
            request = Request(scope, receive)
            if "text/html" in request.headers.get("accept", "") and "query" not in request.query_params:
                policy = content_security_policy(request.headers.get("host"), inline_styles=True)
                page = HTMLResponse(render_graphiql(), headers={"content-security-policy": policy})
                await page(scope, receive, send)
                return
        await view(scope, receive, send)


def create_app(
    settings: Settings | None = None,
    clock: Clock | None = None,
    *,
    migrate: bool = True,
    freeze_gc: bool = False,
) -> Starlette:
    """The application. ``freeze_gc``: once started, exempt what start-up made from garbage collection
    (``flightdeck serve`` asks for it; a test process starting many apps does not)."""
    settings = settings or load_settings()
    clock = clock or SystemClock()
    oauth = OAuthConfig.from_settings(settings)
    app = Starlette(
        lifespan=_lifespan(settings, clock, oauth, migrate=migrate, freeze_gc=freeze_gc),
        middleware=_middleware(settings),
    )
    app.router.routes.extend(_routes(app, settings, oauth))
    return app


def _middleware(settings: Settings) -> list[Middleware]:
    """One layer of ours (request id, security headers, the dev-mode Host check, the WebSocket's own
    send): each middleware was a coroutine and a ``send`` wrapper more on every request."""
    return [Middleware(RequestLayer, allowed_hosts=settings.allowed_hosts)]


def _routes(app: Starlette, settings: Settings, oauth: OAuthConfig | None) -> list[BaseRoute]:
    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        reasons = await request.app.state.readiness.reasons()
        body = {"status": "unavailable" if reasons else "ready", "reasons": reasons}
        return JSONResponse(body, 503 if reasons else 200, headers={"cache-control": "no-store"})

    async def metrics(request: Request) -> Response:
        """Prometheus text for the operator (DESIGN.md rule 12): metrics span every tenant."""
        refused = metrics_refusal(
            request.headers.get("authorization"),
            settings.metrics_token,
            dev_mode=request.app.state.dev_mode,
            client=request.client.host if request.client else None,
        )
        if refused is not None:
            status, message, code = refused
            headers = {"WWW-Authenticate": "Bearer"} if status == 401 else {}
            return _refusal(status, message, code, headers)
        body = generate_latest(METRICS) + generate_latest(request.app.state.process_metrics)
        return Response(body, headers={"content-type": CONTENT_TYPE_LATEST, "cache-control": "no-store"})

    async def index(request: Request) -> Response:
        page = FRONTEND_DIST / "index.html"
        if page.is_file():
            return FileResponse(page)
        return RedirectResponse("/graphql")

    endpoint = GraphQLEndpoint(app)
    routes: list[BaseRoute] = [
        Route("/graphql", endpoint, methods=["GET", "POST"]),
        WebSocketRoute("/graphql", endpoint),
        Route("/mcp", McpEndpoint(app)),
        Route("/healthz", health),
        Route("/readyz", ready),
        Route("/metrics", metrics),
        Route("/", index),
        Mount("/static", StaticFiles(directory=FRONTEND_DIST, check_dir=False), name="static"),
    ]
    if oauth is not None:
        routes.extend(metadata_routes(oauth))
    return routes


def _loops(runtime: Runtime, key_watch: KeyWatch) -> list[Loop]:
    settings, clock, db = runtime.settings, runtime.clock, runtime.db
    return [
        Loop("stalls", settings.stall_scan_interval_seconds, lambda: scan_stalls(runtime)),
        Loop(
            "workflow-timers",
            settings.workflow_timer_interval_seconds,
            lambda: run_workflow_timers(runtime),
        ),
        Loop("asset-expiry", settings.asset_expiry_scan_interval_seconds, lambda: expire_assets(runtime)),
        Loop(
            "decision-deadlines",
            settings.decision_deadline_interval_seconds,
            lambda: run_decision_deadlines(runtime),
        ),
        Loop(
            "operation-log-retention",
            settings.operation_log_prune_interval_seconds,
            lambda: prune_logs(
                db,
                clock.now(),
                timedelta(days=settings.operation_log_max_age_days),
                settings.operation_log_max_rows,
            ),
        ),
        Loop("retention", settings.retention_interval_seconds, lambda: run_retention(runtime)),
        Loop(
            "key-revocations",
            max(settings.auth_cache_seconds, MIN_KEY_WATCH_INTERVAL),
            key_watch.run_once,
        ),
    ]


async def _open_runtime(settings: Settings, clock: Clock, *, migrate: bool) -> tuple[Runtime, bool]:
    """The database (migrated when asked), dev mode decided, the runtime and its operation logs."""
    if migrate:
        await upgrade_async(settings.database_url)
    db = Database(settings.database_url)
    try:
        dev_mode = await _decide_dev_mode(settings, db)
    except BaseException:
        await db.dispose()
        raise
    runtime = Runtime(db=db, clock=clock, settings=settings)
    if settings.operation_log:
        runtime.operation_log = OperationLogWriter(db)
        runtime.operation_log.start()
        runtime.tool_call_log = OperationLogWriter(db, model=McpToolCallLog)
        runtime.tool_call_log.start()
    return runtime, dev_mode


async def _start_bus(runtime: Runtime, webhooks: WebhookDispatcher | None) -> NoticeBus:
    """Commits here and other processes' notices wake the subscribers' feed and webhook deliveries."""

    def on_notice(n: Notice) -> None:
        runtime.feed.announce(n.tenant_id, n.seq)
        if webhooks is not None:
            webhooks.wake(n.tenant_id)

    def on_resync() -> None:
        runtime.feed.resync()
        if webhooks is not None:
            webhooks.wake_all()

    settings = runtime.settings
    bus = NoticeBus(
        settings.broadcast_url, settings.broadcast_channel, on_notice=on_notice, on_resync=on_resync
    )
    runtime.commit_listeners.append(bus.committed)
    await bus.start()
    return bus


def _lifespan(
    settings: Settings, clock: Clock, oauth: OAuthConfig | None, *, migrate: bool, freeze_gc: bool
) -> Callable[[Starlette], AbstractAsyncContextManager[None]]:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        runtime, dev_mode = await _open_runtime(settings, clock, migrate=migrate)
        db = runtime.db
        webhooks = WebhookDispatcher(runtime) if settings.webhooks else None
        bus = await _start_bus(runtime, webhooks)
        key_watch = KeyWatch(db, close_within=max(settings.auth_cache_seconds, 1.0))
        loops = _loops(runtime, key_watch)
        for loop in loops:
            loop.start()
        if webhooks is not None:
            runtime.commit_listeners.append(webhooks.committed)
            runtime.endpoint_listeners.append(webhooks.refresh)
            webhooks.start()
        app.state.readiness = Readiness(
            db,
            bus,
            loops,
            heads=head_revisions(),
            timeout=settings.ready_timeout_seconds,
            loop_slack=settings.ready_loop_slack_seconds,
        )
        app.state.runtime = runtime
        app.state.loop = asyncio.get_running_loop()
        app.state.bus = bus
        app.state.dev_mode = dev_mode
        authenticator = Authenticator(
            db,
            ttl=settings.auth_cache_seconds,
            dev_mode=dev_mode,
            tokens=TokenVerifier(oauth) if oauth is not None else None,
        )
        app.state.graphql = FlightdeckGraphQL(runtime, authenticator, key_watch)
        app.state.mcp = McpHttp(runtime, authenticator)
        app.state.process_metrics = CollectorRegistry(auto_describe=True)
        app.state.process_metrics.register(StateCollector(lambda: process_state(runtime)))
        if freeze_gc:
            # Modules, the schema and the caches are made; collections now walk only what requests
            # make, instead of every long-lived object again each time the oldest generation is due.
            gc.collect()
            gc.freeze()
        try:
            # The MCP SDK's session manager runs inside this lifespan: its tasks end before ours stop.
            async with app.state.mcp.run():
                yield
        finally:
            await _stop(runtime, loops, webhooks, bus)

    return lifespan


async def _stop(
    runtime: Runtime, loops: list[Loop], webhooks: WebhookDispatcher | None, bus: NoticeBus
) -> None:
    """uvicorn has already let in-flight requests finish; now stop the timers, publish what is pending,
    end the subscribers' tails and write the last operation log records."""
    for loop in loops:
        await loop.stop()
    if webhooks is not None:
        await webhooks.stop()
    await bus.stop()
    await runtime.feed.close()
    for writer in (runtime.operation_log, runtime.tool_call_log):
        if writer is not None:
            await writer.stop()
    await runtime.db.dispose()


def _refusal(status: int, message: str, code: str, headers: dict[str, str]) -> Response:
    return JSONResponse(
        {"errors": [{"message": message, "extensions": {"code": code}}]}, status, headers=headers
    )


def process_state(runtime: Runtime) -> dict[str, Any]:
    """What the scrape-time gauges read: connection pools and the operation-log queue."""
    pools = runtime.db.pool_state()
    log = runtime.operation_log
    return {
        "pools": pools,
        "oplog_queue": log.queue_depth if log is not None else 0,
        "oplog_dropped": log.dropped if log is not None else 0,
    }


async def _decide_dev_mode(settings: Settings, db: Database) -> bool:
    """Dev mode, once for the process's life: never re-decided when keys are created or revoked."""
    active = 0
    if settings.dev_mode == "auto" and settings.oauth_issuer:
        return False  # an issuer's access tokens are credentials: the server expects them
    if settings.dev_mode == "auto":
        try:
            active = await count_active_keys(db)
        except Exception as exc:
            # The server still starts (/readyz says what is wrong), but without knowing whether keys
            # exist it must not serve without authentication.
            logger.warning(
                "cannot count API keys (%s): starting with authentication required; restart once the "
                "database answers to decide on dev mode",
                type(exc).__name__,
            )
            return False
    dev_mode = decide_dev_mode(
        settings.dev_mode, active, is_loopback(settings.host), settings.allow_non_loopback_dev_mode
    )
    if dev_mode:
        why = "dev_mode is 'on'" if settings.dev_mode == "on" else "no API key was active at start-up"
        logger.warning(
            "dev mode (%s): requests without a key act as the 'default' tenant's admin, and only "
            "requests addressed to loopback names (or allowed_hosts) are answered. Keys created from now "
            "on work, but dev mode stays on until the server restarts.",
            why,
        )
    return dev_mode
