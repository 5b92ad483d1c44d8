"""The scope family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_REFERENCE_UNKNOWN",
        family="scope",
        owner="scope",
        title="A reference names nothing",
        explanation=(
            "A value reads a task, input or choice that exists nowhere in the plan."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_REFERENCE_SCOPE",
        family="scope",
        owner="scope",
        title="A reference names something that is not visible here",
        explanation=(
            "A value reads a task that exists but is not visible from where it is read: a task inside another scope (read it through that scope's `outputs`), an `always` task, or (in a group body) anything outside the group. The hint names the export chain that would make it visible."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_REFERENCE_SIBLING",
        family="scope",
        owner="scope",
        title="A parallel branch reads another branch",
        explanation=(
            "Branches of a `parallel` run concurrently and cannot read each other."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITEM_SCOPE",
        family="scope",
        owner="scope",
        title="item or index outside a foreach body",
        explanation=(
            "`{kind: item}` and `{kind: index}` read the current iteration of the nearest enclosing `foreach`; outside any foreach body they mean nothing."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEPENDENCY_UNKNOWN",
        family="scope",
        owner="scope",
        title="dependsOn names a task that exists nowhere",
        explanation=(
            "A `dependsOn` entry must name a task of the same scope."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEPENDENCY_CYCLE",
        family="scope",
        owner="scope",
        title="Tasks depend on each other in a cycle",
        explanation=(
            "The tasks of a scope run in a topological order of their dependencies (`dependsOn` and reads). A cycle is reported once, naming every task on it, at the entry by which the first-written task depends on the next."
        ),
    )
)
