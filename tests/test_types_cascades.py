"""No cascades in the types pass (taskplan.md, Cascades; diagnostics.md: one mistake, one
diagnostic): an unknown operation is reported once, not per input or per reader; an
opaque producer bound to a typed port is one diagnostic, not one per field; a task with
a shape error is not blamed again by its readers; independent errors are each reported
exactly once; and the diagnostics are the same bytes run after run, whatever the hash
seed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from taskplan.api import check_plan, load_catalog_set

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "fixtures" / "catalogs"
REVIEW = CATALOGS / "review.catalog.yaml"

HEAD = """\
version: 1
inputs:
  - {name: owner, type: {kind: string}}
  - {name: repo, type: {kind: string}}
  - {name: number, type: {kind: integer}}
"""

# A catalog with an opaque operation and a port of a typed object with several
# required fields (an opaque value must not fail once per field).
OBJECT_CATALOG = """\
version: 1
sources:
  - id: deploy
    operations:
      - id: deploy.render
        description: "Render a deployment manifest (no output schema: opaque)"
        input:
          type: object
          properties: {service: {type: string}}
          required: [service]
      - id: deploy.apply
        description: "Apply a deployment spec"
        input:
          type: object
          properties:
            spec:
              type: object
              properties:
                service: {type: string}
                replicas: {type: integer}
                image: {type: string}
                env: {type: object, properties: {name: {type: string}}, required: [name]}
              required: [service, replicas, image, env]
          required: [spec]
        output:
          type: object
          properties: {revision: {type: integer}}
          required: [revision]
"""


def _check(text: str, catalogs, name: str = "plan.taskplan.yaml"):
    return check_plan(name, text=text.encode("utf-8"), catalogs=catalogs)


def _codes(result) -> list[tuple[str, str]]:
    return [(d.code, d.location.pointer) for d in result.diagnostics]


@pytest.fixture(scope="module")
def review():
    return load_catalog_set([REVIEW])


@pytest.fixture
def deploy(tmp_path):
    path = tmp_path / "deploy.catalog.yaml"
    path.write_text(OBJECT_CATALOG, encoding="utf-8")
    loaded = load_catalog_set([path])
    assert not loaded.diagnostics, [d.message for d in loaded.diagnostics]
    return loaded


UNKNOWN_OPERATION = HEAD + """\
root:
  tasks:
    - id: fetch_pr
      objective: "Fetch the pull request (misspelt operation, wrongly typed bindings)"
      operation: github.fetch_pull_request
      inputs:
        - {name: owner, value: {kind: number, number: 1}}
        - {name: repository, value: {kind: input, source: repo}}
        - {name: number, value: {kind: string, text: "42"}}
    - id: post
      objective: "Post the title, read several ways"
      operation: chat.post_message
      inputs:
        - {name: channel, value: {kind: output, source: fetch_pr, port: channel}}
        - {name: text, value: {kind: field, items: [{kind: output, source: fetch_pr, port: null}], port: title}}
        - {name: severity, value: {kind: output, source: fetch_pr, port: state}}
    - id: facts
      kind: value
      objective: "Compute facts from it"
      outputs:
        - {name: open, value: {kind: predicate, predicate: equal, items: [{kind: output, source: fetch_pr, port: state}, {kind: string, text: opened}]}}
        - {name: big, value: {kind: predicate, predicate: greater, items: [{kind: output, source: fetch_pr, port: labels}, {kind: number, number: 3}]}}
        - {name: text, value: {kind: json, items: [{kind: output, source: fetch_pr, port: null}]}}
        - {name: nested, value: {kind: field, items: [{kind: field, items: [{kind: output, source: fetch_pr, port: null}], port: head}], port: sha}}
    - id: when
      kind: conditional
      objective: "Branch on it"
      condition: {kind: output, source: fetch_pr, port: state}
      body:
        tasks:
          - {id: noop, kind: value, objective: "Nothing", outputs: [{name: x, value: {kind: output, source: fetch_pr, port: draft}}]}
    - id: each
      kind: foreach
      objective: "Go through its files"
      items: {kind: output, source: fetch_pr, port: files}
      body:
        tasks:
          - id: label
            objective: "Label by file"
            operation: github.add_labels
            inputs:
              - {name: owner, value: {kind: input, source: owner}}
              - {name: repo, value: {kind: input, source: repo}}
              - {name: number, value: {kind: input, source: number}}
              - {name: labels, value: {kind: array, items: [{kind: field, items: [{kind: item}], port: path}]}}
  outputs:
    - {name: title, value: {kind: output, source: fetch_pr, port: title}}
"""


def test_an_unknown_operation_is_reported_once_not_per_input_or_reader(review):
    result = _check(UNKNOWN_OPERATION, review)
    assert _codes(result) == [
        ("TASK_OPERATION_UNKNOWN", "/root/tasks/0/operation"),
        # independent of the unknown operation: nothing reads the value task's `x`
        ("TASK_OUTPUT_UNUSED", "/root/tasks/3/body/tasks/0/outputs/0/name"),
    ], [d.message for d in result.diagnostics]
    assert "github.get_pull_request" in (result.diagnostics[0].hint or "")


def test_the_same_readers_of_a_known_operation_are_checked(review):
    """The control: with the operation spelt right, the same readers do get diagnostics,
    so silence above is the cascade rule at work and not a blind checker."""
    fixed = UNKNOWN_OPERATION.replace("github.fetch_pull_request", "github.get_pull_request")
    codes = Counter(code for code, _ in _codes(_check(fixed, review)))
    assert codes["TASK_INPUT_TYPE"] >= 3  # owner, number, and the readers' bindings
    assert codes["TASK_INPUT_UNKNOWN"] == 1 and codes["TASK_OUTPUT_UNKNOWN"] >= 1
    assert codes["TASK_PREDICATE_TYPE"] == 2 and codes["TASK_CONDITION_TYPE"] == 1


def test_unknown_version_pins_and_ambiguous_ids_are_reported_once_too(review):
    plan = HEAD + """\
root:
  tasks:
    - id: pinned
      objective: "Review with a version that does not exist"
      operation: github.create_review@9
      inputs:
        - {name: event, value: {kind: string, text: LGTM}}
    - id: unpinned
      objective: "Review with either version"
      operation: github.create_review
      inputs:
        - {name: event, value: {kind: string, text: LGTM}}
        - {name: surprise, value: {kind: boolean, boolean: true}}
    - id: read
      kind: value
      objective: "Read both"
      outputs:
        - {name: a, value: {kind: output, source: pinned, port: html_url}}
        - {name: b, value: {kind: output, source: unpinned, port: no_such_port}}
"""
    assert _codes(_check(plan, review)) == [
        ("TASK_OPERATION_UNKNOWN", "/root/tasks/0/operation"),
        ("TASK_OPERATION_UNKNOWN", "/root/tasks/1/operation"),
    ]


OPAQUE_WHOLE = """\
version: 1
root:
  tasks:
    - id: render
      objective: "Render the manifest"
      operation: deploy.render
      inputs:
        - {name: service, value: {kind: string, text: api}}
    - id: apply
      objective: "Apply the rendered manifest as the spec"
      operation: deploy.apply
      inputs:
        - {name: spec, value: {kind: output, source: render, port: null}}
    - id: apply_field
      objective: "Apply a field of the rendered manifest"
      operation: deploy.apply
      inputs:
        - {name: spec, value: {kind: field, items: [{kind: output, source: render, port: null}], port: spec}}
    - id: apply_built
      objective: "Apply a spec assembled from opaque parts"
      operation: deploy.apply
      inputs:
        - name: spec
          value:
            kind: object
            members:
              - {name: service, value: {kind: string, text: api}}
              - {name: replicas, value: {kind: number, number: 2}}
              - {name: image, value: {kind: field, items: [{kind: output, source: render, port: null}], port: image}}
              - {name: env, value: {kind: output, source: render, port: null}}
"""


def test_an_opaque_result_bound_whole_to_a_typed_object_port_is_one_diagnostic(deploy):
    result = _check(OPAQUE_WHOLE, deploy)
    assert _codes(result) == [
        ("TASK_INPUT_TYPE", "/root/tasks/1/inputs/0/value"),
        ("TASK_FIELD_TYPE", "/root/tasks/2/inputs/0/value/items/0"),
        ("TASK_FIELD_TYPE", "/root/tasks/3/inputs/0/value/members/2/value/items/0"),
    ], [d.message for d in result.diagnostics]
    whole = result.diagnostics[0]
    assert "opaque" in whole.message and "object {" in whole.message
    assert "transform" in (whole.hint or "")


def test_an_opaque_member_of_an_object_is_located_at_the_member(deploy):
    """Without the unknown `image` field, the assembled object's `env` member is the one
    opaque part: one diagnostic, located at that member, not at the whole object."""
    plan = OPAQUE_WHOLE.replace(
        "{kind: field, items: [{kind: output, source: render, port: null}], port: image}",
        "{kind: string, text: \"registry/api:1.4\"}",
    )
    assert _codes(_check(plan, deploy)) == [
        ("TASK_INPUT_TYPE", "/root/tasks/1/inputs/0/value"),
        ("TASK_FIELD_TYPE", "/root/tasks/2/inputs/0/value/items/0"),
        ("TASK_INPUT_TYPE", "/root/tasks/3/inputs/0/value/members/3/value"),
    ]


BROKEN_PRODUCER = HEAD + """\
root:
  tasks:
    - id: fetch_pr
      objective: "Fetch the pull request, with a field of the wrong JSON type"
      operation: github.get_pull_request
      dependsOn: fetch_first
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: number}}
    - id: odd
      kind: teleport
      objective: "A task of an unknown kind"
    - id: post
      objective: "Post what they produced"
      operation: chat.post_message
      inputs:
        - {name: channel, value: {kind: output, source: odd, port: channel}}
        - {name: text, value: {kind: output, source: fetch_pr, port: titel}}
        - {name: severity, value: {kind: output, source: fetch_pr, port: state}}
    - id: more
      kind: value
      objective: "Read them more ways"
      outputs:
        - {name: a, value: {kind: field, items: [{kind: output, source: fetch_pr, port: null}], port: nothing}}
        - {name: b, value: {kind: predicate, predicate: and, items: [{kind: output, source: odd, port: x}, {kind: output, source: fetch_pr, port: title}]}}
    - id: each
      kind: foreach
      objective: "Iterate over what the broken task produced"
      items: {kind: output, source: odd, port: null}
      body:
        tasks:
          - {id: echo, kind: value, objective: "Echo", outputs: [{name: x, value: {kind: field, items: [{kind: item}], port: y}}]}
"""


def test_a_task_with_a_shape_error_is_not_blamed_again_by_its_readers(review):
    result = _check(BROKEN_PRODUCER, review)
    assert _codes(result) == [
        ("PLAN_FIELD_TYPE", "/root/tasks/0/dependsOn"),
        ("TASK_KIND_INVALID", "/root/tasks/1/kind"),
        # independent of both: nothing reads the value task's `x`
        ("TASK_OUTPUT_UNUSED", "/root/tasks/4/body/tasks/0/outputs/0/name"),
    ], [(d.code, d.message) for d in result.diagnostics]


SEVERAL = HEAD + """\
  - name: limit
    type: {kind: integer}
    required: false
    default: {kind: string, text: "ten"}
root:
  tasks:
    - id: fetch_pr
      objective: "Fetch the pull request"
      operation: github.get_pull_request
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: number, value: {kind: input, source: owner}}
    - id: issues
      objective: "List issues"
      operation: github.list_issues
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: per_page, value: {kind: input, source: limit}}
        - {name: state, value: {kind: string, text: opened}}
    - id: gate
      kind: conditional
      objective: "Only for open pull requests"
      condition: {kind: output, source: fetch_pr, port: state}
      body:
        tasks:
          - id: post
            objective: "Post the title"
            operation: chat.post_message
            inputs:
              - {name: channel, value: {kind: string, text: "#reviews"}}
              - {name: text, value: {kind: output, source: fetch_pr, port: title}}
              - {name: severity, value: {kind: string, text: loud}}
    - id: each
      kind: foreach
      objective: "Go through the labels"
      items: {kind: output, source: fetch_pr, port: title}
      body:
        tasks:
          - {id: echo, kind: value, objective: "Echo", outputs: [{name: x, value: {kind: item}}]}
    - id: facts
      kind: value
      objective: "Facts"
      outputs:
        - {name: author, value: {kind: field, items: [{kind: output, source: fetch_pr, port: null}], port: auther}}
        - {name: merged, value: {kind: output, source: fetch_pr, port: merged}}
        - {name: both, value: {kind: predicate, predicate: and, items: [{kind: output, source: fetch_pr, port: draft}, {kind: output, source: fetch_pr, port: title}]}}
    - id: push
      objective: "Push a hand-written patch"
      operation: github.push_patch
      inputs:
        - {name: owner, value: {kind: input, source: owner}}
        - {name: repo, value: {kind: input, source: repo}}
        - {name: branch, value: {kind: string, text: fix}}
        - {name: message, value: {kind: string, text: fix}}
        - {name: patch, value: {kind: string, text: "diff --git"}}
"""

SEVERAL_EXPECTED = [
    ("TASK_DEFAULT_INVALID", "/inputs/3/default"),
    ("TASK_INPUT_TYPE", "/root/tasks/0/inputs/2/value"),
    ("TASK_INPUT_TYPE", "/root/tasks/1/inputs/3/value"),
    ("TASK_CONDITION_TYPE", "/root/tasks/2/condition"),
    ("TASK_INPUT_TYPE", "/root/tasks/2/body/tasks/0/inputs/2/value"),
    ("TASK_ITEMS_INVALID", "/root/tasks/3/items"),
    ("TASK_FIELD_UNKNOWN", "/root/tasks/4/outputs/0/value/port"),
    ("TASK_OUTPUT_UNKNOWN", "/root/tasks/4/outputs/1/value/port"),
    ("TASK_PREDICATE_TYPE", "/root/tasks/4/outputs/2/value/items/1"),
    ("TASK_ARTIFACT_PREREQUISITE_MISSING", "/root/tasks/5/inputs/4/value"),
]


def test_several_independent_errors_are_each_reported_exactly_once(review):
    result = _check(SEVERAL, review)
    assert _codes(result) == SEVERAL_EXPECTED, [(d.code, d.location.pointer, d.message) for d in result.diagnostics]


def test_each_of_the_independent_errors_is_really_independent(review):
    """Fixing one of them removes exactly that one diagnostic."""
    fixes = {
        '{kind: string, text: "ten"}': "/inputs/3/default",
        "{name: number, value: {kind: input, source: owner}}": "/root/tasks/0/inputs/2/value",
        "{kind: string, text: opened}": "/root/tasks/1/inputs/3/value",
        "condition: {kind: output, source: fetch_pr, port: state}": "/root/tasks/2/condition",
        "{kind: string, text: loud}": "/root/tasks/2/body/tasks/0/inputs/2/value",
        "port: auther": "/root/tasks/4/outputs/0/value/port",
    }
    replacements = {
        '{kind: string, text: "ten"}': "{kind: number, number: 10}",
        "{name: number, value: {kind: input, source: owner}}": "{name: number, value: {kind: input, source: number}}",
        "{kind: string, text: opened}": "{kind: string, text: open}",
        "condition: {kind: output, source: fetch_pr, port: state}": "condition: {kind: output, source: fetch_pr, port: draft}",
        "{kind: string, text: loud}": "{kind: string, text: critical}",
        "port: auther": "port: author",
    }
    for old, pointer in fixes.items():
        assert SEVERAL.count(old) == 1, old
        fixed = SEVERAL.replace(old, replacements[old])
        expected = [item for item in SEVERAL_EXPECTED if item[1] != pointer]
        assert _codes(_check(fixed, review)) == expected, old


def test_a_mismatched_conditional_output_is_unknown_to_its_readers(review):
    plan = """\
version: 1
inputs:
  - {name: urgent, type: {kind: boolean}}
root:
  tasks:
    - id: pick
      kind: conditional
      objective: "Pick a channel"
      condition: {kind: input, source: urgent}
      body:
        outputs: [{name: channel, value: {kind: string, text: "#on-call"}}]
      otherwise:
        outputs: [{name: channel, value: {kind: number, number: 5}}]
    - id: post
      objective: "Post to the picked channel"
      operation: chat.post_message
      inputs:
        - {name: channel, value: {kind: output, source: pick, port: channel}}
        - {name: text, value: {kind: field, items: [{kind: output, source: pick, port: null}], port: channel}}
"""
    assert _codes(_check(plan, review)) == [("TASK_BRANCH_OUTPUTS", "/root/tasks/0/otherwise/outputs/0/value")]


@pytest.mark.parametrize(
    "read",
    [
        "{kind: output, source: a, port: topic}",  # a port only the copy has
        "{kind: field, items: [{kind: output, source: a, port: null}], port: topic}",  # a field likewise
        "{kind: output, source: a, port: channel}",  # the first declaration's port, of another type
    ],
)
def test_a_read_of_a_duplicated_id_that_may_mean_the_copy_is_not_blamed(review, read):
    # decisions.md, Duplicated IDs: the read resolves to the first `a` (in the root), but
    # the copy in the reader's own scope is what it plausibly means: the duplicate is
    # the one mistake, not also the port, the field or the type.
    plan = f"""\
version: 1
root:
  tasks:
    - {{id: a, kind: value, objective: "outer", outputs: [{{name: channel, value: {{kind: number, number: 5}}}}]}}
    - id: s
      kind: sequence
      objective: "inner scope"
      body:
        tasks:
          - id: a
            kind: value
            objective: "the copy"
            outputs:
              - {{name: channel, value: {{kind: string, text: "#general"}}}}
              - {{name: topic, value: {{kind: string, text: hello}}}}
          - id: post
            objective: "Post"
            operation: chat.post_message
            inputs:
              - {{name: channel, value: {read}}}
              - {{name: text, value: {{kind: string, text: hi}}}}
"""
    assert _codes(_check(plan, review)) == [("TASK_ID_DUPLICATE", "/root/tasks/1/body/tasks/0/id")]


def test_a_plan_of_another_version_gets_nothing_from_the_types_pass(review):
    plan = UNKNOWN_OPERATION.replace("version: 1", "version: 2", 1)
    assert [code for code, _ in _codes(_check(plan, review))] == ["PLAN_VERSION"]


# ----------------------------------------------------------------- determinism

FIXTURES = sorted((ROOT / "fixtures" / "errors" / "types").glob("*.taskplan.yaml")) + sorted(
    (ROOT / "fixtures" / "errors" / "artifacts").glob("*.taskplan.yaml")
)
ALL_CATALOGS = [
    CATALOGS / "review.catalog.yaml",
    CATALOGS / "mcp" / "git.catalog.yaml",
    CATALOGS / "mcp" / "filesystem.catalog.yaml",
    CATALOGS / "mcp" / "memory.catalog.yaml",
]


def _json_run(seed: str, catalogs: list[Path]) -> bytes:
    cmd = [sys.executable, "-m", "taskplan", "check", "--format", "json"]
    for c in catalogs:
        cmd += ["--catalog", str(c.relative_to(ROOT))]
    cmd += [str(p.relative_to(ROOT)) for p in FIXTURES]
    env = dict(os.environ, PYTHONHASHSEED=seed, NO_COLOR="1")
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, timeout=300)
    assert done.returncode == 1, done.stderr.decode("utf-8", "replace")[-2000:]
    return done.stdout


def test_same_diagnostics_byte_for_byte_across_runs_and_hash_seeds():
    assert len(FIXTURES) >= 10
    first = _json_run("0", ALL_CATALOGS)
    data = json.loads(first)
    codes = {d["code"] for d in data["diagnostics"]}
    assert {"TASK_INPUT_TYPE", "TASK_OPERATION_UNKNOWN", "TASK_ARTIFACT_BINDING", "TASK_PREDICATE_TYPE"} <= codes
    assert _json_run("0", ALL_CATALOGS) == first
    assert _json_run("1", ALL_CATALOGS) == first
    assert _json_run("4242", list(reversed(ALL_CATALOGS))) == first, "catalog order or hash seed changed the output"


def test_same_diagnostics_in_process_twice(review):
    def render(result) -> str:
        return json.dumps(
            [
                (d.code, d.location.pointer, d.location.line, d.location.column, d.message, d.hint,
                 [(r.message, r.location.file, r.location.pointer) for r in d.related])
                for d in result.diagnostics
            ]
        )

    assert render(_check(SEVERAL, review)) == render(_check(SEVERAL, review))
