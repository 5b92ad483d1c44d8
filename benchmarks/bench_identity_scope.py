"""Time the identity and scope passes on a generated plan (benchmarks/generate.py).

    python benchmarks/bench_identity_scope.py 10000

Prints the plan's size and the best of a few runs of each pass (the plan is
shaped once, with plain model validation; only identity and scope are timed)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import count_tasks, plan as generate_plan  # noqa: E402

from taskplan.diagnostics import Diagnostics, Reporter  # noqa: E402
from taskplan.model.plan import TaskPlan, validate_model  # noqa: E402
from taskplan.passes import identity, scope  # noqa: E402
from taskplan.source.document import SourceDocument  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    tree = generate_plan(args.n)
    model = validate_model(TaskPlan, tree)
    doc = SourceDocument("generated.json", "", "json", "", tree)
    best_id = best_scope = cpu_id = cpu_scope = float("inf")
    for _ in range(args.repeat):
        sink = Diagnostics()
        reporter = Reporter(doc, sink)
        t0, c0 = time.perf_counter(), time.process_time()
        table = identity.run(model, reporter)
        t1, c1 = time.perf_counter(), time.process_time()
        checked = scope.run(model, table, reporter)
        t2, c2 = time.perf_counter(), time.process_time()
        best_id, best_scope = min(best_id, t1 - t0), min(best_scope, t2 - t1)
        cpu_id, cpu_scope = min(cpu_id, c1 - c0), min(cpu_scope, c2 - c1)
    refs = len(checked.resolutions)
    print(f"tasks: {count_tasks(tree)}  scopes: {len(checked.scopes)}  references: {refs}  diagnostics: {len(sink)}")
    print(f"wall  identity: {best_id * 1000:.1f} ms  scope: {best_scope * 1000:.1f} ms  total: {(best_id + best_scope) * 1000:.1f} ms")
    print(f"cpu   identity: {cpu_id * 1000:.1f} ms  scope: {cpu_scope * 1000:.1f} ms  total: {(cpu_id + cpu_scope) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
