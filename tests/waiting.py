"""How long a test waits for something that should happen.

A wait in a test detects a hang; it never measures speed (figures live in bench/). On a loaded machine
(two test runs at once, load 20) a process starts and a message arrives several times later than on an
idle one, so every bound a test waits for is stretched by FLIGHTDECK_TEST_PATIENCE (default 4). A
passing wait polls and returns as soon as its condition holds, so patience costs nothing when all is well.
"""

from __future__ import annotations

import os

PATIENCE = float(os.environ.get("FLIGHTDECK_TEST_PATIENCE", "4"))


def patient(seconds: float) -> float:
    """``seconds`` stretched for a loaded machine: the bound of a wait, never a measured figure."""
    return seconds * PATIENCE
