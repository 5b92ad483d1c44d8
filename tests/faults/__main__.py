"""python -m tests.faults [--report] [--cases] [--code CODE] [--limit N]"""

from __future__ import annotations

import argparse
import sys
import time

from . import EXEMPT, OPERATORS, cases, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.faults", description=__doc__)
    parser.add_argument("--report", action="store_true", help="print the detection report per code (default)")
    parser.add_argument("--cases", action="store_true", help="print every case and what the compiler reported")
    parser.add_argument("--code", action="append", help="only these codes")
    parser.add_argument("--limit", type=int, default=None, help="at most N seeds per operator (default: all)")
    args = parser.parse_args(argv)

    from taskplan.diagnostics.registry import REGISTRY

    started = time.perf_counter()
    rows: dict[str, dict] = {code: {"operators": 0, "cases": 0, "detected": 0} for code in REGISTRY}
    failures: list[str] = []
    for op in OPERATORS:
        if args.code and op.code not in args.code:
            continue
        row = rows.setdefault(op.code, {"operators": 0, "cases": 0, "detected": 0})
        row["operators"] += 1
        for seed, injection in cases(op, args.limit):
            outcome = run(op, seed, injection)
            problems = outcome.problems(op.code, injection)
            row["cases"] += 1
            row["detected"] += not problems
            if problems:
                failures.append(f"{op.id} on {seed.name}: {problems[0]}")
            if args.cases:
                print(f"{'ok  ' if not problems else 'MISS'} {op.id:60} {seed.name:28} {injection.pointer}")
                for p in problems:
                    print(f"       {p}")
    codes = [c for c in rows if not args.code or c in args.code]
    width = max(len(c) for c in codes)
    print(f"{'code':{width}}  operators  cases  detected")
    for code in sorted(codes):
        row = rows[code]
        note = f"  ({EXEMPT[code]})" if code in EXEMPT else ("  NO OPERATOR" if not row["operators"] else "")
        print(f"{code:{width}}  {row['operators']:9}  {row['cases']:5}  {row['detected']:8}{note}")
    total = {k: sum(r[k] for c, r in rows.items() if c in codes) for k in ("operators", "cases", "detected")}
    print(f"{'total':{width}}  {total['operators']:9}  {total['cases']:5}  {total['detected']:8}")
    print(f"({time.perf_counter() - started:.1f} s)")
    for f in failures:
        print("MISS", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
