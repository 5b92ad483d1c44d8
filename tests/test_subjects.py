"""Subjects (diagnostics.md: the business address a repair loop scopes a repair by).

Over the whole error corpus (fixtures/errors/), every diagnostic located inside a task
names that task (the innermost one whose subtree holds the pointer) in its subject, and
one in a root `outputs` entry names that output; the exceptions are listed. Then the
rules of `taskplan.passes.subjects.subject_at`, and the codes the audit found without
a subject or with the wrong one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_manifest import CASES, CATALOGS

from taskplan.api import check_plan
from taskplan.passes.subjects import subject_at
from taskplan.source import pointer as jp

NO_SUBJECT = {
    "PLAN_SYNTAX": "the reader's, before the tree exists (or located in a tree the parser gave up on)",
    "PLAN_LIMIT": "the reader's: the document is not read further",
}
"""Codes reported without a subject, and why."""


def _innermost(tree, pointer: str) -> tuple[str | None, str | None]:
    """(the ID of the innermost task on the way to `pointer`, the name of the root
    output it is in), told independently of `subject_at`."""
    node, task, output = tree, None, None
    tokens = jp.split(pointer)
    for i, token in enumerate(tokens):
        if isinstance(node, dict):
            node = node.get(token)
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
            if isinstance(node, dict) and tokens[i - 1] in ("tasks", "always") and isinstance(node.get("id"), str):
                task = node["id"]
            if tokens[: i + 1] == ["root", "outputs", token] and isinstance(node, dict) and isinstance(node.get("name"), str):
                output = node["name"]
        else:
            break
    return task, output


PLAN_CASES = [c for c in CASES if not c.valid and "plan" in c.data]


@pytest.mark.parametrize("case", PLAN_CASES, ids=[c.id for c in PLAN_CASES])
def test_a_diagnostic_inside_a_task_names_that_task(case):
    document = case.manifest.parent / case.data["plan"]
    result = check_plan(document, catalogs=[CATALOGS / c for c in case.data.get("catalogs") or []])
    tree = result.documents[str(document)].tree
    wrong = []
    for d in result.diagnostics:
        if Path(d.location.file).resolve() != document.resolve() or d.code in NO_SUBJECT:
            continue
        task, output = _innermost(tree, d.location.pointer)
        subject = dict(d.subject)
        if task is not None and subject.get("task") != task:
            wrong.append(f"{d.code} at {d.location.pointer}: subject {subject}, expected task `{task}`")
        elif task is None and output is not None and subject.get("output") != output:
            wrong.append(f"{d.code} at {d.location.pointer}: subject {subject}, expected output `{output}`")
    assert not wrong, "\n".join(wrong)


TREE = {
    "inputs": [{"name": "repo"}],
    "root": {
        "tasks": [
            {
                "id": "outer",
                "inputs": [{"name": "b"}],
                "body": {"tasks": [{"id": "inner", "outputs": [{"name": "o"}]}], "outputs": [{"name": "e"}]},
            },
            {"id": 7, "outputs": [{"name": "x"}]},
        ],
        "outputs": [{"name": "result", "value": {"kind": "output", "source": "outer"}}],
        "always": [{"id": "clean"}],
    },
    "groups": [{"id": "g", "inputs": [{"name": "gi"}], "body": {"outputs": [{"name": "go"}], "tasks": [{"id": "gt"}]}}],
    "choices": [{"id": "c", "alternatives": [{"id": "a"}]}],
}


@pytest.mark.parametrize(
    "pointer, subject",
    [
        ("", {}),
        ("/version", {}),
        ("/root", {}),
        ("/inputs/0/name", {"input": "repo"}),
        ("/root/tasks/0/id", {"task": "outer"}),
        ("/root/tasks/0/inputs/0/value", {"task": "outer", "port": "b"}),
        ("/root/tasks/0/body/outputs/0/value/source", {"task": "outer", "port": "e"}),
        ("/root/tasks/0/body/tasks/0/outputs/0/name", {"task": "inner", "port": "o"}),
        ("/root/tasks/0/body/tasks/0/missing/deeper", {"task": "inner"}),
        ("/root/tasks/1/outputs/0/name", {}),  # an ID that is not a string is no address
        ("/root/outputs/0/value/source", {"output": "result"}),
        ("/root/always/0", {"task": "clean"}),
        ("/groups/0/inputs/0/type", {"group": "g", "input": "gi"}),
        ("/groups/0/body/outputs/0/value", {"group": "g", "port": "go"}),
        ("/groups/0/body/tasks/0/id", {"task": "gt"}),
        ("/choices/0/alternatives/0/id", {"choice": "c"}),
        ("/root/tasks/9", {}),
        ("not a pointer", {}),
    ],
)
def test_subject_at(pointer, subject):
    assert subject_at(TREE, pointer) == subject


def test_subject_at_without_a_tree():
    assert subject_at(None, "/root/tasks/0") == {}


def _check(tmp_path, text: str):
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(text, encoding="utf-8")
    return [(d.code, d.location.pointer, dict(d.subject)) for d in check_plan(path).diagnostics]


def test_field_predicate_and_name_codes_name_the_task_and_port(tmp_path):
    """The audit's subject-missing plan: none of these four had a subject."""
    got = _check(
        tmp_path,
        """\
version: 1
root:
  tasks:
    - id: make
      kind: value
      objective: Build a record
      outputs:
        - {name: rec, value: {kind: object, members: [{name: a, value: {kind: string, text: x}}]}}
    - id: use
      kind: value
      objective: Read it
      outputs:
        - {name: f, value: {kind: field, items: [{kind: output, source: make, port: rec}], port: b}}
        - {name: g, value: {kind: field, items: [{kind: string, text: s}], port: a}}
        - {name: h, value: {kind: predicate, predicate: less, items: [{kind: string, text: s}, {kind: number, number: 1}]}}
        - {name: h, value: {kind: string, text: dup}}
  outputs:
    - {name: f, value: {kind: output, source: use, port: f}}
    - {name: g, value: {kind: output, source: use, port: g}}
""",
    )
    assert got == [
        ("TASK_FIELD_UNKNOWN", "/root/tasks/1/outputs/0/value/port", {"task": "use", "port": "f"}),
        ("TASK_FIELD_TYPE", "/root/tasks/1/outputs/1/value/items/0", {"task": "use", "port": "g"}),
        ("TASK_PREDICATE_TYPE", "/root/tasks/1/outputs/2/value/items/1", {"task": "use", "port": "h"}),
        ("NAME_DUPLICATE", "/root/tasks/1/outputs/3/name", {"task": "use", "port": "h"}),
    ]


def test_a_duplicated_key_names_its_task_though_the_reader_found_it(tmp_path):
    """The reader reports a repeated key before the plan's structure exists; the API
    gives it the subject of its place once the tree is whole (here the task's `id`
    comes after the repeat, so it was not known when the reader reported)."""
    got = _check(
        tmp_path,
        """\
version: 1
root:
  tasks:
    - kind: value
      objective: Say hi
      objective: Say hello
      id: greet
      outputs:
        - {name: text, value: {kind: string, text: hi}}
  outputs:
    - {name: text, value: {kind: output, source: greet, port: text}}
""",
    )
    assert got == [("PLAN_DUPLICATE_KEY", "/root/tasks/0/objective", {"task": "greet"})]


def test_an_unknown_port_names_the_reader_not_the_producer(tmp_path):
    path = tmp_path / "p.taskplan.yaml"
    path.write_text(
        """\
version: 1
root:
  tasks:
    - id: make
      kind: value
      objective: Make a text
      outputs:
        - {name: text, value: {kind: string, text: hi}}
    - id: use
      kind: value
      objective: Use it
      outputs:
        - {name: copy, value: {kind: output, source: make, port: txt}}
  outputs:
    - {name: copy, value: {kind: output, source: use, port: copy}}
    - {name: raw, value: {kind: output, source: make, port: tx}}
""",
        encoding="utf-8",
    )
    diagnostics = check_plan(path).diagnostics
    assert [(d.code, dict(d.subject)) for d in diagnostics] == [
        ("TASK_OUTPUT_UNKNOWN", {"task": "use", "port": "copy"}),
        ("TASK_OUTPUT_UNKNOWN", {"output": "raw"}),
    ]
    # the producer stays in the message and as a related location
    assert "`make`" in diagnostics[0].message
    assert [r.location.pointer for r in diagnostics[0].related] == ["/root/tasks/0"]


def test_a_read_in_a_root_output_names_that_output(tmp_path):
    got = _check(
        tmp_path,
        """\
version: 1
root:
  tasks:
    - id: make
      kind: value
      objective: Make a text
      outputs:
        - {name: text, value: {kind: string, text: hi}}
  outputs:
    - {name: note, value: {kind: output, source: mkae, port: text}}
""",
    )
    assert got == [("TASK_REFERENCE_UNKNOWN", "/root/outputs/0/value/source", {"output": "note"})]
