"""The long fuzz run: the properties of tests/test_properties.py with a big budget.

    python benchmarks/fuzz_long.py --minutes 15            # as long as you can afford
    python benchmarks/fuzz_long.py --minutes 60 --workers 2 --seed 7
    python benchmarks/fuzz_long.py --replay generated:1234 --seed 7   # one case again

Cases rotate over three kinds, each from its own `random.Random(f"{seed}:{kind}:{i}")`
(so any case can be replayed exactly):

- `mutant`: a valid fixture (fixtures/valid/) with 1-3 structure-aware mutations (drop,
  swap, retype, rename, duplicate, deep-nest a field, a value or a task), as YAML or
  JSON, checked against the fixture's catalogs;
- `generated`: a random plan that is valid by construction (every task kind, operations
  of the review and ops catalogs included);
- `mutant-of-generated`: a generated plan, mutated.

For each: checking never raises, never reports COMPILER_INTERNAL, exits 0 or 1, every
location lies inside its file, diagnostics are sorted and unique; a plan that checks
clean compiles with --auto, its output validates when read back, and compiling twice
gives the same bytes; a generated plan must check clean. A case taking longer than
--hang seconds is a failure too.

Prints the number of cases (per kind, how many checked clean and compiled) and every
failure with its reproducer; failing documents are written to --out. Exit code 1 when
anything failed.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from longrun import Hang, keep_failure, time_limit  # noqa: E402

KINDS = ("mutant", "generated", "mutant-of-generated")


def make_case(seed: str, kind: str, i: int):
    """(bytes, display path, catalogs, description) of case `i` of `kind`."""
    from tests.faults.fuzz import GENERATOR_CATALOGS, generate, mutant, mutate
    from tests.faults.seeds import plan_seeds
    from tests.faults.serialize import dump

    rng = random.Random(f"{seed}:{kind}:{i}")
    fmt = rng.choice(["yaml", "json"])
    if kind == "mutant":
        plan = rng.choice(plan_seeds())
        data, display, catalogs, log = mutant(plan, rng, fmt)
        return data, display, catalogs, f"{plan.name} " + "; ".join(log)
    tree = generate(rng, operations=True)
    if kind == "generated":
        return dump(tree, fmt), f"generated.taskplan.{fmt}", GENERATOR_CATALOGS, "a generated plan"
    tree, log = mutate(tree, rng)
    return dump(tree, fmt), f"generated.taskplan.{fmt}", GENERATOR_CATALOGS, "generated, then " + "; ".join(log)


def run_case(seed: str, kind: str, i: int, hang: int) -> dict:
    from tests.faults.fuzz import check_properties

    try:
        data, display, catalogs, what = make_case(seed, kind, i)
    except Exception:  # noqa: BLE001 - a bug of the harness: reported, and the run goes on
        return {"kind": kind, "i": i, "what": "(could not be made)", "display": "case.yaml", "clean": False,
                "compiled": False, "seconds": 0.0, "data": b"",
                "problems": ["harness: making the case raised: " + traceback.format_exc(limit=4)]}
    out = {"kind": kind, "i": i, "what": what, "display": display, "problems": [], "clean": False, "compiled": False}
    started = time.perf_counter()
    try:
        with time_limit(hang):
            verdict = check_properties(data, display, catalogs)
        out["problems"] = list(verdict.problems)
        out["clean"], out["compiled"] = verdict.clean, verdict.compiled
        if kind == "generated" and not verdict.clean:
            out["problems"].append("a generated (valid by construction) plan does not check clean: "
                                   + ", ".join(sorted(set(verdict.codes))))
    except Hang:
        out["problems"].append(f"did not finish within {hang} s")
    except Exception:  # noqa: BLE001 - the property runner itself must not stop the run
        out["problems"].append("raised: " + traceback.format_exc(limit=8))
    out["seconds"] = time.perf_counter() - started
    if out["problems"]:
        out["data"] = data
    return out


def _worker(args) -> None:
    seed, start, step, deadline, hang, queue = args
    # Mutations nest documents a thousand levels deep: the serializer and the property
    # runner recurse (the compiler itself refuses past 256 levels without recursing).
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
    i = start
    try:
        while time.time() < deadline:
            kind = KINDS[i % len(KINDS)]
            queue.put(run_case(seed, kind, i, hang))
            i += step
    finally:
        queue.put(None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    parser.add_argument("--seed", default=str(int(time.time())), help="base seed (default: the time)")
    parser.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--hang", type=int, default=60, help="seconds after which one case is a hang (default 60)")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "taskplan-fuzz-failures"),
                        help="where failing documents are written (default: a folder in the temp directory)")
    parser.add_argument("--replay", metavar="KIND:I", help="run one case again and print it")
    args = parser.parse_args(argv)

    if args.replay:
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))
        kind, _, i = args.replay.partition(":")
        data, display, catalogs, what = make_case(args.seed, kind, int(i))
        print(f"# {kind}:{i} (seed {args.seed}): {what}\n# {display}, catalogs: {', '.join(catalogs) or 'none'}")
        print(data.decode("utf-8", "replace"))
        result = run_case(args.seed, kind, int(i), args.hang)
        print("\n".join(result["problems"]) or "ok: every property holds")
        return 1 if result["problems"] else 0

    deadline = time.time() + args.minutes * 60
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    workers = [ctx.Process(target=_worker, args=((args.seed, w, args.workers, deadline, args.hang, queue),))
               for w in range(args.workers)]
    for w in workers:
        w.start()
    started = time.time()
    counts: Counter = Counter()
    clean: Counter = Counter()
    compiled: Counter = Counter()
    failures: list[dict] = []
    slowest = (0.0, "")
    done = 0
    last_report = started
    print(f"fuzzing for {args.minutes:g} min, seed {args.seed}, {args.workers} worker(s)", flush=True)
    while done < len(workers):
        try:
            item = queue.get(timeout=args.hang + 60)
        except Exception:  # noqa: BLE001 - queue.Empty: a worker died without a word
            if not any(w.is_alive() for w in workers):
                print("every worker has stopped", flush=True)
                break
            continue
        if item is None:
            done += 1
            continue
        counts[item["kind"]] += 1
        clean[item["kind"]] += item["clean"]
        compiled[item["kind"]] += item["compiled"]
        if item["seconds"] > slowest[0]:
            slowest = (item["seconds"], f"{item['kind']}:{item['i']}")
        if item["problems"]:
            failures.append(item)
            keep_failure(item, args.out, "fuzz_long.py", args.seed, "FAIL", 400)
        if time.time() - last_report > 60:
            last_report = time.time()
            print(f"  {sum(counts.values())} cases, {len(failures)} failures, {time.time() - started:.0f} s", flush=True)
    for w in workers:
        w.join()
    elapsed = time.time() - started
    total = sum(counts.values())
    print(f"\n{total} cases in {elapsed:.0f} s ({total / max(elapsed, 1e-9):.1f}/s), seed {args.seed}")
    print(f"{'kind':22} {'cases':>7} {'clean':>7} {'compiled':>9}")
    for kind in KINDS:
        print(f"{kind:22} {counts[kind]:7} {clean[kind]:7} {compiled[kind]:9}")
    print(f"slowest case: {slowest[1]} {slowest[0]:.2f} s")
    signatures = Counter(f["problems"][0].split(":")[0][:80] for f in failures)
    print(f"failures: {len(failures)}" + "".join(f"\n  {n} x {sig}" for sig, n in signatures.most_common()))
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
