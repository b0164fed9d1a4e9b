"""Settings: command-line flags, then the environment (``FLIGHTDECK_*``; ``DATABASE_URL`` and
``BROADCAST_URL`` also bare), then a TOML file (``--config`` / ``FLIGHTDECK_CONFIG``), then defaults."""

from __future__ import annotations

import difflib
import os
import re
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from .config_checks import check_broadcast_url, check_database_url, describe_range
from .hosts import check_allowed_host

CONFIG_ENV = "FLIGHTDECK_CONFIG"
_SECRETS = frozenset({"metrics_token"})
_USERINFO_PASSWORD = re.compile(r"(://[^/:@]*:)[^/@]*@")
# pydantic's error types for a number outside its field's range (the message then states the range).
_RANGE_ERRORS = frozenset(
    {"greater_than", "greater_than_equal", "less_than", "less_than_equal", "finite_number"}
)
MIB = 1024 * 1024
YEAR_SECONDS = 365 * 86_400
MAX_CONFIG_BYTES = 1024 * 1024

# The values read from the configuration file for the Settings being built (load_settings sets it).
_file_values: ContextVar[dict[str, Any] | None] = ContextVar("flightdeck_config_file_values", default=None)


class ConfigError(Exception):
    """The configuration file or a setting cannot be used; the message says which and why."""


class _ConfigFileSource(PydanticBaseSettingsSource):
    """The configuration file's values, below the environment and above the defaults."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        values = _file_values.get() or {}
        # A field with environment aliases is populated through its first alias, not its name.
        return {_input_key(name): values[name] for name in values}


def _input_key(name: str) -> str:
    alias = Settings.model_fields[name].validation_alias
    if isinstance(alias, AliasChoices):
        first = alias.choices[0]
        return first if isinstance(first, str) else name
    return name


class Settings(BaseSettings):
    # Every number has a finite range (docs/reference/settings.md states it); inf and nan are never one.
    model_config = SettingsConfigDict(env_prefix="FLIGHTDECK_", extra="ignore", allow_inf_nan=False)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _ConfigFileSource(settings_cls))

    database_url: str = Field(
        default="sqlite+aiosqlite:///./flightdeck.db",
        validation_alias=AliasChoices("FLIGHTDECK_DATABASE_URL", "DATABASE_URL"),
        description=(
            "SQLAlchemy async URL: `sqlite+aiosqlite:///path` or `postgresql+asyncpg://user@host/db`."
        ),
    )
    broadcast_url: str = Field(
        default="memory://",
        validation_alias=AliasChoices("FLIGHTDECK_BROADCAST_URL", "BROADCAST_URL"),
        description=(
            "Where change notices go between server processes: `memory://` (one process), "
            "`redis://host:port/db` or `postgres://user@host/db`."
        ),
    )
    broadcast_channel: str = Field(
        default="flightdeck_events",
        min_length=1,
        max_length=63,
        description=(
            "Channel (Redis) or NOTIFY channel (PostgreSQL) for notices; processes that share it see each "
            "other's changes."
        ),
    )
    feed_poll_seconds: float = Field(
        default=2.0,
        ge=0.01,
        le=3600,
        description="A process whose subscribers heard no notice this long re-reads the event log anyway.",
    )
    feed_ring_size: int = Field(
        default=4096,
        ge=16,
        le=1_000_000,
        description=(
            "Newest events kept in memory per tenant for subscribers (older ones are read from the log)."
        ),
    )
    stall_scan_interval_seconds: float = Field(
        default=30.0, ge=0.01, le=86_400, description="How often the stall monitor looks for stalled steps."
    )
    workflow_timer_interval_seconds: float = Field(
        default=1.0,
        ge=0.01,
        le=3600,
        description=(
            "How often the workflow timer loop runs: retries whose back-off is over, step and workflow "
            "timeouts, queued workflows moving to `executing` when a slot is free."
        ),
    )
    workflow_slots_per_tenant: int = Field(
        default=10,
        ge=1,
        le=10_000,
        description=(
            "Workflows one tenant may have `executing`, `blocked` or `compensating` at once; further "
            "started ones wait in `queued`."
        ),
    )
    decision_deadline_interval_seconds: float = Field(
        default=5.0,
        ge=0.01,
        le=3600,
        description=(
            "How often the decision timer escalates decisions and applies the default outcome of those "
            "past their deadline."
        ),
    )
    asset_expiry_scan_interval_seconds: float = Field(
        default=15.0,
        ge=0.01,
        le=86_400,
        description="How often the asset TTL timer moves assets past their `expiresAt` to `EXPIRED`.",
    )
    legacy_graphql_ws: bool = Field(
        default=False,
        description=(
            "Also accept the legacy `graphql-ws` WebSocket protocol (off: it has had authentication "
            "CVEs); `graphql-transport-ws` is always on."
        ),
    )
    host: str = Field(default="127.0.0.1", description="Address `flightdeck serve` binds to.")
    port: int = Field(
        default=8000, ge=0, le=65_535, description="Port `flightdeck serve` listens on (0: any free port)."
    )
    stall_threshold_seconds: float = Field(
        default=30 * 60,
        gt=0,
        le=YEAR_SECONDS,
        description=(
            "A step in progress longer than this is stalled (a plan's own threshold and a per-call one "
            "take precedence)."
        ),
    )
    max_query_depth: int = Field(default=12, ge=1, le=100, description="Deepest selection a query may nest.")
    max_aliases: int = Field(default=30, ge=1, le=10_000, description="Most aliases one document may use.")
    max_tokens: int = Field(
        default=4000, ge=1, le=1_000_000, description="Most lexer tokens one document may have."
    )
    max_text_bytes: int = Field(
        default=64 * 1024,
        ge=1,
        le=16 * MIB,
        description="Longest instructions, summary, note or feedback (UTF-8 bytes).",
    )
    max_result_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        le=64 * MIB,
        description="Largest step result data, execution report or research output (bytes).",
    )
    max_steps: int = Field(default=200, ge=1, le=10_000, description="Most steps one plan may have.")
    max_schema_bytes: int = Field(
        default=64 * 1024,
        ge=1,
        le=16 * MIB,
        description="Largest JSON Schema a tool may declare for its parameters (bytes).",
    )
    schema_check_steps: int = Field(
        default=200_000,
        ge=1,
        le=1_000_000_000,
        description=(
            "Most work one check of a tool's schema or of a step's parameters against it may take (steps: "
            "docs/decisions/0011-hostile-schemas-logs-and-echoes.md); more is refused with "
            "`VALIDATION_FAILED`."
        ),
    )
    max_page_size: int = Field(
        default=100, ge=1, le=10_000, description="Hard cap on `first` for connections."
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description=(
            "JSON list of extra browser origins allowed to open WebSockets (the server's own origin, the "
            'same scheme, host and port, always is); `http(s)://host[:port]` each, never `"*"`.'
        ),
    )
    auth_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        le=3600,
        description=(
            "How long a key lookup is cached (a revoked key keeps working this long); open WebSockets are "
            "re-checked this often (at most 10 times a second) and closed with 4403 once their key is "
            "revoked."
        ),
    )
    graphiql: bool = Field(default=True, description="Serve GraphiQL at `GET /graphql`.")
    oauth_issuer: str | None = Field(
        default=None,
        description=(
            "An OAuth 2.1 authorization server (its issuer identifier) whose JWT access tokens `/mcp` and "
            "`/graphql` accept beside API keys (docs/guides/keys.md); unset: API keys only."
        ),
    )
    oauth_resource: str | None = Field(
        default=None,
        description=(
            "This server's URL as clients reach it (`https://flightdeck.example.com`): the audience "
            "tokens must name and the `resource` of `/.well-known/oauth-protected-resource`; needed with "
            "an issuer."
        ),
    )
    oauth_jwks_url: str | None = Field(
        default=None,
        description=(
            "Where the issuer publishes its signing keys; unset: its `jwks_uri`, from its OpenID Connect "
            "or RFC 8414 metadata."
        ),
    )
    oauth_algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "ES256"],
        description=(
            "Signature algorithms tokens may use; asymmetric only (`RS*`, `PS*`, `ES*`, `EdDSA`): `none` "
            "and `HS*` are refused at start-up."
        ),
    )
    oauth_tenants: list[str] = Field(
        default_factory=list,
        description=(
            "The tenants tokens may act for (needed with an issuer); a valid token naming another is "
            "refused with 403 `UNKNOWN_TENANT`."
        ),
    )
    oauth_tenant_claim: str = Field(
        default="tenant", min_length=1, description="The claim naming the token's tenant."
    )
    oauth_role_claim: str = Field(
        default="role",
        min_length=1,
        description="The claim naming its role: `agent`, `reviewer`, `viewer` or `admin`.",
    )
    oauth_agent_claim: str = Field(
        default="agent",
        min_length=1,
        description=(
            "The claim with the agent name (or list of names) it claims workflow work as; absent: any, as "
            "a key made without `--agent`."
        ),
    )
    oauth_leeway_seconds: float = Field(
        default=30,
        ge=0,
        le=300,
        description="Clock skew allowed when checking `exp` and `nbf` (at most 300).",
    )
    oauth_jwks_cache_seconds: float = Field(
        default=300,
        gt=0,
        le=86400,
        description=(
            "How long the issuer's keys are used before they are fetched again (kept while the issuer "
            "does not answer)."
        ),
    )
    oauth_jwks_refresh_seconds: float = Field(
        default=30,
        ge=0,
        le=3600,
        description=(
            "Least time between two fetches caused by tokens naming a key id the server does not know (a "
            "key rotation)."
        ),
    )

    @model_validator(mode="after")
    def _check_oauth(self) -> Settings:
        if not self.oauth_issuer:
            return self
        # Imported here: it loads the MCP SDK, aiohttp and PyJWT, which a server without OAuth and
        # every other command need not wait for.
        from .oauth import settings_problems

        if problems := settings_problems(self):
            raise ValueError("; ".join(problems))
        return self

    log_format: Literal["console", "json"] = Field(
        default="console",
        description=(
            "`console` lines, or `json`: one JSON object a line (`time`, `level`, `logger`, `message`, "
            "`request_id`, and for each GraphQL operation `tenant`, `operation`, `operation_type`, "
            "`duration_ms`, `outcome`), uvicorn's records included."
        ),
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="info", description="`debug`, `info`, `warning` or `error`."
    )
    operation_log: bool = Field(
        default=True, description="Record every GraphQL operation (name, type, duration, error flag)."
    )
    access_log: bool = Field(
        default=True,
        description=(
            "uvicorn's log line for every HTTP request (measured: ~9 µs of CPU a line; see Performance)."
        ),
    )
    gc_freeze: bool = Field(
        default=True,
        description=(
            "`flightdeck serve`: after start-up, exempt every object made so far from garbage collection "
            "(`gc.freeze`); see Performance."
        ),
    )
    gc_threshold: int = Field(
        default=700,
        ge=1,
        le=10_000_000,
        description=(
            "`flightdeck serve`: allocations between two collections of the youngest generation (Python's "
            "default); every collection is timed in `/metrics` (`flightdeck_gc_pause_seconds`)."
        ),
    )
    operation_log_max_age_days: float = Field(
        default=30,
        gt=0,
        le=3650,
        description=(
            "Operation log records older than this are deleted (by the server every prune interval, or "
            "`flightdeck ops prune`)."
        ),
    )
    operation_log_max_rows: int = Field(
        default=1_000_000,
        ge=1,
        le=10_000_000_000,
        description="The operation log keeps at most this many records; the oldest beyond go.",
    )
    operation_log_prune_interval_seconds: float = Field(
        default=600, ge=1, le=7 * 86_400, description="How often the server applies the two limits above."
    )
    ready_timeout_seconds: float = Field(
        default=2.0,
        gt=0,
        le=300,
        description="How long `/readyz` waits for the database before it answers 503.",
    )
    ready_loop_slack_seconds: float = Field(
        default=30.0,
        gt=0,
        le=86_400,
        description=(
            "`/readyz` reports a background loop late when none of its runs succeeded for its interval "
            "plus this long."
        ),
    )
    shutdown_grace_seconds: int = Field(
        default=30,
        ge=1,
        le=3600,
        description=(
            "On SIGTERM, how long in-flight requests may take to finish before they are cancelled (see "
            "docs/deployment.md)."
        ),
    )
    allow_non_loopback_dev_mode: bool = Field(
        default=False,
        description="Let dev mode (no API keys) bind beyond loopback. Leave it off.",
    )
    dev_mode: Literal["auto", "on", "off"] = Field(
        default="auto",
        description=(
            "Dev mode, decided once at start-up: `auto` = no active key and a loopback bind address; `on` "
            "= always; `off` = never (every request needs a key). Creating or revoking keys later does "
            "not change it."
        ),
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description=(
            "JSON list of host names (no port) a dev-mode server answers besides `localhost`, "
            "`*.localhost`, `127.0.0.0/8` and `[::1]`."
        ),
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        min_length=32,
        max_length=512,
        description=(
            "The operator's credential for `GET /metrics` (`Authorization: Bearer <token>`); no API key, "
            "even an admin's, reads metrics. Unset: only dev mode's loopback callers can."
        ),
    )
    metrics_operation_names: bool = Field(
        default=False,
        description=(
            "Label GraphQL operation metrics with the clients' own operation names (their free text); "
            "off: with the operation's root fields (`createResearchPlan`, `researchPlans`)."
        ),
    )
    webhooks: bool = Field(default=True, description="Deliver events to the tenants' webhook endpoints.")
    webhook_allow_private_targets: bool = Field(
        default=False,
        description=(
            "Let webhook URLs be, or resolve to, loopback, private, link-local or other non-public "
            "addresses (SSRF: leave off unless the receivers are yours)."
        ),
    )
    webhook_timeout_seconds: float = Field(
        default=10.0,
        gt=0,
        le=60,
        description="Longest one webhook request may take, connect to last byte read.",
    )
    webhook_max_response_bytes: int = Field(
        default=64 * 1024,
        ge=0,
        le=16 * MIB,
        description="Most of a webhook response's body read; the rest is dropped.",
    )
    webhook_poll_seconds: float = Field(
        default=1.0,
        ge=0.01,
        le=3600,
        description=(
            "How often delivery looks for new events and due retries without being woken by a commit."
        ),
    )
    webhook_lease_seconds: float = Field(
        default=30.0,
        gt=0,
        le=86_400,
        description=(
            "How long a process holds an endpoint (renewed while delivering; at least twice the timeout "
            "plus 2 s); another process takes over this long after the holder died."
        ),
    )
    webhook_batch_size: int = Field(
        default=100,
        ge=1,
        le=1000,
        description="Most events one delivery pass sends to an endpoint before recording them.",
    )
    webhook_parallel_requests: int = Field(
        default=1,
        ge=1,
        le=32,
        description=(
            "Requests in flight at once to one webhook endpoint, over as many kept-alive connections "
            "(raise it for receivers far away; after a failure one request probes alone)."
        ),
    )

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, url: str) -> str:
        return check_database_url(url)

    @field_validator("broadcast_url")
    @classmethod
    def _known_broadcast(cls, url: str) -> str:
        return check_broadcast_url(url)

    @field_validator("allowed_origins")
    @classmethod
    def _origins_only(cls, origins: list[str]) -> list[str]:
        if not origins:
            return []
        # Imported here: it loads Strawberry, which commands that set no origins need not wait for.
        from .origins import check_allowed_origins

        return sorted(check_allowed_origins(origins))

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names_only(cls, hosts: list[str]) -> list[str]:
        return [check_allowed_host(h) for h in hosts]

    event_archive_dir: Path | None = Field(
        default=None,
        description=(
            "Where the retention loop writes event archives; event retention is off without it (events "
            "are archived before they are deleted, never only deleted)."
        ),
    )
    event_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description="Archive, then delete, each tenant's events older than this many days.",
    )
    event_retention_max_events: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="Archive, then delete, each tenant's oldest events beyond this many.",
    )
    webhook_delivery_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description=(
            "Delete webhook deliveries that ended (delivered or failed) more than this many days ago, "
            "with their attempts; pending retries stay."
        ),
    )
    ended_root_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description=(
            "Delete plans, workflows and missions final for more than this many days, with their steps, "
            "hops, assets and decisions, once every event of theirs has been archived (never anything not "
            "final, nor anything with an open decision)."
        ),
    )
    retention_interval_seconds: float = Field(
        default=300.0,
        ge=0.01,
        le=86400,
        description=(
            "How often the retention loop applies the five settings above (then gives SQLite's freed "
            "pages back)."
        ),
    )
    retention_batch_size: int = Field(
        default=1_000,
        ge=1,
        le=100_000,
        description=(
            "Rows deleted per transaction by archival and retention (writers wait for one batch at most); "
            "archival sizes its batches to hold the write lock about 5 ms, up to this."
        ),
    )

    @model_validator(mode="after")
    def _archive_before_delete(self) -> Settings:
        wanted = self.event_retention_days is not None or self.event_retention_max_events is not None
        if wanted and self.event_archive_dir is None:
            raise ValueError(
                "event_retention_days / event_retention_max_events need event_archive_dir: events are "
                "archived before they are deleted"
            )
        return self


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings a TOML file sets, by setting name; unknown keys and tables are errors."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the configuration file {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise ConfigError(f"the configuration file {path} is larger than {MAX_CONFIG_BYTES} bytes")
    try:
        values = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"the configuration file {path} is not valid TOML: {exc}") from None
    known = list(Settings.model_fields)
    problems = []
    for key in values:
        if key not in Settings.model_fields:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(f"unknown setting '{key}'{hint}")
    if problems:
        listed = ". Settings are listed in docs/reference/settings.md."
        raise ConfigError(f"{path}: " + "; ".join(problems) + listed)
    return values


def user_config_file() -> Path | None:
    """``$XDG_CONFIG_HOME/flightdeck/config.toml`` (``~/.config`` by default) when it exists: a command
    run from any directory (an MCP host starts ``flightdeck mcp`` in the user's project) finds it."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    path = Path(base) / "flightdeck" / "config.toml"
    return path if path.is_file() else None


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from, highest first: ``overrides`` (command-line flags), the environment, the TOML file
    (``config_file``, else ``FLIGHTDECK_CONFIG``, else the user's file if there is one), the defaults."""
    path = config_file or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    path = path or user_config_file()
    values = read_config_file(path) if path is not None else {}
    token = _file_values.set(values)
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        problems = "; ".join(_problem(error, path, values, overrides) for error in exc.errors())
        raise ConfigError(problems) from None
    finally:
        _file_values.reset(token)


def _env_names(name: str) -> list[str]:
    field = Settings.model_fields.get(name)
    alias = field.validation_alias if field is not None else None
    if isinstance(alias, AliasChoices):
        return [a for a in alias.choices if isinstance(a, str)]
    return [f"FLIGHTDECK_{name.upper()}"]


def _problem(error: ErrorDetails, path: Path | None, file: dict[str, Any], flags: dict[str, Any]) -> str:
    """One setting's error on one line: its name, where it was set, the value, and what it must be."""
    key = str(error["loc"][0]) if error["loc"] else ""
    name = next((n for n in Settings.model_fields if key in (n, _input_key(n))), key)
    set_in_env = [v for v in _env_names(name) if v in os.environ]
    if flags.get(name) is not None:
        where = f"--{name.replace('_', '-')}"
    elif set_in_env:
        where = set_in_env[0]
    elif name in file:
        where = str(path)
    else:
        where = "settings"
    field = Settings.model_fields.get(name)
    if field is not None and error["type"] in _RANGE_ERRORS:
        detail = f"must be a finite number {describe_range(field)}"
    else:
        detail = error["msg"].removeprefix("Value error, ")
    # A URL's password, or a secret, never reaches a log.
    value = _USERINFO_PASSWORD.sub(r"\1***@", repr(error.get("input")))
    if name in _SECRETS:
        value = "(hidden)"
    shown = value if len(value) <= 60 else value[:57] + "..."
    return f"invalid setting {name} = {shown} ({where}): {detail}"
