"""Settings from the environment (``FLIGHTDECK_*``; ``DATABASE_URL`` and ``BROADCAST_URL`` also bare)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FLIGHTDECK_", extra="ignore")

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
    max_page_size: int = Field(default=100, ge=1, description="Hard cap on `first` for connections.")
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Extra WebSocket/browser origins allowed (the server's own origin always is).",
    )
    auth_cache_seconds: float = Field(
        default=5.0, ge=0, description="How long a key lookup is cached (a revoked key works this long)."
    )
    graphiql: bool = Field(default=True, description="Serve GraphiQL at GET /graphql.")
    operation_log: bool = Field(default=True, description="Record every GraphQL operation.")
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
