"""The groups family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_GROUP_UNKNOWN",
        family="groups",
        owner="scope",
        title="A call names a group that does not exist",
        explanation=(
            "A `call` task's `group` must name a group declared in `groups`."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_GROUP_CYCLE",
        family="groups",
        owner="scope",
        title="Groups call each other in a loop",
        explanation=(
            "A group may not call itself, directly or through other groups: every call is compiled from the one definition, so a loop never ends."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_GROUP_INPUTS",
        family="groups",
        owner="scope",
        title="A call binds an unknown group input or leaves a required one unbound",
        explanation=(
            "A `call` binds exactly the group's declared inputs; required ones must be bound."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_GROUP_INPUT_TYPE",
        family="groups",
        owner="scope",
        title="A call binds a value that does not fit the group input",
        explanation=(
            "The value bound to a group input must fit the input's declared type."
        ),
    )
)
