"""Every numeric setting has a finite range, enforced when settings load and written in the settings
reference (docs/reference/settings.md, generated from the fields and compared with them); URLs,
origins and host names are checked too. A bad one stops any command with one line naming it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from server.config import ConfigError, Settings, load_settings
from server.config_checks import describe_range, numeric_range
from server.origins import origin_allowed

SETTINGS_PAGE = Path(__file__).resolve().parent.parent / "docs" / "reference" / "settings.md"
NUMERIC = sorted(n for n, f in Settings.model_fields.items() if f.annotation in (int, float))


def _refused(name: str, value: object) -> str:
    with pytest.raises(ConfigError) as refused:
        load_settings(None, **{name: value})
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"invalid setting {name} = "), message
    return message


def test_every_number_setting_is_checked() -> None:
    assert len(NUMERIC) >= 30  # the table below really walks the settings


@pytest.mark.parametrize("name", NUMERIC)
def test_each_numeric_setting_has_a_finite_range_that_loading_enforces(name: str) -> None:
    field = Settings.model_fields[name]
    low, low_in, high, high_in = numeric_range(field)
    assert math.isfinite(low), f"{name} needs a lower bound"
    assert math.isfinite(high), f"{name} needs an upper bound"
    is_int = field.annotation is int
    step = 1 if is_int else max(abs(high), 1) * 1e-6
    inside_low = low if low_in else low + (1 if is_int else 1e-9)
    inside_high = high if high_in else high - step
    for ok in (inside_low, inside_high, field.default):
        value = int(ok) if is_int else float(ok)
        assert getattr(load_settings(None, **{name: value}), name) == value
    below = (low - 1) if is_int else (low - step if low_in else low)
    above = (high + 1) if is_int else (high + step if high_in else high)
    for bad in (int(below) if is_int else below, int(above) if is_int else above, 9223372036854775807):
        assert f"must be a finite number {describe_range(field)}" in _refused(name, bad)
    if not is_int:
        for bad_float in ("inf", "-inf", "nan", "1e309"):
            _refused(name, bad_float)


def test_the_settings_reference_states_each_numeric_settings_range() -> None:
    rows = {
        cells[1].strip("`"): cells
        for line in SETTINGS_PAGE.read_text().splitlines()
        if line.startswith("| `") and len(cells := [c.strip() for c in line.strip("|").split("|")]) >= 4
    }
    wrong = {
        name: rows.get(name, ["", "", "", "(no row)"])[3]
        for name in NUMERIC
        if rows.get(name, ["", "", "", ""])[3] != describe_range(Settings.model_fields[name])
    }
    assert not wrong, (
        f"the settings reference's range column must read as describe_range (make docs): {wrong}"
    )


@pytest.mark.parametrize(
    ("name", "value", "says"),
    [
        ("database_url", "mysql://db/x", "the driver 'mysql' is not supported"),
        ("database_url", "sqlite+aiosqlite://", "SQLite needs a file"),
        ("database_url", "postgresql+asyncpg://u:hunter2@db:99999/x", "port 99999"),
        ("database_url", "::not a url::", "not a database URL"),
        ("broadcast_url", "redis://[oops/0", "not a URL"),
        ("broadcast_url", "kafka://broker", "the scheme 'kafka' is not supported"),
        ("allowed_origins", ["*"], '"*" is not allowed'),
        ("allowed_origins", ["https://a.example/path"], "is not an origin"),
        ("allowed_origins", ["ftp://a.example"], "is not an http:// or https:// origin"),
        ("allowed_hosts", ["dev.example:8000"], "has a port: list the host name alone ('dev.example')"),
        ("allowed_hosts", ["*.example"], "no wildcards"),
        ("allowed_hosts", ["https://dev.example"], "no scheme or path"),
    ],
)
def test_urls_origins_and_host_names_are_checked(name: str, value: object, says: str) -> None:
    message = _refused(name, value)
    assert says in message
    assert "hunter2" not in message


def test_origins_and_host_names_are_kept_as_the_checks_compare_them() -> None:
    settings = load_settings(
        None, allowed_origins=["HTTPS://Dash.Example:443"], allowed_hosts=["Dev.Example", "::1"]
    )
    assert settings.allowed_origins == ["https://dash.example"]
    assert settings.allowed_hosts == ["dev.example", "[::1]"]


@pytest.mark.parametrize(
    ("origin", "scheme", "host", "allowed"),
    [
        (None, "http", "127.0.0.1:8000", True),  # not a browser
        ("http://127.0.0.1:8000", "ws", "127.0.0.1:8000", True),
        ("https://127.0.0.1:8000", "ws", "127.0.0.1:8000", False),  # another scheme is another origin
        ("http://127.0.0.1:8000", "wss", "127.0.0.1:8000", False),
        ("https://app.example", "wss", "app.example", True),
        ("https://app.example", "https", "app.example:443", True),
        ("http://127.0.0.1:8001", "http", "127.0.0.1:8000", False),
        ("https://dash.example", "ws", "127.0.0.1:8000", True),  # listed
        ("http://dash.example", "ws", "127.0.0.1:8000", False),  # listed with https only
        ("null", "ws", "127.0.0.1:8000", False),
    ],
)
def test_an_origin_is_the_requests_own_only_with_the_same_scheme_host_and_port(
    origin: str | None, scheme: str, host: str, allowed: bool
) -> None:
    assert origin_allowed(origin, scheme, host, frozenset({"https://dash.example"})) is allowed


def test_sec_fetch_site_same_origin_is_the_browsers_word_through_a_tls_proxy() -> None:
    assert origin_allowed("https://app.example", "http", "app.example", frozenset(), "same-origin")
    assert not origin_allowed("https://app.example", "http", "app.example", frozenset(), "same-site")


def test_the_range_words_read_as_the_settings_reference_writes_them() -> None:
    assert describe_range(Settings.model_fields["port"]) == "0 to 65535"
    assert describe_range(Settings.model_fields["stall_threshold_seconds"]) == "above 0, up to 31536000"
    assert re.fullmatch(r"[0-9.]+ to [0-9.]+", describe_range(Settings.model_fields["feed_poll_seconds"]))
