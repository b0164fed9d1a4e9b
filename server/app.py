"""The ASGI application: GraphQL at /graphql, GraphiQL for browsers, the dashboard at /."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Receive, Scope, Send

from .api.view import FlightdeckGraphQL
from .auth import Authenticator
from .clock import Clock, SystemClock
from .config import Settings, load_settings
from .db.engine import Database
from .db.migrate import head_revisions, upgrade_async
from .graphiql import FRONTEND_DIST, render_graphiql
from .health import Readiness
from .loops.asset_expiry import expire_assets
from .loops.runner import Loop
from .loops.stalls import scan_stalls
from .loops.workflow_timers import run_workflow_timers
from .oplog import OperationLogWriter
from .pubsub import Notice, NoticeBus
from .request_id import RequestIdMiddleware
from .services.runtime import Runtime


class GraphQLEndpoint:
    """GraphiQL for a browser's GET; everything else is GraphQL."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        view: FlightdeckGraphQL = self.app.state.graphql
        if scope["type"] == "http" and scope["method"] == "GET" and view.runtime.settings.graphiql:
            request = Request(scope, receive)
            if "text/html" in request.headers.get("accept", "") and "query" not in request.query_params:
                await HTMLResponse(render_graphiql())(scope, receive, send)
                return
        await view(scope, receive, send)


def create_app(
    settings: Settings | None = None, clock: Clock | None = None, *, migrate: bool = True
) -> Starlette:
    settings = settings or load_settings()
    clock = clock or SystemClock()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if migrate:
            await upgrade_async(settings.database_url)
        db = Database(settings.database_url)
        runtime = Runtime(db=db, clock=clock, settings=settings)
        if settings.operation_log:
            runtime.operation_log = OperationLogWriter(db)
            runtime.operation_log.start()
        bus = NoticeBus(
            settings.broadcast_url,
            settings.broadcast_channel,
            on_notice=lambda n: runtime.feed.announce(n.tenant_id, n.seq),
            on_resync=runtime.feed.resync,
        )
        runtime.commit_listeners.append(lambda tenant, seqs: bus.publish_nowait(Notice(tenant, max(seqs))))
        await bus.start()
        loops = [
            Loop("stalls", settings.stall_scan_interval_seconds, lambda: scan_stalls(runtime)),
            Loop(
                "workflow-timers",
                settings.workflow_timer_interval_seconds,
                lambda: run_workflow_timers(runtime),
            ),
            Loop("asset-expiry", settings.asset_expiry_scan_interval_seconds, lambda: expire_assets(runtime)),
        ]
        for loop in loops:
            loop.start()
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
        app.state.graphql = FlightdeckGraphQL(runtime, Authenticator(db, ttl=settings.auth_cache_seconds))
        try:
            yield
        finally:
            # uvicorn has already let in-flight requests finish; now stop the timers, publish what is
            # pending, end the subscribers' tails and write the last operation log records.
            for loop in loops:
                await loop.stop()
            await bus.stop()
            await runtime.feed.close()
            if runtime.operation_log is not None:
                await runtime.operation_log.stop()
            await db.dispose()

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def ready(request: Request) -> Response:
        reasons = await request.app.state.readiness.reasons()
        body = {"status": "unavailable" if reasons else "ready", "reasons": reasons}
        return JSONResponse(body, 503 if reasons else 200, headers={"cache-control": "no-store"})

    async def index(request: Request) -> Response:
        page = FRONTEND_DIST / "index.html"
        if page.is_file():
            return FileResponse(page)
        return RedirectResponse("/graphql")

    app = Starlette(
        lifespan=lifespan,
        middleware=[Middleware(RequestIdMiddleware)],
        routes=[
            Route("/healthz", health),
            Route("/readyz", ready),
            Route("/", index),
            Mount("/static", StaticFiles(directory=FRONTEND_DIST, check_dir=False), name="static"),
        ],
    )
    endpoint = GraphQLEndpoint(app)
    app.router.routes.insert(0, Route("/graphql", endpoint, methods=["GET", "POST"]))
    app.router.routes.insert(1, WebSocketRoute("/graphql", endpoint))
    return app
