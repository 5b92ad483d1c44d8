"""Generated IDs are pure functions of business identity and structural role
(workflow.md, Generated IDs): adding, removing or editing one task changes no
generated ID outside that task's own steps."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan import api

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"


def _cases() -> list[tuple[Path, list[str]]]:
    cases = [(ROOT / "examples/pr-review.taskplan.yaml", [str(ROOT / "examples/catalog.yaml")])]
    manifest = FIXTURES / "valid" / "manifest.yaml"
    if manifest.exists():
        for case in (YAML(typ="safe").load(manifest.read_text()) or {}).get("cases") or []:
            cases.append(
                (FIXTURES / "valid" / case["plan"], [str(FIXTURES / "catalogs" / c) for c in case.get("catalogs") or []])
            )
    return cases


CASES = _cases()


def _load(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else YAML(typ="safe").load(text)


def _scopes(plan: dict[str, Any]) -> list[dict[str, Any]]:
    """Every scope of the plan (root, nested, group bodies)."""
    out: list[dict[str, Any]] = []

    def scope(s: Any) -> None:
        if not isinstance(s, dict):
            return
        out.append(s)
        for t in (s.get("tasks") or []) + (s.get("always") or []):
            for key in ("body", "otherwise"):
                scope(t.get(key))
            for b in t.get("branches") or []:
                scope(b)

    scope(plan["root"])
    for g in plan.get("groups") or []:
        scope(g.get("body"))
    return out


def _tasks(plan: dict[str, Any]) -> list[tuple[dict[str, Any], str, dict[str, Any]]]:
    return [(s, k, t) for s in _scopes(plan) for k in ("tasks", "always") for t in s.get(k) or []]


def _descendants(task: dict[str, Any]) -> set[str]:
    ids = {task["id"]}
    for key in ("body", "otherwise"):
        if isinstance(task.get(key), dict):
            for s in _scopes({"root": task[key]}):
                ids.update(t["id"] for k in ("tasks", "always") for t in s.get(k) or [])
    for b in task.get("branches") or []:
        for s in _scopes({"root": b}):
            ids.update(t["id"] for k in ("tasks", "always") for t in s.get(k) or [])
    return ids


def _compile(plan: dict[str, Any], catalogs: list[str]) -> api.CompileResult:
    result = api.compile_plan("plan.json", text=json.dumps(plan).encode(), catalogs=catalogs, auto=True)
    assert result.graph is None or result.graph.check() == []  # compile leaves it to the tests
    return result


def _ids(result: api.CompileResult) -> dict[tuple[str, str], str]:
    """(workflow, step ID) -> the task the step belongs to (the first part of its structural key)."""
    out = {}
    for wf, step in result.graph.steps():
        out[(wf.name, step.id)] = step.key[1]  # keys are (role, task or scope owner, ...)
    return out


def _mentions(plan: dict[str, Any], task_id: str) -> bool:
    """Whether anything reads or depends on `task_id`."""
    text = json.dumps(plan)
    return f'"source": "{task_id}"' in text or f'"{task_id}"' in json.dumps(
        [t.get("dependsOn") for _, _, t in _tasks(plan)]
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_one_task_edit_renames_nothing_else(data):
    path, catalogs = data.draw(st.sampled_from(CASES), label="fixture")
    plan = _load(path)
    before = _compile(plan, catalogs)
    assert before.graph is not None, [d.message for d in before.diagnostics]
    mutated = copy.deepcopy(plan)
    tasks = _tasks(mutated)
    kind = data.draw(st.sampled_from(["add", "remove", "edit"]), label="mutation")
    if kind == "add":
        scope = data.draw(st.sampled_from(_scopes(mutated)), label="scope")
        scope.setdefault("tasks", [])
        position = data.draw(st.integers(0, len(scope["tasks"] or [])), label="position")
        new = {
            "id": "hypothesis_added",
            "kind": "value",
            "objective": "An extra task",
            "outputs": [{"name": "note", "value": {"kind": "string", "text": "added"}}],
        }
        scope["tasks"] = list(scope["tasks"] or [])
        scope["tasks"].insert(position, new)
        affected = {"hypothesis_added"}
    else:
        candidates = [(s, k, t) for s, k, t in tasks if not _mentions(mutated, t["id"])]
        assume(candidates)
        scope, key, task = data.draw(st.sampled_from(candidates), label="task")
        affected = _descendants(task)
        if kind == "remove":
            scope[key] = [t for t in scope[key] if t is not task]
            if task.get("kind") == "call" and not any(
                t.get("kind") == "call" and t.get("group") == task.get("group") for _, _, t in _tasks(mutated)
            ):
                # Its group's last call: the group (a group nobody calls compiles to nothing) goes too.
                for g in mutated.get("groups") or []:
                    if g.get("id") == task.get("group"):
                        affected |= {g["id"]} | _descendants({"id": g["id"], "body": g.get("body")})
        else:
            strings = _strings(task)
            assume(strings)
            node = data.draw(st.sampled_from(strings), label="literal")
            node["text"] = node["text"] + " (edited)"
            affected = {task["id"]}
    after = _compile(mutated, catalogs)
    assume(after.graph is not None)  # the mutation made the plan invalid: nothing to compare
    old, new = _ids(before), _ids(after)
    kept = {k for k, owner in old.items() if owner not in affected and k[0].split(".")[0] not in affected}
    lost = sorted(kept - set(new))
    assert not lost, f"{kind} in {path.name} renamed or dropped {lost[:5]}"
    if kind == "add":
        assert set(old) <= set(new)


def _strings(node: Any) -> list[dict[str, Any]]:
    """String literal values inside a task's own bindings and outputs (not nested tasks)."""
    out: list[dict[str, Any]] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            if v.get("kind") == "string" and isinstance(v.get("text"), str):
                out.append(v)
            for key, child in v.items():
                if key not in ("body", "otherwise", "branches"):
                    walk(child)
        elif isinstance(v, list):
            for child in v:
                walk(child)

    walk({k: v for k, v in node.items() if k in ("inputs", "outputs", "condition", "items")})
    return out


def _compile_text(tmp_path: Path, text: str) -> dict[str, Any]:
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(text)
    result = api.compile_plan(str(path), catalogs=[], auto=True)
    assert result.exit_code == 0, [d.message for d in result.diagnostics]
    return YAML(typ="safe").load(result.yaml)["workflows"]


def test_a_task_called_main_and_the_root_outputs_get_distinct_helper_steps(tmp_path):
    """The root's outputs take their helper IDs from the workflow's name, `main`, which
    is also a valid task ID: their structural keys differ, so the second is hashed
    (it was one key, one ID declared twice: COMPILER_INTERNAL)."""
    workflows = _compile_text(tmp_path, """
version: 1
name: main-task
root:
  tasks:
    - id: main
      kind: value
      objective: A task that happens to be called main
      outputs:
        - {name: x, value: {kind: json, items: [{kind: object, members: [{name: a, value: {kind: number, number: 1}}]}]}}
  outputs:
    - {name: x, value: {kind: json, items: [{kind: object, members: [{name: b, value: {kind: output, source: main, port: x}}]}]}}
""")
    ids = [s["id"] for s in workflows["main"]["steps"]]
    assert len(ids) == len(set(ids)) == 3
    assert ids[:2] == ["__main.out.x.json.value", "main"] and ids[2].startswith("__main.out.x.json.value-h")


def test_a_hashed_capture_name_never_takes_another_captures_name(tmp_path):
    """Input `g` and task `g` both captured into one child get hashed names; a task may
    be called exactly like one of those (`g-hf82770`): each value still arrives under
    its own name (the input was silently replaced by that task's result)."""
    workflows = _compile_text(tmp_path, """
version: 1
name: capture-names
inputs:
  - {name: g, type: {kind: string}}
root:
  tasks:
    - {id: g, kind: value, objective: G, outputs: [{name: a, value: {kind: string, text: from-task}}]}
    - {id: g-hf82770, kind: value, objective: Looks hashed, outputs: [{name: r, value: {kind: string, text: other}}]}
    - id: s
      kind: sequence
      objective: Reads all three
      body:
        tasks:
          - id: u
            kind: value
            objective: Use
            outputs:
              - {name: i, value: {kind: input, source: g}}
              - {name: t, value: {kind: output, source: g, port: a}}
              - {name: o, value: {kind: output, source: g-hf82770, port: r}}
        outputs: [{name: i, value: {kind: output, source: u, port: i}}]
  outputs:
    - {name: i, value: {kind: output, source: s, port: i}}
""")
    call = {st["id"]: st for st in workflows["main"]["steps"]}["s"]
    passed = {v: k for k, v in call["input"].items()}
    assert len(passed) == 3 and len(set(call["input"])) == 3
    body = workflows["s.body"]
    value = body["steps"][0]["value"]
    assert value["i"] == "${data.inputs." + passed["${data.inputs.g}"] + "}"
    assert value["t"] == "${data.inputs." + passed["${data.steps.g.value}"] + ".a}"
    assert value["o"] == "${data.inputs." + passed["${data.steps.g-hf82770.value}"] + ".r}"
    assert body["inputs"][passed["${data.inputs.g}"]] == {"type": {"type": "string"}}
