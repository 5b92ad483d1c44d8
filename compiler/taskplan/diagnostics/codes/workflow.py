"""The workflow family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="WORKFLOW_SYNTAX",
        family="workflow",
        owner="validate",
        title="The workflow file is not well-formed YAML",
        explanation=(
            "The workflow text could not be parsed, or uses anchors, aliases, tags or duplicate keys."
        ),
    )
)

register(
    CodeInfo(
        code="WORKFLOW_SCHEMA",
        family="workflow",
        owner="validate",
        title="The workflow does not follow the dialect's schema",
        explanation=(
            "A field is unknown, missing or of the wrong type for the workflow dialect (schemas/workflow.schema.json)."
        ),
    )
)

register(
    CodeInfo(
        code="WORKFLOW_EXPRESSION",
        family="workflow",
        owner="validate",
        title="An expression does not parse",
        explanation=(
            "A `${...}` expression is not in the expression language: paths over data.inputs, data.steps.<id>, data.item and data.index, comparisons, boolean operators, json() and present()."
        ),
    )
)

register(
    CodeInfo(
        code="WORKFLOW_REFERENCE",
        family="workflow",
        owner="validate",
        title="An expression reads something that is not there",
        explanation=(
            "An expression reads an unknown step, a step that has not run yet, a step of another workflow, an unknown input, or data.item outside a loop; or a workflow.call names an unknown workflow."
        ),
    )
)

register(
    CodeInfo(
        code="WORKFLOW_CYCLE",
        family="workflow",
        owner="validate",
        title="Steps or workflows form a cycle",
        explanation=(
            "Workflows call each other in a loop, or steps depend on each other in a cycle."
        ),
    )
)

register(
    CodeInfo(
        code="WORKFLOW_LIMIT",
        family="workflow",
        owner="validate",
        title="The workflow exceeds a limit",
        explanation=(
            "The workflow file exceeds a reading or graph limit (size, depth, number of steps)."
        ),
    )
)
