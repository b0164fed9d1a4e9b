"""The floor's reference servers: what a request costs in the libraries alone, without Flightdeck.

``python -m bench.floor_apps starlette|strawberry PORT`` serves, under uvicorn with exactly the options
``flightdeck serve`` uses (``server.cli.uvicorn_options``: the same loop, HTTP parser, logging and access
log) the same garbage-collector threshold and the same lean log records:

- ``starlette``: a bare Starlette app whose ``POST /graphql`` answers a fixed JSON body;
- ``strawberry``: a stock Strawberry app (its own ASGI ``GraphQL`` view, no middleware) with a one-field
  schema and Strawberry's own parse and validation caches, which answers ``{ __typename }``.

Both answer ``GET /healthz`` so that ``ServerProcess``-style readiness works.
"""

from __future__ import annotations

import gc
import sys

import strawberry
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from strawberry.asgi import GraphQL
from strawberry.extensions import ParserCache, ValidationCache

from server.cli import uvicorn_options
from server.config import load_settings
from server.logs import lean_records


async def _health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _json(request: Request) -> Response:
    await request.body()
    return JSONResponse({"data": {"__typename": "Query"}})


def starlette_app() -> Starlette:
    return Starlette(routes=[Route("/healthz", _health), Route("/graphql", _json, methods=["POST"])])


@strawberry.type
class Query:
    @strawberry.field
    def version(self) -> str:
        return "1"


def strawberry_app() -> Starlette:
    schema = strawberry.Schema(Query, extensions=[ParserCache(maxsize=256), ValidationCache(maxsize=256)])
    return Starlette(
        routes=[Route("/healthz", _health), Route("/graphql", GraphQL(schema), methods=["POST"])]
    )


def main() -> None:
    kind, port = sys.argv[1], int(sys.argv[2])
    app = {"starlette": starlette_app, "strawberry": strawberry_app}[kind]()
    settings = load_settings(host="127.0.0.1", port=port)
    gc.set_threshold(settings.gc_threshold, *gc.get_threshold()[1:])
    lean_records()
    uvicorn.run(app, **uvicorn_options(settings))


if __name__ == "__main__":
    main()
