"""The identity family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_ID_INVALID",
        family="identity",
        owner="identity",
        title="An ID is not 1-64 ASCII letters, digits, _ or -",
        explanation=(
            "Task, group and choice IDs (and input, output and member names) are 1 to 64 ASCII letters, digits, underscores or hyphens. IDs are never normalised or renamed: an invalid declaration fails closed."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ID_RESERVED",
        family="identity",
        owner="identity",
        title="An ID starts with the reserved prefix __",
        explanation=(
            "IDs starting with two underscores are reserved for the compiler's generated steps."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ID_DUPLICATE",
        family="identity",
        owner="identity",
        title="An ID is declared twice",
        explanation=(
            "Task IDs (at every depth, in `always` and in group bodies), group IDs and choice IDs share one case-sensitive namespace. Every later declaration is reported, with the first as related location; references resolve to the first."
        ),
    )
)

register(
    CodeInfo(
        code="NAME_DUPLICATE",
        family="identity",
        owner="identity",
        title="A name appears twice in one list",
        explanation=(
            "Named values (inputs, outputs, bindings, object members, type fields) are lists of {name, value}; a name may appear once per list."
        ),
    )
)
