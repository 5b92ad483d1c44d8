"""Instructions, not seconds: compile and the read + write floor under callgrind.

CPU time on the shared 2-core machine moves by a quarter between minutes, so a change of
10 % cannot be seen in the harness's seconds. Instructions counted by valgrind's callgrind
do not depend on the load: this script counts them for `api.compile_plan` of a generated
plan and for the floor (`read_document` of the plan plus `emit_yaml` of the compiled data),
for one or more source trees, and prints both and their ratio.

Each count is a difference of two runs of one process (set-up only; set-up then the measured
part), with PYTHONHASHSEED=0 so that both runs do the same work. Instructions are not time:
emit_yaml and the readers spend their time in C string code that retires more instructions
per cycle than the interpreter does, so the time ratio compile / floor comes out about 1.2x
the instruction ratio on this machine (docs/performance.md). Use it to compare trees.

    python benchmarks/instructions.py --n 2000 --tree /tmp/base/compiler --tree compiler

A tree is a directory that contains the `taskplan` package (a `git archive` snapshot's
`compiler/`). Needs valgrind; each tree takes 4-6 minutes (mostly imports and the catalog
under valgrind; two trees run in parallel).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The measured process: set-up (catalog, plan, a first compile whose data the floor writes),
# then nothing, compile once more, or the floor.
_CHILD = r"""
import gc, json, sys
sys.path.insert(0, {here!r})
from generate import plan
import taskplan.api as api
from taskplan.config import DEFAULT_LIMITS
from taskplan.diagnostics import Diagnostics
from taskplan.source.read import read_document
from taskplan.workflow.emit import emit_yaml
catalogs = api.load_catalog_set([{catalog!r}])
data = json.dumps(plan({n}, 500), separators=(",", ":")).encode()
first = api.compile_plan("plan.json", catalogs=catalogs, auto=True, text=data)
assert first.yaml and first.graph is not None, [d.message for d in first.diagnostics[:3]]
tree = first.graph.to_data()
gc.collect()
if {mode!r} == "compile":
    api.compile_plan("plan.json", catalogs=catalogs, auto=True, text=data)
elif {mode!r} == "floor":
    read_document(data, "plan.json", Diagnostics(), limits=DEFAULT_LIMITS)
    emit_yaml(tree)
"""

_COLLECTED = re.compile(rb"Collected : (\d+)")


def count(tree: Path, n: int, mode: str, catalog: Path) -> int:
    """Instructions of one whole process (`mode`: setup, compile or floor) under callgrind."""
    code = _CHILD.format(here=str(HERE), catalog=str(catalog), n=n, mode=mode)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        env=env, capture_output=True, check=False,
    )
    found = _COLLECTED.search(done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind run failed ({tree}, {mode}):\n{done.stderr.decode(errors='replace')[-2000:]}")
    return int(found.group(1))


def measure(tree: Path, n: int, catalog: Path) -> dict[str, int]:
    setup, compiled, floor = (count(tree, n, mode, catalog) for mode in ("setup", "compile", "floor"))
    return {"compile": compiled - setup, "floor": floor - setup}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="tasks in the generated plan (default 2,000)")
    parser.add_argument("--tree", action="append", type=Path, help="a directory holding the taskplan package (repeatable; default: this checkout's compiler/)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("instructions.py needs valgrind (apt install valgrind)", file=sys.stderr)
        return 2
    trees = [t.resolve() for t in (args.tree or [HERE.parent / "compiler"])]
    for tree in trees:
        if not (tree / "taskplan" / "__init__.py").is_file():
            print(f"{tree}: no taskplan package there", file=sys.stderr)
            return 2
    sys.path.insert(0, str(HERE))
    from generate import catalog

    with tempfile.TemporaryDirectory() as tmp:
        catalog_path = Path(tmp) / "catalog.json"
        catalog_path.write_text(json.dumps(catalog(500)))
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda t: measure(t, args.n, catalog_path), trees))
    print(f"instructions (callgrind, PYTHONHASHSEED=0), plan of {args.n:,} tasks over 500 operations")
    print(f"{'tree':<50}{'compile':>16}{'floor':>16}{'ratio':>8}")
    for tree, r in zip(trees, results):
        print(f"{str(tree)[-50:]:<50}{r['compile']:>16,}{r['floor']:>16,}{r['compile'] / r['floor']:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
