"""The GraphiQL page: a small HTML shell around the npm-built bundle.

The JavaScript, CSS, fonts and Monaco workers are built by ``npm run build`` in
``frontend/`` into ``frontend/dist/graphiql/`` and served by Flightdeck itself,
so the IDE works on machines without internet access. The page has no inline script or style
(the Content-Security-Policy allows neither): its own CSS is ``frontend/graphiql/page.css``.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

FRONTEND_DIST: Path = Path(__file__).resolve().parent.parent / "frontend" / "dist"

_PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Flightdeck GraphiQL</title>
    <!-- An empty inline icon stops the browser asking for /favicon.ico. -->
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="{assets}/graphiql.css">
  </head>
  <body>
    <div id="graphiql" data-endpoint="{endpoint}">Loading GraphiQL&hellip;</div>
    <script type="module" src="{assets}/graphiql.js"></script>
  </body>
</html>
"""


def render_graphiql(endpoint: str = "/graphql", static_prefix: str = "/static") -> str:
    """Return the GraphiQL HTML page.

    ``endpoint`` is resolved by the browser against the page's own URL, so a
    path keeps HTTP and WebSocket traffic on the host that served the page.
    ``static_prefix`` is where ``FRONTEND_DIST`` is mounted.
    """
    assets = escape(static_prefix.rstrip("/") + "/graphiql", quote=True)
    return _PAGE.format(assets=assets, endpoint=escape(endpoint, quote=True))
