"""Identity and scope output does not depend on the hash seed: the same plan gives the
same diagnostics and the same CheckedPlan dump in processes with different seeds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

SCRIPT = """
import json, sys
sys.path.insert(0, {here!r})
import test_scope as t
from test_scope_support import check
out = []
for text in (t.SEVERAL, t.GROUPS, t.ALWAYS, t.CAPTURE):
    r = check(text)
    out.append([d.to_json() for d in r.diagnostics])
    out.append(r.checked.dump())
print(json.dumps(out))
"""


def _run(seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.format(here=str(HERE))],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_output_is_the_same_under_different_hash_seeds():
    first = _run("1")
    assert first.strip()
    assert _run("987654") == first
