"""Benchmark the read pass against plain loads of the same plan.

Generates a plan of N tasks (default 10,000; about 5 MB as YAML) with
benchmarks/generate.py, writes it as YAML and as JSON, and prints, in seconds
(best of `--repeat`):

  yaml safe load   ruamel YAML(typ="safe", pure=False): the C parser plus ruamel's
                   constructor, no positions (the CSafeLoader equivalent)
  yaml read        taskplan's YAML reader: tree + source map (read_document)
  json.loads       the standard library's C JSON decoder, no positions
  json read        taskplan's JSON reader: tree + source map (read_document); for a
                   plain document the checked json.loads fast path with lazy positions
  json read + spans  the same, then the span of every task (expands the lazy positions
                   the way diagnostics would, all of them)
  json strict      the strict one-pass reader alone (what a document with a duplicate
                   key or a surrogate escape takes)

    python benchmarks/bench_read.py [N] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import plan  # noqa: E402

from taskplan.diagnostics import Diagnostics, Reporter  # noqa: E402
from taskplan.source.document import SourceDocument  # noqa: E402
from taskplan.source.read import read_document  # noqa: E402


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, nargs="?", default=10_000, help="tasks in the generated plan")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    from ruamel.yaml import YAML

    doc = plan(args.n)
    json_text = json.dumps(doc, indent=2)
    dumper = YAML(typ="safe", pure=False)
    dumper.default_flow_style = False
    buf = io.StringIO()
    dumper.dump(doc, buf)
    yaml_text = buf.getvalue()
    yaml_bytes = yaml_text.encode()
    json_bytes = json_text.encode()

    def read(data: bytes, path: str) -> Any:
        sink = Diagnostics()
        document = read_document(data, path, sink)
        assert document.ok and not len(sink), sink.sorted()[:3]
        return document.tree

    # Both readers give the same tree as the plain loads.
    loader = YAML(typ="safe", pure=False)
    assert read(yaml_bytes, "plan.taskplan.yaml") == loader.load(yaml_text) == doc
    assert read(json_bytes, "plan.taskplan.json") == json.loads(json_text) == doc

    def read_and_locate() -> None:
        sink = Diagnostics()
        document = read_document(json_bytes, "plan.taskplan.json", sink)
        for i in range(len(document.tree["root"]["tasks"])):
            document.map.value_span(f"/root/tasks/{i}/id")

    def strict() -> None:
        from taskplan.config import DEFAULT_LIMITS
        from taskplan.source.json_reader import read_json
        from taskplan.source.read import PLAN_CODES, ReadContext

        sink = Diagnostics()
        document = SourceDocument("plan.taskplan.json", json_text, "json", "")
        ctx = ReadContext(json_text, Reporter(document, sink), PLAN_CODES, DEFAULT_LIMITS)
        collecting = gc.isenabled()
        gc.disable()  # as read_document does
        try:
            read_json(json_text, ctx, fast=False)
        finally:
            if collecting:
                gc.enable()

    rows = [
        ("yaml safe load (ruamel C)", len(yaml_bytes), best(lambda: YAML(typ="safe", pure=False).load(yaml_text), args.repeat)),
        ("yaml read (taskplan)", len(yaml_bytes), best(lambda: read(yaml_bytes, "plan.taskplan.yaml"), args.repeat)),
        ("json.loads", len(json_bytes), best(lambda: json.loads(json_text), args.repeat)),
        ("json read (taskplan)", len(json_bytes), best(lambda: read(json_bytes, "plan.taskplan.json"), args.repeat)),
        ("json read + every task span", len(json_bytes), best(read_and_locate, args.repeat)),
        ("json strict reader alone", len(json_bytes), best(strict, args.repeat)),
    ]
    print(f"plan of {args.n} tasks; best of {args.repeat}")
    for name, size, seconds in rows:
        print(f"  {name:<28} {size / 1e6:6.2f} MB  {seconds:8.3f} s")
    loads = rows[2][2]
    print(f"  yaml read / safe load: {rows[1][2] / rows[0][2]:.2f}x")
    print(f"  json read / json.loads: {rows[3][2] / loads:.2f}x "
          f"(with every task span: {rows[4][2] / loads:.2f}x; strict reader alone: {rows[5][2] / loads:.2f}x)")


if __name__ == "__main__":
    main()
