"""The structure family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_KIND_INVALID",
        family="structure",
        owner="shape",
        title="Unknown task kind",
        explanation=(
            "A task's `kind` is one of operation (the default), transform, value, call, sequence, "
            "conditional, parallel, foreach. A task of unknown kind is not checked further: its ID still "
            "counts (so references to it report nothing), but its fields and anything nested in it are not "
            "looked at. The hint names the closest kind."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: values\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_KIND_FIELD",
        family="structure",
        owner="shape",
        title="A field that belongs to another task or value kind",
        explanation=(
            "Each task and value kind has its own fields (taskplan.md, Tasks and Values). A field of another "
            "kind must be absent, or empty as the strict wire form writes it (null, false, \"\", [], an empty "
            "object, or that field's default). Anything else is this error, at the key: for example `outputs`"
            " on a `sequence` task, whose exports belong in `body.outputs`. The task is then not type-checked"
            " further (its ports are unknown); its child scopes still are. A task written without `kind` (an"
            " operation task) whose fields of other kinds all belong to one kind, say `resultType`, had its"
            " `kind` left out: that is one TASK_KIND_FIELD, at the first such field, with the hint to set"
            " `kind: transform`, and its missing `operation` is not reported."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: prepare\n"
            "      kind: sequence\n"
            "      objective: Prepare the report\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: title\n"
            "            kind: value\n"
            "            objective: Assemble the title\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Weekly report}}\n"
            "      outputs:\n"
            "        - {name: title, value: {kind: output, source: title, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: prepare\n"
            "      kind: sequence\n"
            "      objective: Prepare the report\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: title\n"
            "            kind: value\n"
            "            objective: Assemble the title\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Weekly report}}\n"
            "        outputs:\n"
            "          - {name: title, value: {kind: output, source: title, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_OBJECTIVE_REQUIRED",
        family="structure",
        owner="structure",
        title="A task or group has no objective",
        explanation=(
            "Every task and group states its objective as a non-blank sentence: it is what an approver reads,"
            " what a transform's model is guided by, and what a repair loop keeps. The diagnostic points at "
            "the task or group when `objective` is missing, at the objective when it is blank."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_PARALLEL_INVALID",
        family="structure",
        owner="structure",
        title="A parallel task with fewer than two branches",
        explanation=(
            "A `parallel` task runs at least two branches concurrently; with one branch there is nothing to "
            "run in parallel: use a `sequence` task with that scope as its `body`. The diagnostic points at "
            "`branches` (at the task when it is absent)."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: gather\n"
            "      kind: parallel\n"
            "      objective: Gather the report parts\n"
            "      branches:\n"
            "        - tasks:\n"
            "            - id: title\n"
            "              kind: value\n"
            "              objective: Assemble the title\n"
            "              outputs:\n"
            "                - {name: text, value: {kind: string, text: Weekly report}}\n"
            "          outputs:\n"
            "            - {name: title, value: {kind: output, source: title, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: gather\n"
            "      kind: sequence\n"
            "      objective: Gather the report parts\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: title\n"
            "            kind: value\n"
            "            objective: Assemble the title\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Weekly report}}\n"
            "        outputs:\n"
            "          - {name: title, value: {kind: output, source: title, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITERATION_BOUND",
        family="structure",
        owner="structure",
        title="An iteration or concurrency bound is out of range",
        explanation=(
            "`maxItems` (the most items a foreach accepts, checked before any item is dispatched) is 1-10000;"
            " `maxConcurrency` (how many branches or items run at once) is 1-100. The bounds keep a plan's "
            "cost predictable; a collection larger than `maxItems` fails at run time before any work starts. "
            "The diagnostic points at the field."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: tickets, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: each_ticket\n"
            "      kind: foreach\n"
            "      objective: Keep each ticket's summary\n"
            "      items: {kind: input, source: tickets}\n"
            "      maxItems: 50000\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Keep the ticket as its summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: item}}\n"
            "        outputs:\n"
            "          - {name: summary, value: {kind: output, source: summary, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: tickets, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: each_ticket\n"
            "      kind: foreach\n"
            "      objective: Keep each ticket's summary\n"
            "      items: {kind: input, source: tickets}\n"
            "      maxItems: 500\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Keep the ticket as its summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: item}}\n"
            "        outputs:\n"
            "          - {name: summary, value: {kind: output, source: summary, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITEMS_INVALID",
        family="structure",
        owner="types",
        title="A foreach iterates over something that is not an array",
        explanation=(
            "A `foreach`'s `items` must produce an array; the body runs once per element, and `{kind: item}` "
            "is the current element. Found by the types pass, from the type `items` produces: a string, even "
            "one that looks like a list, is not an array."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: tickets, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: each_ticket\n"
            "      kind: foreach\n"
            "      objective: Keep each ticket's summary\n"
            "      items: {kind: input, source: tickets}\n"
            "      maxItems: 500\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Keep the ticket as its summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: item}}\n"
            "        outputs:\n"
            "          - {name: summary, value: {kind: output, source: summary, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: tickets, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: each_ticket\n"
            "      kind: foreach\n"
            "      objective: Keep each ticket's summary\n"
            "      items: {kind: input, source: tickets}\n"
            "      maxItems: 500\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Keep the ticket as its summary\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: item}}\n"
            "        outputs:\n"
            "          - {name: summary, value: {kind: output, source: summary, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_BRANCH_OUTPUTS",
        family="structure",
        owner="structure",
        title="Branch outputs do not match",
        explanation=(
            "A `conditional` exports the outputs that `body` and `otherwise` both declare: an output that one"
            " side declares and the other lacks is an error at that output's `name` (an absent `otherwise` is"
            " an empty scope, so it declares nothing). The branches of a `parallel` export the union of their"
            " outputs, so a name declared by two branches is an error at its second declaration. (Outputs of "
            "both sides whose types do not match are reported by the types pass under this code too.) The "
            "task's ports are then unknown: reads of them report nothing more."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: urgent, type: {kind: boolean}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: pick_channel\n"
            "      kind: conditional\n"
            "      objective: Choose where to announce the release\n"
            "      condition: {kind: input, source: urgent}\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: pager\n"
            "            kind: value\n"
            "            objective: Use the pager\n"
            "            outputs:\n"
            "              - {name: channel, value: {kind: string, text: pager}}\n"
            "        outputs:\n"
            "          - {name: channel, value: {kind: output, source: pager, port: channel}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: urgent, type: {kind: boolean}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: pick_channel\n"
            "      kind: conditional\n"
            "      objective: Choose where to announce the release\n"
            "      condition: {kind: input, source: urgent}\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: pager\n"
            "            kind: value\n"
            "            objective: Use the pager\n"
            "            outputs:\n"
            "              - {name: channel, value: {kind: string, text: pager}}\n"
            "        outputs:\n"
            "          - {name: channel, value: {kind: output, source: pager, port: channel}}\n"
            "      otherwise:\n"
            "        tasks:\n"
            "          - id: mail\n"
            "            kind: value\n"
            "            objective: Use e-mail\n"
            "            outputs:\n"
            "              - {name: channel, value: {kind: string, text: mail}}\n"
            "        outputs:\n"
            "          - {name: channel, value: {kind: output, source: mail, port: channel}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_VALUE_INVALID",
        family="structure",
        owner="structure",
        title="A value is malformed",
        explanation=(
            "An unknown value kind (reported by the shape pass, at `kind`; such a value is not checked "
            "further), a `field` or `json` value without exactly one item (at `items`), a number outside "
            "+-(2^53-1), the range every runtime represents exactly (at `number`), or values nested more than"
            " 64 deep. The value's type is then unknown: nothing that reads it is checked further."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: object, fields: [{name: title, type: {kind: string}}]}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: serialise\n"
            "      kind: value\n"
            "      objective: Keep the ticket as JSON text\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: json, items: []}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: object, fields: [{name: title, type: {kind: string}}]}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: serialise\n"
            "      kind: value\n"
            "      objective: Keep the ticket as JSON text\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: json, items: [{kind: input, source: ticket}]}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_TYPE_INVALID",
        family="structure",
        owner="structure",
        title="A type is malformed",
        explanation=(
            "A TaskType of unknown kind (the kinds are string, number, integer, boolean, object, array, any),"
            " an `enum` on a type that is not a string, an `enum` with more than 256 strings or a string "
            "listed twice, an array type without `items`, or `items`/`fields` on a kind that has none. "
            "(`enum: []` is the wire form's \"no enum\".) Values of the type are then not checked."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: labels, type: {kind: array}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the labels on\n"
            "      outputs:\n"
            "        - {name: labels, value: {kind: input, source: labels}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: labels, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the labels on\n"
            "      outputs:\n"
            "        - {name: labels, value: {kind: input, source: labels}}\n"
        ),
    )
)
