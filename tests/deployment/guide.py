"""The deployment guide's own blocks, so that what the tests run is what the guide says."""

from __future__ import annotations

import re
import shlex

from tests.realtime.processes import REPO

GUIDE = REPO / "docs" / "deployment.md"


def guide_blocks(language: str) -> list[str]:
    return [str(b) for b in re.findall(rf"^```{language}\n(.*?)^```", GUIDE.read_text(), re.M | re.S)]


def guide_block(language: str, first_line: str) -> str:
    """The fenced ``language`` block of the guide that starts with ``first_line``."""
    found = [b for b in guide_blocks(language) if b.startswith(first_line)]
    assert len(found) == 1, f"docs/deployment.md should have one {language} block starting {first_line!r}"
    return found[0]


def guide_command(program: str, replace: dict[str, str]) -> list[str]:
    """The guide's one ``sh`` line that runs ``program``, split into words, each word in ``replace``
    (a host, a database, a file name) swapped for the test's own."""
    lines = [
        line for block in guide_blocks("sh") for line in block.splitlines() if line.startswith(f"{program} ")
    ]
    assert len(lines) == 1, f"docs/deployment.md should have one `{program}` command: {lines}"
    words = shlex.split(lines[0])
    unused = set(replace) - set(words)
    assert not unused, f"the guide's `{program}` command no longer has {unused}: {words}"
    return [replace.get(word, word) for word in words]
