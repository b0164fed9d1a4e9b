"""The instruction-count harness: it reads this CPU's caches from sysfs, reads cachegrind's own output
files, and counts per request the growth from the short run to the long one."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.instructions import SYSFS, Cache, cache_geometry, per_request, summary


def _cache(root: Path, name: str, level: str, kind: str, size: str, ways: int) -> None:
    folder = root / name
    folder.mkdir()
    values = {"level": level, "type": kind, "size": size, "ways_of_associativity": str(ways)}
    for file, value in {**values, "coherency_line_size": "64"}.items():
        (folder / file).write_text(value + "\n")


def test_the_geometry_is_the_first_level_caches_and_the_per_core_l2(tmp_path: Path) -> None:
    _cache(tmp_path, "index0", "1", "Data", "48K", 12)
    _cache(tmp_path, "index1", "1", "Instruction", "64K", 16)
    _cache(tmp_path, "index2", "2", "Unified", "2048K", 16)
    _cache(tmp_path, "index3", "3", "Unified", "491520K", 16)
    assert cache_geometry(tmp_path) == {
        "D1": Cache(48 * 1024, 12, 64),
        "I1": Cache(64 * 1024, 16, 64),
        "LL": Cache(2 * 1024 * 1024, 16, 64),
    }
    (tmp_path / "index2" / "level").write_text("3\n")
    with pytest.raises(RuntimeError, match="LL"):
        cache_geometry(tmp_path)


def test_the_growth_per_request_and_the_miss_rates() -> None:
    first = {"Ir": 1_000, "I1mr": 10, "ILmr": 1, "D1mr": 20, "DLmr": 2, "D1mw": 5, "DLmw": 1}
    last = {"Ir": 201_000, "I1mr": 2_010, "ILmr": 101, "D1mr": 3_020, "DLmr": 302, "D1mw": 1_005, "DLmw": 101}
    assert per_request(first, last, 100) == {
        "instructions": 2_000,
        "i1_misses": 20,
        "i1_misses_per_1000_instructions": 10.0,
        "d1_misses": 40,
        "d1_misses_per_1000_instructions": 20.0,
        "l2_misses": 5,
        "l2_misses_per_1000_instructions": 2.5,
    }
    assert per_request({"Ir": 10}, {"Ir": 1_010}, 10) == {"instructions": 100}


def test_an_incomplete_output_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cachegrind.out"
    path.write_text("desc: x\ncmd: python\nevents: Ir I1mr\n")
    with pytest.raises(ValueError, match="not a complete cachegrind output"):
        summary(path)


@pytest.mark.timeout(600)
def test_a_real_cachegrind_file_is_read_with_this_machines_caches(tmp_path: Path) -> None:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is missing (apt-get install -y valgrind; .ci/run installs it)")
    if not (SYSFS / "index0").exists():
        pytest.skip(f"{SYSFS} does not describe this CPU's caches")
    cache = cache_geometry()
    out = tmp_path / "cachegrind.out"
    loop = "sum(range(200_000))"
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--cachegrind-out-file={out}",
         *(f"--{name}={c.option()}" for name, c in cache.items()), sys.executable, "-c", loop],
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    totals = summary(out)
    assert set(totals) >= {"Ir", "I1mr", "ILmr", "D1mr", "DLmr", "D1mw", "DLmw"}
    assert totals["Ir"] > 1_000_000  # an interpreter's start-up and the loop
    assert 0 < totals["DLmr"] <= totals["D1mr"] < totals["Ir"]
