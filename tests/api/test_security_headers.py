"""Browser security headers on the dashboard, GraphiQL, static assets and API answers."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from urllib.parse import urlsplit

import httpx
import pytest

from server.graphiql import FRONTEND_DIST
from server.security_headers import content_security_policy
from tests.conftest import LiveServer


def _directives(policy: str) -> dict[str, str]:
    return {d.split(" ", 1)[0]: d.split(" ", 1)[1] for d in (p.strip() for p in policy.split(";")) if d}


def _asset() -> str:
    built = sorted((FRONTEND_DIST / "assets").glob("index-*.js"))
    assert built, "dashboard missing: run `make frontend`"
    return f"/static/assets/{built[0].name}"


@pytest.fixture
def http(live_server: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        yield client


@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/", "text/html"),
        ("/graphql", "text/html"),  # GraphiQL
        ("ASSET", "*/*"),
        ("/graphql?query=%7B__typename%7D", "application/json"),
        ("/static/no-such-file.js", "*/*"),
        ("/healthz", "*/*"),
    ],
)
def test_every_answer_carries_the_security_headers(
    live_server: LiveServer, http: httpx.Client, path: str, accept: str
) -> None:
    path = _asset() if path == "ASSET" else path
    answer = http.get(path, headers={"accept": accept})
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    policy = _directives(answer.headers["content-security-policy"])
    host = urlsplit(live_server.url).netloc
    assert policy["frame-ancestors"] == "'none'"
    assert policy["script-src"] == "'self'"
    assert policy["default-src"] == "'self'"
    assert policy["connect-src"] == f"'self' ws://{host} wss://{host}"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'none'"
    assert policy["worker-src"] == "'self'"
    graphiql = path == "/graphql" and accept == "text/html"
    # Only GraphiQL's editor needs inline styles (docs/decisions/0014-authentication-and-browser-security.md);
    # nothing may run inline scripts.
    assert policy["style-src"] == ("'self' 'unsafe-inline'" if graphiql else "'self'")
    assert "unsafe-eval" not in answer.headers["content-security-policy"]


def test_post_answers_carry_them_too(http: httpx.Client) -> None:
    answer = http.post("/graphql", json={"query": "{ __typename }"})
    assert answer.status_code == 200
    assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert answer.headers["x-content-type-options"] == "nosniff"


class _InlineFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name for name, _ in attrs}
        if tag == "style" or (tag == "script" and "src" not in names):
            self.inline.append(tag)
        self.inline.extend(f"{tag}[{name}]" for name in names if name == "style" or name.startswith("on"))


@pytest.mark.parametrize("path", ["/", "/graphql"])
def test_the_pages_have_no_inline_script_or_style(http: httpx.Client, path: str) -> None:
    answer = http.get(path, headers={"accept": "text/html"})
    assert answer.headers["content-type"].startswith("text/html")
    finder = _InlineFinder()
    finder.feed(answer.text)
    assert finder.inline == []


@pytest.mark.parametrize(
    "host", ["evil.example;script-src *", "a b", "x\tscript-src", "", "[::1]:80 'unsafe-inline'"]
)
def test_a_host_header_cannot_write_into_the_policy(host: str) -> None:
    policy = content_security_policy(host)
    assert _directives(policy)["connect-src"] == "'self'"
    assert re.search(r"script-src 'self'(;|$)", policy)
