"""The workflow family's registry entries: each wrong example produces exactly its own
code, each right example validates clean."""

from __future__ import annotations

import pytest

from taskplan.diagnostics.registry import REGISTRY
from taskplan.passes.validate import validate_text

WORKFLOW_CODES = sorted(c for c, i in REGISTRY.items() if i.family == "workflow")


@pytest.mark.parametrize("code", WORKFLOW_CODES)
def test_wrong_example_produces_only_its_code_and_right_one_validates(code):
    info = REGISTRY[code]
    assert info.wrong and info.right, "every workflow code has a wrong and a right example"
    wrong = validate_text(info.wrong.encode("utf-8"), "wrong.workflow.yaml")
    assert [d.code for d in wrong.diagnostics] == [code], [f"{d.code}: {d.message}" for d in wrong.diagnostics]
    right = validate_text(info.right.encode("utf-8"), "right.workflow.yaml")
    assert right.ok, [f"{d.code}: {d.message}" for d in right.diagnostics]
