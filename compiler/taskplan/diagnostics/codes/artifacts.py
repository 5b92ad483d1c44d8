"""The artifacts family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_ARTIFACT_BINDING",
        family="artifacts",
        owner="types",
        title="An artifact port is bound to a value of another origin",
        explanation=(
            "A port that consumes an artifact kind must be bound to a value that comes from a producer port of the same kind, followed through exports, captures, group inputs, field selection, foreach and conditional merges. Matching strings or types are not enough."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ARTIFACT_PREREQUISITE_MISSING",
        family="artifacts",
        owner="types",
        title="No task produces the artifact kind a port needs",
        explanation=(
            "A port consumes an artifact kind that no task in the plan produces; add a task that produces it."
        ),
    )
)
