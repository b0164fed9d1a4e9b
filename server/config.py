"""Settings: command-line flags, then the environment (``FLIGHTDECK_*``; ``DATABASE_URL`` and
``BROADCAST_URL`` also bare), then a TOML file (``--config`` / ``FLIGHTDECK_CONFIG``), then defaults."""

from __future__ import annotations

import difflib
import os
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

CONFIG_ENV = "FLIGHTDECK_CONFIG"
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
    model_config = SettingsConfigDict(env_prefix="FLIGHTDECK_", extra="ignore")

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
        default=2.0, gt=0, description="A subscriber that heard no notice this long re-reads the log."
    )
    feed_ring_size: int = Field(
        default=4096, ge=16, description="Newest events kept in memory per tenant for subscribers."
    )
    stall_scan_interval_seconds: float = Field(
        default=30.0, gt=0, description="How often the stall monitor scans for stalled steps."
    )
    workflow_timer_interval_seconds: float = Field(
        default=1.0,
        gt=0,
        description="How often the workflow timer loop runs (retries due, timeouts, queued workflows).",
    )
    workflow_slots_per_tenant: int = Field(
        default=10, ge=1, description="Workflows one tenant may have executing (or blocked, compensating)."
    )
    decision_deadline_interval_seconds: float = Field(
        default=5.0,
        gt=0,
        description="How often the decision timer escalates and applies the defaults of decisions past due.",
    )
    asset_expiry_scan_interval_seconds: float = Field(
        default=15.0, gt=0, description="How often the asset TTL timer looks for assets past expires_at."
    )
    legacy_graphql_ws: bool = Field(
        default=False,
        description="Also accept the legacy graphql-ws WebSocket protocol (off: it has had auth CVEs).",
    )
    host: str = Field(default="127.0.0.1", description="Address `flightdeck serve` binds to.")
    port: int = Field(default=8000, description="Port `flightdeck serve` listens on.")
    stall_threshold_seconds: float = Field(
        default=30 * 60, gt=0, description="A step in progress longer than this is stalled."
    )
    max_query_depth: int = Field(default=12, ge=1, description="Deepest selection a query may nest.")
    max_aliases: int = Field(default=30, ge=1, description="Most aliases one document may use.")
    max_tokens: int = Field(default=4000, ge=1, description="Most lexer tokens one document may have.")
    max_text_bytes: int = Field(
        default=64 * 1024, ge=1, description="Longest instructions, summary or note (UTF-8 bytes)."
    )
    max_result_bytes: int = Field(
        default=1024 * 1024, ge=1, description="Largest step result data or research output (bytes)."
    )
    max_steps: int = Field(default=200, ge=1, description="Most steps one plan may have.")
    max_schema_bytes: int = Field(
        default=64 * 1024,
        ge=1,
        description="Largest JSON Schema a tool may declare for its parameters (bytes).",
    )
    schema_check_steps: int = Field(
        default=200_000,
        ge=1,
        description="Most work (steps) one check of a tool schema or its parameters may take.",
    )
    max_page_size: int = Field(default=100, ge=1, description="Hard cap on `first` for connections.")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Extra WebSocket/browser origins allowed (the server's own origin always is).",
    )
    auth_cache_seconds: float = Field(
        default=5.0, ge=0, description="How long a key lookup is cached (a revoked key works this long)."
    )
    graphiql: bool = Field(default=True, description="Serve GraphiQL at GET /graphql.")
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
        description="Allocations between two collections of the youngest generation (Python's default: 700).",
    )
    operation_log_max_age_days: float = Field(
        default=30, gt=0, le=3650, description="Operation log records older than this are deleted."
    )
    operation_log_max_rows: int = Field(
        default=1_000_000, ge=1, description="The operation log keeps at most this many records (newest)."
    )
    operation_log_prune_interval_seconds: float = Field(
        default=600, gt=0, description="How often old operation log records are deleted."
    )
    ready_timeout_seconds: float = Field(
        default=2.0, gt=0, description="How long /readyz waits for the database before it says not ready."
    )
    ready_loop_slack_seconds: float = Field(
        default=30.0,
        gt=0,
        description="/readyz reports a background loop late when no run of it finished for its interval "
        "plus this long.",
    )
    shutdown_grace_seconds: int = Field(
        default=30,
        ge=1,
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
        default=64 * 1024, ge=0, description="Most of a webhook response's body read; the rest is dropped."
    )
    webhook_poll_seconds: float = Field(
        default=1.0,
        gt=0,
        description="How often webhook delivery looks for new events and due retries without being woken.",
    )
    webhook_lease_seconds: float = Field(
        default=30.0,
        gt=0,
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
        default=300.0, gt=0, description="How often the retention loop applies the settings above."
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


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Settings from, highest first: ``overrides`` (command-line flags), the environment, the TOML file
    (``config_file``, else ``FLIGHTDECK_CONFIG``), the defaults."""
    path = config_file or (Path(os.environ[CONFIG_ENV]) if os.environ.get(CONFIG_ENV) else None)
    values = read_config_file(path) if path is not None else {}
    token = _file_values.set(values)
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        where = f" (environment or {path})" if path is not None else " (environment)"
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'settings'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(f"invalid settings{where}: {problems}") from None
    finally:
        _file_values.reset(token)
