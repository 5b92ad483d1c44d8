"""The groups family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_GROUP_UNKNOWN",
        family="groups",
        owner="scope",
        title="A call names a group that does not exist",
        explanation=(
            "A `call` task's `group` must name a group declared in `groups` (the hint suggests the "
            "closest group ID). The call's ports are then unknown, so nothing more is reported about "
            "its bindings or about reads of it; the values it binds are still checked."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: alert\n"
            "      kind: call\n"
            "      objective: Notify the on-call engineer\n"
            "      group: notfy\n"
            "      inputs:\n"
            "        - {name: message, value: {kind: string, text: Build failed}}\n"
            "groups:\n"
            "  - id: notify\n"
            "    objective: Send a notification\n"
            "    inputs:\n"
            "      - {name: message, type: {kind: string}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the notification\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: message}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: alert\n"
            "      kind: call\n"
            "      objective: Notify the on-call engineer\n"
            "      group: notify\n"
            "      inputs:\n"
            "        - {name: message, value: {kind: string, text: Build failed}}\n"
            "groups:\n"
            "  - id: notify\n"
            "    objective: Send a notification\n"
            "    inputs:\n"
            "      - {name: message, type: {kind: string}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the notification\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: message}}\n"
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
            "A group may not call itself, directly or through other groups: every call is compiled from"
            " the one definition, so the expansion would never end. Each loop is reported once, naming "
            "every group on it, at the `group` of the call by which the first-written group on the loop"
            " calls the next; the other calls are related locations."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - {id: start, kind: call, objective: Run the review, group: review}\n"
            "groups:\n"
            "  - id: review\n"
            "    objective: Review the change\n"
            "    body:\n"
            "      tasks:\n"
            "        - {id: to_revise, kind: call, objective: Ask for a revision, group: revise}\n"
            "  - id: revise\n"
            "    objective: Revise the change\n"
            "    body:\n"
            "      tasks:\n"
            "        - {id: again, kind: call, objective: Review the revision, group: review}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - {id: start, kind: call, objective: Run the review, group: review}\n"
            "groups:\n"
            "  - id: review\n"
            "    objective: Review the change\n"
            "    body:\n"
            "      tasks:\n"
            "        - {id: to_revise, kind: call, objective: Ask for a revision, group: revise}\n"
            "  - id: revise\n"
            "    objective: Revise the change\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: note\n"
            "          kind: value\n"
            "          objective: Note the revision\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: string, text: revised}}\n"
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
            "A `call` binds the group's declared inputs by name. A binding whose name the group does "
            "not declare is reported at that binding's `name` (with the closest declared name); each "
            "required group input left unbound is reported at the call's `inputs` (at the task when it "
            "has none). Optional inputs (`required: false`) may be left out."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: alert\n"
            "      kind: call\n"
            "      objective: Notify the on-call engineer\n"
            "      group: notify\n"
            "      inputs:\n"
            "        - {name: mesage, value: {kind: string, text: Build failed}}\n"
            "groups:\n"
            "  - id: notify\n"
            "    objective: Send a notification\n"
            "    inputs:\n"
            "      - {name: message, type: {kind: string}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the notification\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: message}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: alert\n"
            "      kind: call\n"
            "      objective: Notify the on-call engineer\n"
            "      group: notify\n"
            "      inputs:\n"
            "        - {name: message, value: {kind: string, text: Build failed}}\n"
            "groups:\n"
            "  - id: notify\n"
            "    objective: Send a notification\n"
            "    inputs:\n"
            "      - {name: message, type: {kind: string}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the notification\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: message}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_GROUP_INPUT_TYPE",
        family="groups",
        owner="types",
        title="A call binds a value that does not fit the group input",
        explanation=(
            "A `call` binds a value that does not fit the type the group declares for that input: the same "
            "rules as operation ports (kinds, nullability, enums and literal consts, object fields, array "
            "items, opaque values). A group's object types are closed, so a tool's result that does not close "
            "its object (it may answer other fields) does not fit one as it is: bind an `object` value built "
            "from the fields the input takes. The diagnostic points at the value in the call and relates the input's "
            "declaration in the group (and, for an enum or nullability mismatch, the producer slot). The "
            "group's body is checked once, against the declared types, for every call."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: warn\n"
            "      kind: call\n"
            "      group: alert\n"
            "      objective: Warn the on-call engineer\n"
            "      inputs:\n"
            "        - {name: text, value: {kind: string, text: Disk almost full}}\n"
            "        - {name: level, value: {kind: string, text: loud}}\n"
            "groups:\n"
            "  - id: alert\n"
            "    objective: Compose an alert\n"
            "    inputs:\n"
            "      - {name: text, type: {kind: string}}\n"
            "      - {name: level, type: {kind: string, enum: [info, warning, critical]}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the alert\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: text}}\n"
            "            - {name: level, value: {kind: input, source: level}}\n"
            "      outputs:\n"
            "        - {name: level, value: {kind: output, source: compose, port: level}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: warn\n"
            "      kind: call\n"
            "      group: alert\n"
            "      objective: Warn the on-call engineer\n"
            "      inputs:\n"
            "        - {name: text, value: {kind: string, text: Disk almost full}}\n"
            "        - {name: level, value: {kind: string, text: warning}}\n"
            "groups:\n"
            "  - id: alert\n"
            "    objective: Compose an alert\n"
            "    inputs:\n"
            "      - {name: text, type: {kind: string}}\n"
            "      - {name: level, type: {kind: string, enum: [info, warning, critical]}}\n"
            "    body:\n"
            "      tasks:\n"
            "        - id: compose\n"
            "          kind: value\n"
            "          objective: Compose the alert\n"
            "          outputs:\n"
            "            - {name: text, value: {kind: input, source: text}}\n"
            "            - {name: level, value: {kind: input, source: level}}\n"
            "      outputs:\n"
            "        - {name: level, value: {kind: output, source: compose, port: level}}\n"
        ),
    )
)
