"""The deployment guide's systemd unit agrees with the server: it runs `flightdeck serve`, stops it with
SIGTERM, and waits longer than the server's own shutdown grace before systemd would SIGKILL it."""

from __future__ import annotations

import configparser

from server.config import Settings
from tests.deployment.guide import guide_block


def test_the_systemd_unit_lets_sigterm_drain_before_systemd_kills() -> None:
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str  # type: ignore[assignment,method-assign]
    unit.read_string(guide_block("ini", "# /etc/systemd/system/flightdeck@.service"))
    service = unit["Service"]
    assert " serve --host 127.0.0.1 --port %i" in service["ExecStart"]
    assert service["ExecStart"].split()[0].endswith("/bin/flightdeck")
    assert service["KillSignal"] == "SIGTERM"
    assert int(service["TimeoutStopSec"]) > Settings().shutdown_grace_seconds
    assert unit["Install"]["WantedBy"] == "multi-user.target"
