"""What the two long runs share (`fuzz_long.py`, `semantics_long.py`): a time limit per
case, and keeping a failing case's document with the command that replays it."""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator
from pathlib import Path


class Hang(Exception):
    """A case ran past its time limit."""


def _on_alarm(signum, frame):  # noqa: ARG001
    raise Hang()


@contextlib.contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    """Raise `Hang` in the body after `seconds` (SIGALRM: the main thread of a worker)."""
    signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)


def keep_failure(item: dict, out: str, script: str, seed: str, label: str, width: int) -> Path:
    """Write a failing case's document to `out` and print the first problem with the
    command that replays the case (`label`: FAIL, DIFF; `width`: of the problem shown)."""
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".json" if item["display"].endswith(".json") else ".yaml"
    path = folder / f"{item['kind']}-{item['i']}.taskplan{suffix}"
    path.write_bytes(item["data"])
    print(f"{label} {item['kind']}:{item['i']} ({item['what'][:200]})\n  {item['problems'][0][:width]}\n"
          f"  document: {path}\n  replay: python benchmarks/{script} --seed {seed} "
          f"--replay {item['kind']}:{item['i']}", flush=True)
    return path
