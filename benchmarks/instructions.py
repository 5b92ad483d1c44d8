"""Instructions, not seconds: compile and the read + write floor under callgrind.

CPU time on the shared 2-core machine moves by a quarter between minutes, so a change of
10 % cannot be seen in the harness's seconds. Instructions counted by valgrind's callgrind
do not depend on the load: this script counts them for `api.compile_plan` of a generated
plan and for the floor (`read_document` of the plan plus `emit_yaml` of the compiled data),
for one or more source trees, and prints both and their ratio.

Each count is a difference of two runs of one process (set-up only; set-up then the measured
part), with PYTHONHASHSEED=0 so that both runs do the same work. Instructions are not time:
the floor is C string code and one tight loop over data it reads in order, compile is the
interpreter chasing pointers through hundreds of thousands of objects and many functions,
and so misses the L1 caches several times as often per instruction; the time ratio compile /
floor comes out 1.2-1.3x the instruction ratio on this machine. `--cache` measures those
misses (cachegrind's cache simulation; slower) (docs/performance.md). Use it to compare trees.

    python benchmarks/instructions.py --n 2000 --tree /tmp/base/compiler --tree compiler
    python benchmarks/instructions.py --n 4000 --cache
    python benchmarks/instructions.py --n 2000 --first   # also a compile no memo has seen
    python benchmarks/instructions.py --n 2000 --passes --tree A --tree B   # per pass

`--passes` counts each pass of a first compile separately, in one process per tree: the
harness's `run.compile_stages` calls a marker (`os.getppid`, which nothing else here calls)
after each pass, and callgrind dumps its counts before every call of it
(`--dump-before=getppid`), so each dump holds one pass.

The measured compile is the plan's second in its process (the floor needs its data), so
process-wide memos (remembered names, path segments, schema verdicts) start warm; `--first`
also counts the plan's first compile after a smaller plan warmed imports and the catalog.

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
# then nothing, compile once more, or the floor. With `--first`, two more: set-up with a
# 30-task plan compiled instead (imports and the catalog's lazily built parts warmed, but no
# memo holds anything of the measured plan), then nothing or the measured plan's first compile.
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
if {mode!r} in ("setup-first", "first"):
    small = json.dumps(plan(30, 500), separators=(",", ":")).encode()
    assert api.compile_plan("small.json", catalogs=catalogs, auto=True, text=small).yaml
else:
    first = api.compile_plan("plan.json", catalogs=catalogs, auto=True, text=data)
    assert first.yaml and first.graph is not None, [d.message for d in first.diagnostics[:3]]
    tree = first.graph.to_data()
gc.collect()
if {mode!r} in ("compile", "first"):
    api.compile_plan("plan.json", catalogs=catalogs, auto=True, text=data)
elif {mode!r} == "floor":
    read_document(data, "plan.json", Diagnostics(), limits=DEFAULT_LIMITS)
    emit_yaml(tree)
"""

# `--passes`: set-up as for `first`, then the measured plan's passes one by one through the
# harness's mirror of `api.compile_plan`, a marker call after each (callgrind dumps before it).
_PASSES_CHILD = r"""
import gc, json, os, sys
sys.path.insert(0, {here!r})
from generate import plan
import run as harness
import taskplan.api as api
catalogs = api.load_catalog_set([{catalog!r}])
small = json.dumps(plan(30, 500), separators=(",", ":")).encode()
assert api.compile_plan("small.json", catalogs=catalogs, auto=True, text=small).yaml
data = json.dumps(plan({n}, 500), separators=(",", ":")).encode()
gc.collect()
os.getppid()
harness.compile_stages(data, "plan.json", catalogs.catalog, lambda stage: (print("stage", stage), os.getppid()))
"""

# What each tool prints: callgrind "Collected : 5795047269"; cachegrind's summary lines
# (valgrind 3.19) "I   refs:      5,795,047,269", "D1  misses:  69,676,613  (...)".
_EVENTS = {"instructions": rb"Collected : ([\d,]+)"}
_CACHE_EVENTS = {"instructions": rb"I\s+refs:\s+([\d,]+)", "I1 misses": rb"I1\s+misses:\s+([\d,]+)",
                 "D1 misses": rb"D1\s+misses:\s+([\d,]+)", "LL misses": rb"LL\s+misses:\s+([\d,]+)"}


def parse_counts(stderr: bytes, cache: bool) -> dict[str, int] | None:
    """The event counts a valgrind run printed (None: one is missing)."""
    counts = {}
    for name, pattern in (_CACHE_EVENTS if cache else _EVENTS).items():
        found = re.search(pattern, stderr)
        if found is None:
            return None
        counts[name] = int(found.group(1).replace(b",", b""))
    return counts


def count(tree: Path, n: int, mode: str, catalog: Path, cache: bool = False) -> dict[str, int]:
    """Events of one whole process (`mode`: setup, compile or floor): its instructions
    under callgrind, or with `cache` its instructions and cache misses under cachegrind's
    simulation of this machine's caches (32 KiB L1 per core, the 32 MiB L3 as last level)."""
    code = _CHILD.format(here=str(HERE), catalog=str(catalog), n=n, mode=mode)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    tool = (["--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null",
             "--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64"] if cache
            else ["--tool=callgrind", "--callgrind-out-file=/dev/null"])
    done = subprocess.run(["valgrind", *tool, sys.executable, "-c", code], env=env, capture_output=True, check=False)
    counts = parse_counts(done.stderr, cache)
    if done.returncode != 0 or counts is None:
        raise SystemExit(f"valgrind run failed ({tree}, {mode}):\n{done.stderr.decode(errors='replace')[-2000:]}")
    return counts


def measure(tree: Path, n: int, catalog: Path, cache: bool = False, first: bool = False) -> dict[str, dict[str, int]]:
    """compile and floor (and with `first`, the plan's first compile in its process):
    each the difference of its run and its set-up's."""
    setup, compiled, floor = (count(tree, n, mode, catalog, cache) for mode in ("setup", "compile", "floor"))
    result = {"compile": {k: v - setup[k] for k, v in compiled.items()},
              "floor": {k: v - setup[k] for k, v in floor.items()}}
    if first:
        setup_first, first_compile = (count(tree, n, mode, catalog, cache) for mode in ("setup-first", "first"))
        result["first compile"] = {k: v - setup_first[k] for k, v in first_compile.items()}
    return result


def count_passes(tree: Path, n: int, catalog: Path) -> dict[str, int]:
    """Instructions of each pass of a first compile (`--passes`), in the harness's order."""
    code = _PASSES_CHILD.format(here=str(HERE), catalog=str(catalog), n=n)
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        done = subprocess.run(["valgrind", "--tool=callgrind", "--dump-before=getppid", f"--callgrind-out-file={out}",
                               sys.executable, "-c", code], env=env, capture_output=True, check=False)
        stages = re.findall(rb"^stage (\S+)$", done.stdout, re.M)
        # dumps numbered in order, the last ones one per pass (what ran before the marker
        # that ends the set-up may be cut in more: the interpreter's start-up may call
        # getppid); the bare file is what ran after the last marker
        dumps = sorted(Path(tmp).glob("cg.out.*"), key=lambda p: int(p.suffix[1:]))
        counts = []
        for dump in dumps:
            found = re.search(rb"^(?:summary|totals): (\d+)", dump.read_bytes(), re.M)
            counts.append(int(found.group(1)) if found else -1)
    if done.returncode != 0 or not stages or len(counts) < len(stages) + 1 or -1 in counts:
        raise SystemExit(f"valgrind run failed ({tree}, passes):\n{done.stderr.decode(errors='replace')[-2000:]}")
    return {stage.decode(): c for stage, c in zip(stages, counts[-len(stages):])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="tasks in the generated plan (default 2,000)")
    parser.add_argument("--tree", action="append", type=Path, help="a directory holding the taskplan package (repeatable; default: this checkout's compiler/)")
    parser.add_argument("--cache", action="store_true",
                        help="also simulate the caches (cachegrind): L1 instruction and data misses and last-level misses, "
                             "what makes the time ratio larger than the instruction ratio")
    parser.add_argument("--first", action="store_true",
                        help="also count the plan's first compile in its process (the set-up compiles another, smaller "
                             "plan), as in one `taskplan compile`: process-wide memos hold nothing of the plan")
    parser.add_argument("--passes", action="store_true",
                        help="instead: the instructions of each pass of the plan's first compile (one process per tree)")
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
        if args.passes:
            with ThreadPoolExecutor(max_workers=2) as pool:
                per_tree = list(pool.map(lambda t: count_passes(t, args.n, catalog_path), trees))
            print_passes(trees, per_tree, args.n)
            return 0
        with ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(lambda t: measure(t, args.n, catalog_path, args.cache, args.first), trees))
    tool = "cachegrind, simulated caches" if args.cache else "callgrind"
    print(f"instructions ({tool}, PYTHONHASHSEED=0), plan of {args.n:,} tasks over 500 operations")
    events = list(results[0]["compile"])
    for event in events:
        print(f"{event:<14}{'tree':<46}{'compile':>16}{'floor':>16}{'ratio':>8}")
        for tree, r in zip(trees, results):
            c, f = r["compile"][event], r["floor"][event]
            print(f"{'':<14}{str(tree)[-46:]:<46}{c:>16,}{f:>16,}{c / f:>8.2f}")
            if "first compile" in r:
                c1 = r["first compile"][event]
                print(f"{'':<14}{'  its first compile in the process':<46}{c1:>16,}{'':>16}{c1 / f:>8.2f}")
    if args.cache:
        for tree, r in zip(trees, results):
            per = {side: {e: 1000 * r[side][e] / r[side]["instructions"] for e in events[1:]} for side in ("compile", "floor")}
            print(f"per 1,000 instructions ({str(tree)[-40:]}): " + "; ".join(
                f"{e} {per['compile'][e]:.2f} compile, {per['floor'][e]:.2f} floor" for e in events[1:]))
    return 0


def print_passes(trees: list[Path], per_tree: list[dict[str, int]], n: int) -> None:
    print(f"instructions per pass (callgrind, PYTHONHASHSEED=0), the first compile of a plan of {n:,} tasks "
          "(emit: to_data + emit_yaml)")
    print(f"{'pass':<14}" + "".join(f"{str(t)[-28:]:>30}" for t in trees) + ("      change" if len(trees) == 2 else ""))
    for stage in per_tree[0]:
        row = [r.get(stage, 0) for r in per_tree]
        change = f"{100 * (row[1] - row[0]) / row[0]:>+11.1f}%" if len(row) == 2 and row[0] else ""
        print(f"{stage:<14}" + "".join(f"{c:>30,}" for c in row) + change)
    totals = [sum(r.values()) for r in per_tree]
    change = f"{100 * (totals[1] - totals[0]) / totals[0]:>+11.1f}%" if len(totals) == 2 else ""
    print(f"{'compile':<14}" + "".join(f"{c:>30,}" for c in totals) + change)


if __name__ == "__main__":
    raise SystemExit(main())
