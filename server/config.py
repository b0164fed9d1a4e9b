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
    # Every number has a finite range (README: Configuration); inf and nan are never one.
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
        description="SQLAlchemy async URL: sqlite+aiosqlite:///path or postgresql+asyncpg://...",
    )
    broadcast_url: str = Field(
        default="memory://",
        validation_alias=AliasChoices("FLIGHTDECK_BROADCAST_URL", "BROADCAST_URL"),
        description="Where change notices go between server processes: memory:// (one process), "
        "redis://host:port/db or postgres://user@host/db.",
    )
    broadcast_channel: str = Field(
        default="flightdeck_events", min_length=1, max_length=63, description="Channel name for notices."
    )
    feed_poll_seconds: float = Field(
        default=2.0,
        ge=0.01,
        le=3600,
        description="A subscriber that heard no notice this long re-reads the log.",
    )
    feed_ring_size: int = Field(
        default=4096,
        ge=16,
        le=1_000_000,
        description="Newest events kept in memory per tenant for subscribers.",
    )
    stall_scan_interval_seconds: float = Field(
        default=30.0, ge=0.01, le=86_400, description="How often the stall monitor scans for stalled steps."
    )
    workflow_timer_interval_seconds: float = Field(
        default=1.0,
        ge=0.01,
        le=3600,
        description="How often the workflow timer loop runs (retries due, timeouts, queued workflows).",
    )
    workflow_slots_per_tenant: int = Field(
        default=10,
        ge=1,
        le=10_000,
        description="Workflows one tenant may have executing (or blocked, compensating).",
    )
    decision_deadline_interval_seconds: float = Field(
        default=5.0,
        ge=0.01,
        le=3600,
        description="How often the decision timer escalates and applies the defaults of decisions past due.",
    )
    asset_expiry_scan_interval_seconds: float = Field(
        default=15.0,
        ge=0.01,
        le=86_400,
        description="How often the asset TTL timer looks for assets past expires_at.",
    )
    legacy_graphql_ws: bool = Field(
        default=False,
        description="Also accept the legacy graphql-ws WebSocket protocol (off: it has had auth CVEs).",
    )
    host: str = Field(default="127.0.0.1", description="Address `flightdeck serve` binds to.")
    port: int = Field(
        default=8000, ge=0, le=65_535, description="Port `flightdeck serve` listens on (0: any free port)."
    )
    stall_threshold_seconds: float = Field(
        default=30 * 60, gt=0, le=YEAR_SECONDS, description="A step in progress longer than this is stalled."
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
        description="Longest instructions, summary or note (UTF-8 bytes).",
    )
    max_result_bytes: int = Field(
        default=1024 * 1024,
        ge=1,
        le=64 * MIB,
        description="Largest step result data or research output (bytes).",
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
        description="Most work (steps) one check of a tool schema or its parameters may take.",
    )
    max_page_size: int = Field(
        default=100, ge=1, le=10_000, description="Hard cap on `first` for connections."
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Extra WebSocket/browser origins allowed (the server's own origin always is).",
    )
    auth_cache_seconds: float = Field(
        default=5.0,
        ge=0,
        le=3600,
        description="How long a key lookup is cached (a revoked key works this long).",
    )
    graphiql: bool = Field(default=True, description="Serve GraphiQL at GET /graphql.")
    oauth_issuer: str | None = Field(
        default=None,
        description="An OAuth 2.1 authorization server (its issuer URL) whose JWT access tokens /mcp and "
        "/graphql accept beside API keys. Unset: API keys only.",
    )
    oauth_resource: str | None = Field(
        default=None,
        description="This server's URL as clients reach it (https://flightdeck.example.com): the audience "
        "access tokens must name, and the resource of /.well-known/oauth-protected-resource.",
    )
    oauth_jwks_url: str | None = Field(
        default=None,
        description="Where the issuer publishes its signing keys; unset: its jwks_uri, from the issuer's "
        "OpenID Connect or RFC 8414 metadata.",
    )
    oauth_algorithms: list[str] = Field(
        default_factory=lambda: ["RS256", "ES256"],
        description="Signature algorithms access tokens may use (asymmetric only: RS*, PS*, ES*, EdDSA).",
    )
    oauth_tenants: list[str] = Field(
        default_factory=list,
        description="The tenants access tokens may act for; a token naming another is refused.",
    )
    oauth_tenant_claim: str = Field(
        default="tenant", min_length=1, description="The access token claim naming the tenant."
    )
    oauth_role_claim: str = Field(
        default="role",
        min_length=1,
        description="The access token claim naming the role: agent, reviewer, viewer or admin.",
    )
    oauth_agent_claim: str = Field(
        default="agent",
        min_length=1,
        description="The access token claim with the agent name(s) the token may claim workflow work as "
        "(absent: any).",
    )
    oauth_leeway_seconds: float = Field(
        default=30, ge=0, le=300, description="Clock skew allowed when checking a token's exp and nbf."
    )
    oauth_jwks_cache_seconds: float = Field(
        default=300,
        gt=0,
        le=86400,
        description="How long the issuer's signing keys are used before they are fetched again.",
    )
    oauth_jwks_refresh_seconds: float = Field(
        default=30,
        ge=0,
        le=3600,
        description="Least time between two fetches of the signing keys caused by a token naming an "
        "unknown key (the issuer rotated its keys).",
    )

    @model_validator(mode="after")
    def _check_oauth(self) -> Settings:
        from .oauth import settings_problems

        if problems := settings_problems(self):
            raise ValueError("; ".join(problems))
        return self

    log_format: Literal["console", "json"] = Field(
        default="console",
        description="How `flightdeck serve` writes its log (and uvicorn's): console lines, or one JSON "
        "object a line.",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        default="info", description="The least severe log records written."
    )
    operation_log: bool = Field(default=True, description="Record every GraphQL operation.")
    access_log: bool = Field(default=True, description="uvicorn's log line for every HTTP request.")
    gc_freeze: bool = Field(
        default=True,
        description="After start-up, exempt every object made so far from garbage collection (gc.freeze): "
        "collections then walk only what requests make.",
    )
    gc_threshold: int = Field(
        default=700,
        ge=1,
        le=10_000_000,
        description="Allocations between two collections of the youngest generation (Python's default: 700).",
    )
    operation_log_max_age_days: float = Field(
        default=30, gt=0, le=3650, description="Operation log records older than this are deleted."
    )
    operation_log_max_rows: int = Field(
        default=1_000_000,
        ge=1,
        le=10_000_000_000,
        description="The operation log keeps at most this many records (newest).",
    )
    operation_log_prune_interval_seconds: float = Field(
        default=600, ge=1, le=7 * 86_400, description="How often old operation log records are deleted."
    )
    ready_timeout_seconds: float = Field(
        default=2.0,
        gt=0,
        le=300,
        description="How long /readyz waits for the database before it says not ready.",
    )
    ready_loop_slack_seconds: float = Field(
        default=30.0,
        gt=0,
        le=86_400,
        description="/readyz reports a background loop late when no run of it finished for its interval "
        "plus this long.",
    )
    shutdown_grace_seconds: int = Field(
        default=30,
        ge=1,
        le=3600,
        description="On SIGTERM, how long in-flight requests may take to finish before they are cancelled.",
    )
    allow_non_loopback_dev_mode: bool = Field(
        default=False,
        description="Let dev mode (no API keys) bind beyond loopback. Leave off.",
    )
    dev_mode: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="Dev mode (requests without a key act as the 'default' tenant's admin), decided once "
        "at start-up: auto = no active key and a loopback bind; on = always; off = never.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="In dev mode, Host names besides loopback's (localhost, 127.0.0.1, [::1]) that "
        "requests may be addressed to.",
    )
    metrics_token: SecretStr | None = Field(
        default=None,
        min_length=32,
        max_length=512,
        description="The operator's credential for /metrics (sent as 'Authorization: Bearer <token>'). "
        "No API key, even an admin's, reads metrics; without a token only dev mode's loopback callers can.",
    )
    metrics_operation_names: bool = Field(
        default=False,
        description="Label GraphQL operation metrics with the clients' own operation names (their free "
        "text); off: with the operation's root fields.",
    )
    webhooks: bool = Field(default=True, description="Deliver events to the tenants' webhook endpoints.")
    webhook_allow_private_targets: bool = Field(
        default=False,
        description="Let webhook endpoints be (or resolve to) loopback, private, link-local or other "
        "non-public addresses. Leave off unless the receivers are yours (SSRF).",
    )
    webhook_timeout_seconds: float = Field(
        default=10.0, gt=0, le=60, description="Longest one webhook request may take, connect to last byte."
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
        description="How often webhook delivery looks for new events and due retries without being woken.",
    )
    webhook_lease_seconds: float = Field(
        default=30.0,
        gt=0,
        le=86_400,
        description="How long a server process holds an endpoint (renewed while it delivers); another "
        "process takes the endpoint over this long after its holder died. Must exceed the timeout.",
    )
    webhook_batch_size: int = Field(
        default=100, ge=1, le=1000, description="Most events one delivery pass sends to an endpoint."
    )
    webhook_parallel_requests: int = Field(
        default=1,
        ge=1,
        le=32,
        description="Requests in flight at once to one webhook endpoint (and connections kept to it).",
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
        # Imported here: it loads Strawberry, which commands that set no origins need not wait for.
        from .origins import check_allowed_origins

        return sorted(check_allowed_origins(origins))

    @field_validator("allowed_hosts")
    @classmethod
    def _host_names_only(cls, hosts: list[str]) -> list[str]:
        return [check_allowed_host(h) for h in hosts]

    event_archive_dir: Path | None = Field(
        default=None,
        description="Where the retention loop writes event archives (gzip JSON Lines and a manifest). "
        "Event retention is off without it: events are archived, then deleted, never only deleted.",
    )
    event_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description="Archive and delete each tenant's events older than this many days (off: keep all).",
    )
    event_retention_max_events: int | None = Field(
        default=None,
        ge=1,
        le=10**12,
        description="Archive and delete each tenant's oldest events beyond this many (off: keep all).",
    )
    webhook_delivery_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description="Delete webhook deliveries that ended (delivered or failed) more than this many days "
        "ago, with their attempts (off: keep all). Pending retries are never deleted.",
    )
    ended_root_retention_days: float | None = Field(
        default=None,
        gt=0,
        le=36500,
        description="Delete plans, workflows and missions final for more than this many days, with their "
        "children, once every event of theirs has been archived (off: keep all).",
    )
    retention_interval_seconds: float = Field(
        default=300.0,
        ge=0.01,
        le=86400,
        description="How often the retention loop applies the settings above.",
    )
    retention_batch_size: int = Field(
        default=1_000,
        ge=1,
        le=100_000,
        description="Rows the retention loop deletes per transaction (writers wait for one batch at most).",
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
        raise ConfigError(f"{path}: " + "; ".join(problems) + ". Settings are listed in README.md.")
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
