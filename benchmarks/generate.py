"""Generate realistic TaskPlans of N tasks over a catalog of M operations.

The mix per block of 15 tasks: operation tasks chained through ports, a value
task, a foreach (2 body tasks: a transform and an operation), a conditional
(one task per side, merged output), a parallel (2 branches), a sequence, a
call of a group, and a cleanup task in `always`. One choice is read by every
block. Used by the benchmark scripts and by scale tests.

    python benchmarks/generate.py 10000 -o /tmp/plan.json --catalog-out /tmp/catalog.yaml
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

BLOCK_TASKS = 15


def catalog(m: int = 500) -> dict[str, Any]:
    """A catalog of `m` operations in sources of 50."""
    sources = []
    for s in range((m + 49) // 50):
        ops = []
        for j in range(min(50, m - s * 50)):
            ops.append(
                {
                    "id": f"svc{s}.op{j}",
                    "title": f"Operation {j} of service {s}",
                    "description": f"Does thing number {j} for service {s}: fetch, list or update records.",
                    "executor": {"type": "mcp.call", "config": {"server": f"svc{s}", "tool": f"op{j}"}},
                    "effect": "read" if j % 3 else "write",
                    "fixed": {"tenant": "acme"},
                    "input": {
                        "type": "object",
                        "properties": {
                            "query": {"type": "string"},
                            "limit": {"type": "integer", "minimum": 1},
                            "mode": {"type": "string", "enum": ["fast", "full"]},
                            "tenant": {"type": "string"},
                        },
                        "required": ["query", "tenant"],
                    },
                    "output": {
                        "type": "object",
                        "properties": {
                            "id": {"type": "string"},
                            "count": {"type": "integer"},
                            "status": {"type": "string", "enum": ["ok", "partial"]},
                            "items": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}, "size": {"type": "number"}},
                                    "required": ["name", "size"],
                                },
                            },
                        },
                        "required": ["id", "count", "status", "items"],
                    },
                }
            )
        sources.append({"id": f"svc{s}", "description": f"Service {s}", "operations": ops})
    return {"version": 1, "sources": sources}


def _op(task_id: str, op: str, query: dict[str, Any], objective: str = "Call the service") -> dict[str, Any]:
    return {
        "id": task_id,
        "objective": objective,
        "operation": op,
        "inputs": [
            {"name": "query", "value": query},
            {"name": "limit", "value": {"kind": "number", "number": 10}},
        ],
    }


def _out(source: str, port: str | None) -> dict[str, Any]:
    return {"kind": "output", "source": source, "port": port}


def plan(n: int, m: int = 500) -> dict[str, Any]:
    """A plan of exactly `n` tasks (at every depth) over `catalog(m)`."""
    tasks: list[dict[str, Any]] = []
    always: list[dict[str, Any]] = []
    count = 0
    prev = None
    b = 0
    while n - count >= BLOCK_TASKS:
        op = f"svc{(b % ((m + 49) // 50))}.op{b % min(50, m)}"
        first = f"b{b}_fetch"
        # Each block starts from the previous block's audit entry (so every export is read).
        query = _out(prev, "entry") if prev else {"kind": "input", "source": "topic"}
        tasks.append(_op(first, op, query, "Fetch the records for this block"))
        tasks.append(
            {
                "id": f"b{b}_label",
                "kind": "value",
                "objective": "Assemble the label",
                "outputs": [
                    {"name": "label", "value": {"kind": "json", "items": [_out(first, "id")]}},
                    {"name": "tone", "value": {"kind": "choice", "source": "tone"}},
                ],
            }
        )
        tasks.append(
            {
                "id": f"b{b}_each",
                "kind": "foreach",
                "objective": "Handle every record",
                "items": _out(first, "items"),
                "parallel": b % 2 == 0,
                "maxItems": 500,
                "body": {
                    "tasks": [
                        {
                            "id": f"b{b}_judge",
                            "kind": "transform",
                            "objective": "Judge the record",
                            "inputs": [
                                {"name": "name", "value": {"kind": "field", "items": [{"kind": "item"}], "port": "name"}},
                                {"name": "tone", "value": {"kind": "output", "source": f"b{b}_label", "port": "tone"}},
                            ],
                            "resultType": {
                                "kind": "object",
                                "fields": [
                                    {"name": "keep", "type": {"kind": "boolean"}},
                                    {"name": "reason", "type": {"kind": "string"}},
                                ],
                            },
                        },
                        _op(f"b{b}_store", op, _out(f"b{b}_judge", "reason"), "Store the judgement"),
                    ],
                    "outputs": [{"name": "keep", "value": _out(f"b{b}_judge", "keep")}],
                },
            }
        )
        tasks.append(
            {
                "id": f"b{b}_branch",
                "kind": "conditional",
                "objective": "Follow up only when the fetch was complete",
                "condition": {
                    "kind": "predicate",
                    "predicate": "equal",
                    "items": [_out(first, "status"), {"kind": "string", "text": "ok"}],
                },
                "body": {
                    "tasks": [_op(f"b{b}_yes", op, _out(first, "id"), "Follow up")],
                    "outputs": [{"name": "ref", "value": _out(f"b{b}_yes", "id")}],
                },
                "otherwise": {
                    "tasks": [_op(f"b{b}_no", op, {"kind": "string", "text": "retry"}, "Retry later")],
                    "outputs": [{"name": "ref", "value": _out(f"b{b}_no", "id")}],
                },
            }
        )
        tasks.append(
            {
                "id": f"b{b}_both",
                "kind": "parallel",
                "objective": "Notify both channels",
                "maxConcurrency": 2,
                "branches": [
                    {"tasks": [_op(f"b{b}_left", op, _out(f"b{b}_branch", "ref"), "Notify left")]},
                    {"tasks": [_op(f"b{b}_right", op, _out(f"b{b}_label", "label"), "Notify right")]},
                ],
            }
        )
        tasks.append(
            {
                "id": f"b{b}_seq",
                "kind": "sequence",
                "objective": "Archive the block",
                "body": {"tasks": [_op(f"b{b}_archive", op, {"kind": "json", "items": [_out(f"b{b}_each", "keep")]},
                                       "Archive the judgements")]},
            }
        )
        tasks.append(
            {
                "id": f"b{b}_call",
                "kind": "call",
                "objective": "Audit the block",
                "group": "audit",
                "inputs": [{"name": "ref", "value": _out(first, "id")}],
            }
        )
        always.append(_op(f"b{b}_cleanup", op, _out(first, "id"), "Release the block's records"))
        count += BLOCK_TASKS
        prev = f"b{b}_call"
        b += 1
    for i in range(n - count):
        if i == 0 and prev:
            query = _out(prev, "entry")
        else:
            query = _out(prev, "id") if prev else {"kind": "input", "source": "topic"}
        tasks.append(_op(f"tail{i}", "svc0.op0", query))
        prev = f"tail{i}"
    # The plan's result: the last audit entry (or the last tail task's id), which nothing
    # inside reads.
    outputs = []
    if prev:
        outputs = [{"name": "last", "value": _out(prev, "id" if prev.startswith("tail") else "entry")}]
    groups = [
        {
            "id": "audit",
            "objective": "Record an audit entry",
            "inputs": [{"name": "ref", "type": {"kind": "string"}}],
            "body": {
                "tasks": [_op("audit_write", "svc0.op1", {"kind": "input", "source": "ref"}, "Write the entry")],
                "outputs": [{"name": "entry", "value": _out("audit_write", "id")}],
            },
        }
    ]
    return {
        "version": 1,
        "name": f"generated-{n}",
        "inputs": [{"name": "topic", "type": {"kind": "string"}}],
        "root": {"tasks": tasks, "always": always, "outputs": outputs},
        "groups": groups,
        "choices": [
            {
                "id": "tone",
                "question": "Which tone?",
                "type": {"kind": "string", "enum": ["formal", "friendly"]},
                "alternatives": [
                    {"id": "formal", "value": {"kind": "string", "text": "formal"}},
                    {"id": "friendly", "value": {"kind": "string", "text": "friendly"}},
                ],
                "recommended": "formal",
            }
        ],
    }


def count_tasks(doc: dict[str, Any]) -> int:
    def scope(s: dict[str, Any] | None) -> int:
        if not s:
            return 0
        return sum(task(t) for t in s.get("tasks", []) + s.get("always", []))

    def task(t: dict[str, Any]) -> int:
        return 1 + scope(t.get("body")) + scope(t.get("otherwise")) + sum(scope(b) for b in t.get("branches", []))

    return scope(doc["root"]) + sum(scope(g["body"]) for g in doc.get("groups", []))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int)
    ap.add_argument("-m", type=int, default=500, help="catalog size")
    ap.add_argument("-o", "--out", help="plan file (.json or .yaml); stdout when absent")
    ap.add_argument("--catalog-out", help="write the catalog (YAML as JSON text) here")
    args = ap.parse_args(argv)
    text = json.dumps(plan(args.n, args.m), indent=1)
    if args.out:
        if args.out.endswith((".yaml", ".yml")):
            from ruamel.yaml import YAML

            y = YAML(typ="safe", pure=False)
            y.default_flow_style = False
            with open(args.out, "w") as f:
                y.dump(json.loads(text), f)
        else:
            with open(args.out, "w") as f:
                f.write(text)
    else:
        sys.stdout.write(text)
    if args.catalog_out:
        with open(args.catalog_out, "w") as f:
            json.dump(catalog(args.m), f, indent=1)


if __name__ == "__main__":
    main()
