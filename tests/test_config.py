"""Settings come from flags, the environment and a TOML file, in that order; a file with an unknown key
or a wrong value stops the command with a message that names it."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from server.cli import app
from server.config import ConfigError, load_settings, read_config_file


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("FLIGHTDECK_CONFIG", "FLIGHTDECK_PORT", "DATABASE_URL", "FLIGHTDECK_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "flightdeck.toml"


def test_the_file_sets_what_the_environment_does_not_and_flags_win_over_both(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text(
        'database_url = "sqlite+aiosqlite:///from-file.db"\nport = 9000\nallowed_origins = ["https://a.example"]\n'
    )
    settings = load_settings(config)
    assert (settings.database_url, settings.port) == ("sqlite+aiosqlite:///from-file.db", 9000)
    assert settings.allowed_origins == ["https://a.example"]
    assert settings.stall_threshold_seconds == 1800  # not in the file: the default

    monkeypatch.setenv("FLIGHTDECK_PORT", "7000")
    monkeypatch.setenv("DATABASE_URL", "sqlite+aiosqlite:///from-env.db")
    settings = load_settings(config)
    assert (settings.database_url, settings.port) == ("sqlite+aiosqlite:///from-env.db", 7000)
    assert load_settings(config, port=6000).port == 6000


def test_flightdeck_config_names_the_file_when_no_path_is_given(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.write_text("max_page_size = 25\n")
    assert load_settings().max_page_size == 100
    monkeypatch.setenv("FLIGHTDECK_CONFIG", str(config))
    assert load_settings().max_page_size == 25


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "stall_treshold_seconds = 5\n",
            "unknown setting 'stall_treshold_seconds' (did you mean 'stall_threshold_seconds'?)",
        ),
        ("[server]\nport = 1\n", "unknown setting 'server'"),
        ("FLIGHTDECK_PORT = 1\n", "unknown setting 'FLIGHTDECK_PORT'"),
        ("port = \n", "is not valid TOML"),
        ("port = 'eighty'\n", "invalid setting port = 'eighty' ("),
        ("max_page_size = 0\n", "invalid setting max_page_size = 0 ("),
    ],
)
def test_a_bad_file_is_an_error_that_names_the_key(config: Path, text: str, message: str) -> None:
    config.write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_settings(config)
    assert message in str(refused.value)


def test_a_missing_file_is_an_error(config: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the configuration file"):
        read_config_file(config)


def test_the_command_line_reads_the_file_and_refuses_a_bad_one_without_a_traceback(
    config: Path, tmp_path: Path
) -> None:
    database = tmp_path / "from-config.db"
    config.write_text(f'database_url = "sqlite+aiosqlite:///{database}"\n')
    result = CliRunner().invoke(app, ["--config", str(config), "migrate"])
    assert result.exit_code == 0, result.output
    assert database.is_file()  # the file's database was the one migrated

    config.write_text("databse_url = 'x'\n")
    result = CliRunner().invoke(app, ["--config", str(config), "migrate"])
    assert result.exit_code == 2
    assert "unknown setting 'databse_url' (did you mean 'database_url'?)" in result.output
    assert "Traceback" not in result.output
