"""Issue 5: compile and validate agree on the size of a workflow. A plan within
max_bytes compiled to a workflow beyond it, which validate refused; now validate reads
workflows up to Limits.max_workflow_bytes and compile refuses (PLAN_LIMIT) to produce
a larger one. Small custom Limits stand in for a 30,000-task plan."""

from __future__ import annotations

import dataclasses

from taskplan import api
from taskplan.config import Limits
from taskplan.diagnostics import Severity
from sample_plans import WEEKLY


def _sizes() -> tuple[int, int]:
    plan = WEEKLY.encode("utf-8")
    compiled = api.compile_plan("plans/weekly.taskplan.yaml", text=plan)
    assert compiled.yaml is not None, compiled.diagnostics
    return len(plan), len(compiled.yaml.encode("utf-8"))


def test_validate_reads_workflows_up_to_max_workflow_bytes_not_max_bytes():
    plan_size, workflow_size = _sizes()
    assert plan_size < workflow_size  # a workflow is larger than its plan
    # max_bytes admits the plan but not its workflow; max_workflow_bytes admits both
    limits = Limits(max_bytes=plan_size, max_workflow_bytes=workflow_size)
    compiled = api.compile_plan("plans/weekly.taskplan.yaml", text=WEEKLY.encode("utf-8"), limits=limits)
    assert compiled.yaml is not None and compiled.exit_code == 0, compiled.diagnostics
    validated = api.validate_workflow("weekly.workflow.yaml", text=compiled.yaml.encode("utf-8"), limits=limits)
    assert validated.diagnostics == []
    # one byte less and validate refuses the file ...
    smaller = dataclasses.replace(limits, max_workflow_bytes=workflow_size - 1)
    refused = api.validate_workflow("weekly.workflow.yaml", text=compiled.yaml.encode("utf-8"), limits=smaller)
    assert [d.code for d in refused.diagnostics] == ["WORKFLOW_LIMIT"]
    assert refused.diagnostics[0].hint.endswith("raise max-workflow-bytes in [tool.taskplan.limits]")
    # ... so compile refuses to write it, with a located diagnostic on the plan
    compiled = api.compile_plan("plans/weekly.taskplan.yaml", text=WEEKLY.encode("utf-8"), limits=smaller)
    assert compiled.yaml is None and compiled.exit_code == 1
    (diagnostic,) = compiled.diagnostics
    assert diagnostic.code == "PLAN_LIMIT" and diagnostic.severity is Severity.ERROR
    assert diagnostic.message == (
        f"the plan compiles to a workflow of {workflow_size:,} bytes, more than the limit of "
        f"{workflow_size - 1:,} bytes (the limit `max_workflow_bytes`, up to which `taskplan validate` reads workflows)"
    )
    assert (diagnostic.location.file, diagnostic.location.pointer) == ("plans/weekly.taskplan.yaml", "/root/tasks")
    assert (diagnostic.location.line, diagnostic.location.column) == (4, 3)  # the `tasks` key


def test_the_default_workflow_limit_admits_the_largest_plan():
    """max_tasks tasks compile to about 600 bytes a task (benchmarks/generate.py
    plans: 574 KB for 1,000 tasks), some 30 MB for 50,000: well within 64 MiB."""
    limits = Limits()
    assert limits.max_workflow_bytes >= 2 * 600 * limits.max_tasks
    assert limits.max_workflow_bytes > limits.max_bytes
    assert limits.for_workflows().max_bytes == limits.max_workflow_bytes
