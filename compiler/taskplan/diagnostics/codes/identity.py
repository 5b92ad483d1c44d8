"""The identity family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_ID_INVALID",
        family="identity",
        owner="identity",
        title="An ID or name is not 1-64 ASCII letters, digits, _ or -",
        explanation=(
            "Task, group and choice IDs, alternative IDs, and the names of inputs, outputs, bindings, "
            "object members and type fields are 1 to 64 ASCII letters, digits, underscores or hyphens "
            "(case-sensitive). Only the bindings of an operation task are exempt: their names are "
            "whatever the operation's input schema declares. IDs are never normalised or renamed: an "
            "invalid declaration fails closed, and the hint only suggests a valid spelling. The "
            "diagnostic points at the `id` or `name` value; references to the invalid ID still resolve "
            "to it, so nothing else is reported about them."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: weekly report\n"
            "      kind: value\n"
            "      objective: Assemble the title of the weekly report\n"
            "      outputs:\n"
            "        - {name: title, value: {kind: string, text: Weekly report}}\n"
            "  outputs:\n"
            "    - {name: title, value: {kind: output, source: weekly report, port: title}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: weekly_report\n"
            "      kind: value\n"
            "      objective: Assemble the title of the weekly report\n"
            "      outputs:\n"
            "        - {name: title, value: {kind: string, text: Weekly report}}\n"
            "  outputs:\n"
            "    - {name: title, value: {kind: output, source: weekly_report, port: title}}\n"
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
            "Task, group and choice IDs starting with two underscores are reserved for the steps the "
            "compiler generates (for example `__review_each.collect.summary`), so that a generated step"
            " can never collide with a business task. Rename the declaration; a single leading "
            "underscore is fine."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: __title\n"
            "      kind: value\n"
            "      objective: Choose the report's title\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Weekly report}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: title\n"
            "      kind: value\n"
            "      objective: Choose the report's title\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Weekly report}}\n"
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
            "Task IDs (at every depth: in nested scopes, in `always`, in group bodies), group IDs and "
            "choice IDs share one case-sensitive namespace across the whole plan. Every later "
            "declaration, in document order (inputs, root, groups, choices; in a scope: tasks, outputs,"
            " always), is reported at its `id`, with the first declaration as related location. "
            "References to the ID resolve to the first declaration; a reference that only a later copy "
            "could explain reports nothing more."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: summarize\n"
            "      kind: value\n"
            "      objective: Draft the summary\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: draft}}\n"
            "    - id: publish\n"
            "      kind: sequence\n"
            "      objective: Publish the summary\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summarize\n"
            "            kind: value\n"
            "            objective: Polish the summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: output, source: summarize, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: summarize\n"
            "      kind: value\n"
            "      objective: Draft the summary\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: draft}}\n"
            "    - id: publish\n"
            "      kind: sequence\n"
            "      objective: Publish the summary\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: polish\n"
            "            kind: value\n"
            "            objective: Polish the summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: output, source: summarize, port: text}}\n"
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
            "Named values are lists of `{name, value}` (strict structured output allows no free-form "
            "maps), so a name could be written twice: workflow and group inputs, a task's outputs or "
            "bindings, a scope's outputs, an object value's members, an object type's fields. A name "
            "appears once per list; the same name in different lists is fine. The diagnostic points at "
            "the second occurrence, with the first as related location. (Two alternatives of a choice "
            "with one ID are CHOICE_INVALID.)"
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: labels\n"
            "      kind: value\n"
            "      objective: Name the two labels of the report\n"
            "      outputs:\n"
            "        - {name: label, value: {kind: string, text: urgent}}\n"
            "        - {name: label, value: {kind: string, text: weekly}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: labels\n"
            "      kind: value\n"
            "      objective: Name the two labels of the report\n"
            "      outputs:\n"
            "        - {name: priority, value: {kind: string, text: urgent}}\n"
            "        - {name: cadence, value: {kind: string, text: weekly}}\n"
        ),
    )
)
