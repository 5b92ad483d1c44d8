"""Benchmark the validate pass and the emitter on a generated workflow document.

Generates a workflow of N steps (default 10,000) shaped like compiled output:
catalog executor steps with request envelopes, llm.call with strict schemas,
template.render, value.validate + loop.parallel + array.project per foreach,
switch + value.project per conditional, a finally with presence guards; every
step reads earlier steps by expression, generated IDs with dots included. It
prints, in seconds (best of `--repeat`):

  emit             workflow.emit.emit_yaml (ruamel safe representer + libyaml C emitter)
  json.dumps       the same data as JSON, for scale
  read             read_document on the emitted YAML (tree + source map)
  structure        the schema check alone (workflow.structure.check_structure)
  validate         the whole validate pass on the read document (structure included)
  jsonschema       Draft202012Validator(...).is_valid on the same tree (`--jsonschema`)

Each as the best wall-clock and the best CPU time.

    python benchmarks/bench_validate.py [N] [--repeat 3] [--jsonschema]
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any, Callable

from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.passes.validate import validate_document
from taskplan.source.read import WORKFLOW_CODES, read_document
from taskplan.workflow import expr as ex
from taskplan.workflow.emit import emit_yaml
from taskplan.workflow.structure import check_structure


def best(fn: Callable[[], Any], repeat: int) -> tuple[float, float]:
    """The best wall-clock and the best CPU time of `repeat` runs (CPU time is what
    to compare on a busy machine)."""
    walls, cpus = [], []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def workflow(n: int) -> dict[str, Any]:
    """A valid document of about `n` steps."""
    steps: list[dict[str, Any]] = []
    workflows: dict[str, Any] = {}
    body_count = 0
    i = 0
    e = ex.expression
    while len(steps) < n:
        tid = f"task_{i}"
        prev = steps[-1]["id"] if steps else None
        kind = i % 6
        if kind == 0 or prev is None:
            steps.append({
                "id": tid, "type": "mcp.call", "source": f"/root/tasks/{i}",
                "input": {"server": "github", "tool": f"tool_{i % 17}",
                          "request": {"owner": "${data.inputs.owner}", "n": i, "note": {"$literal": "${not an expression}"}}},
                "effect": "read",
            })
        elif kind == 1:
            steps.append({
                "id": f"__{tid}.prompt", "type": "template.render", "source": f"/root/tasks/{i}",
                "template": "Objective: {{ objective }}\nInput: {{ input }}\n",
                "values": {"objective": f"summarize item {i}", "input": e(f"json({ex.step_path(prev, 'result')})")},
            })
            steps.append({
                "id": tid, "type": "llm.call", "source": f"/root/tasks/{i}",
                "prompt": e(ex.step_path(f"__{tid}.prompt", "text")),
                "schema": {"type": "object", "properties": {"summary": {"type": "string"}, "score": {"type": ["integer", "null"]}},
                           "required": ["summary", "score"], "additionalProperties": False},
            })
        elif kind == 2:
            body = f"{tid}.body"
            body_count += 1
            workflows[body] = {
                "inputs": {"owner": {"type": {"type": "string"}}},
                "steps": [{"id": "inner", "type": "mcp.call", "input": {"server": "s", "request": {"item": "${data.item}", "i": "${data.index}", "o": "${data.inputs.owner}"}}}],
                "outputs": {"out": {"type": {"type": "object"}, "expr": "${data.steps.inner.result}"}},
            }
            steps.append({"id": f"__{tid}.validate", "type": "value.validate", "source": f"/root/tasks/{i}/items",
                          "value": e(ex.step_path(prev, "value") if prev.startswith("task_") and False else ex.input_path("items")),
                          "schema": {"type": "array"}, "max_items": 100})
            steps.append({"id": tid, "type": "loop.parallel", "source": f"/root/tasks/{i}",
                          "items": e(ex.step_path(f"__{tid}.validate", "value")), "call": body,
                          "input": {"owner": "${data.inputs.owner}"}, "max_concurrency": 4})
            steps.append({"id": f"__{tid}.collect.out", "type": "array.project", "source": f"/root/tasks/{i}/body/outputs/0",
                          "from": e(ex.step_path(tid, "results")), "path": ["out"]})
        elif kind == 3:
            steps.append({"id": tid, "type": "switch", "source": f"/root/tasks/{i}",
                          "cases": [{"when": e(f"present({ex.step_path(prev)}) and {ex.input_path('flag')} == true"),
                                     "steps": [{"id": f"__{tid}.then", "type": "set", "value": {"v": "${data.inputs.owner}"}}]}],
                          "default": {"steps": [{"id": f"__{tid}.else", "type": "set", "value": {"v": None}}]}})
            steps.append({"id": f"__{tid}.merge.v", "type": "value.project", "source": f"/root/tasks/{i}/body/outputs/0",
                          "from": e(ex.step_path(tid, "case")), "path": [], "required": False})
        elif kind == 4:
            steps.append({"id": tid, "type": "set", "source": f"/root/tasks/{i}",
                          "value": {"a": e(ex.input_path("owner")), "b": [1, 2.5, True, None, "yes", "text"]}})
        else:
            steps.append({"id": tid, "type": "operation.call", "source": f"/root/tasks/{i}",
                          "input": {"operation": "ops.run", "request": {"x": e(ex.step_path(prev))}},
                          "effect": "write"})
        i += 1
    main = {
        "inputs": {"owner": {"type": {"type": "string"}}, "items": {"type": {"type": "array"}},
                   "flag": {"type": {"type": "boolean"}, "default": False}},
        "steps": steps,
        "finally": [{"id": "cleanup", "type": "mcp.call", "when": e(f"present({ex.step_path(steps[0]['id'])})"),
                     "input": {"server": "s", "request": {"x": e(ex.step_path(steps[0]["id"], "result"))}}, "effect": "destroy"}],
        "outputs": {"last": {"expr": e(ex.step_path(steps[-1]["id"]))}},
    }
    return {"version": 1, "name": "bench", "entrypoint": "main",
            "source": {"plan": "bench.taskplan.yaml", "digest": "sha256:" + "0" * 64},
            "workflows": {"main": main, **workflows}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("n", nargs="?", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jsonschema", action="store_true", help="also time jsonschema on the same tree")
    args = parser.parse_args()

    data = workflow(args.n)
    text = emit_yaml(data)
    raw = text.encode("utf-8")
    nsteps = sum(len(w["steps"]) + len(w.get("finally", [])) for w in data["workflows"].values())
    print(f"{nsteps} steps in {len(data['workflows'])} workflows, {len(raw) / 1e6:.1f} MB of YAML")

    def read():
        sink = Diagnostics()
        return read_document(raw, "bench.yaml", sink, codes=WORKFLOW_CODES), sink

    document, sink = read()
    assert document.ok and document.tree == data

    def validate():
        ex.parse.cache_clear()  # every run parses every expression anew
        s = Diagnostics()
        result = validate_document(document, Reporter(document, s))
        assert result.ok, [d.message for d in result.diagnostics][:5]

    rows = [
        ("emit", best(lambda: emit_yaml(data), args.repeat)),
        ("json.dumps", best(lambda: json.dumps(data), args.repeat)),
        ("read", best(read, args.repeat)),
        ("structure", best(lambda: check_structure(document.tree), args.repeat)),
        ("validate", best(validate, args.repeat)),
    ]
    if args.jsonschema:
        from jsonschema import Draft202012Validator

        from taskplan.workflow.schema import build_schema

        validator = Draft202012Validator(build_schema())
        assert validator.is_valid(data)
        rows.append(("jsonschema", best(lambda: validator.is_valid(data), 1)))
    print(f"  {'':<12} {'wall':>8}   {'cpu':>8}")
    for name, (wall, cpu) in rows:
        print(f"  {name:<12} {wall:8.3f} s {cpu:8.3f} s")


if __name__ == "__main__":
    main()
