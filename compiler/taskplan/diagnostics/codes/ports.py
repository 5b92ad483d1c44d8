"""The ports and types family."""

from taskplan.diagnostics.registry import CodeInfo, register

_TICKETS = (
    "version: 1\n"
    "sources:\n"
    "  - id: tickets\n"
    "    operations:\n"
    "      - id: tickets.get_ticket\n"
    "        effect: read\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            ticket_id: {type: string}\n"
    "          required: [ticket_id]\n"
    "        output:\n"
    "          type: object\n"
    "          properties:\n"
    "            title: {type: string}\n"
    "            status: {type: string, enum: [open, pending, closed]}\n"
    "            assignee: {type: [string, \"null\"]}\n"
    "          required: [title, status, assignee]\n"
)
"""A ticket tracker's catalog, for the examples below."""

_SEARCH = (
    "version: 1\n"
    "sources:\n"
    "  - id: tickets\n"
    "    operations:\n"
    "      - id: tickets.search\n"
    "        effect: read\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            query: {type: string}\n"
    "            status: {type: string, enum: [open, pending, closed]}\n"
    "            limit: {type: integer, minimum: 1, maximum: 100}\n"
    "          required: [query]\n"
    "        output:\n"
    "          type: object\n"
    "          properties:\n"
    "            ids: {type: array, items: {type: string}}\n"
    "          required: [ids]\n"
)
"""A ticket search with required, enum and optional integer ports."""

_FIXED = (
    "version: 1\n"
    "sources:\n"
    "  - id: tickets\n"
    "    operations:\n"
    "      - id: tickets.comment\n"
    "        effect: write\n"
    "        fixed:\n"
    "          tenant: acme\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            tenant: {type: string}\n"
    "            ticket_id: {type: string}\n"
    "            body: {type: string}\n"
    "          required: [tenant, ticket_id, body]\n"
)
"""An operation with a host-fixed port."""

_OPAQUE = (
    "version: 1\n"
    "sources:\n"
    "  - id: web\n"
    "    operations:\n"
    "      - id: web.fetch\n"
    "        effect: read\n"
    "        description: \"Fetch a URL (no output schema: the result is opaque)\"\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            url: {type: string}\n"
    "          required: [url]\n"
)
"""An operation without an output schema: its result is opaque."""


register(
    CodeInfo(
        code="TASK_OPERATION_UNKNOWN",
        family="ports and types",
        owner="types",
        title="The operation is not in the catalog",
        explanation=(
            "An operation task names an operation the catalog does not resolve: an ID the catalog does not "
            "have (the hint lists the closest IDs, ranked like `taskplan catalog search`); a version pin "
            "`ID@version` that is not one of the operation's declared versions (the hint lists them), or any "
            "pin on an operation that declares no version; or no pin where the catalog declares the ID in "
            "several versions (ambiguous: pin one). The diagnostic points at `operation`. The task's contract "
            "is then unknown: its bindings are not checked and reads of its ports report nothing more (one "
            "mistake, one diagnostic). Without any catalog, operations are not resolved at all: `check` "
            "checks the rest of the plan, and `compile`, which needs every contract to lower the calls, "
            "reports this once, at the first operation task, with the others as related locations."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_tiket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A binding names an input port the operation does not have",
        explanation=(
            "A binding of an operation task names an input port the operation does not have. An operation's "
            "input ports are the top-level properties of its input schema, spelt exactly as the schema spells "
            "them; ports the catalog fixes are not the plan's to bind. The diagnostic points at the binding's "
            "`name`; the hint suggests the closest port, or lists the ports. A misspelling of a required port "
            "is this one diagnostic: the port it stands for is not also reported as unbound."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticketId, value: {kind: input, source: ticket}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_REQUIRED",
        family="ports and types",
        owner="types",
        title="A required input port is unbound",
        explanation=(
            "The operation's input schema lists this port in `required` (and the catalog does not fix it), "
            "but the task does not bind it. The diagnostic points at the task's `inputs` (at the task when it "
            "has no `inputs`), one per missing port; the hint gives the port's type and the related location "
            "is the port's declaration in the catalog. Optional ports may be left out. When the port consumes "
            "an artifact kind that no task of the plan produces, the finding is "
            "TASK_ARTIFACT_PREREQUISITE_MISSING instead."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: words, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: find\n"
            "      objective: Find the open tickets about the outage\n"
            "      operation: tickets.search\n"
            "      inputs:\n"
            "        - {name: status, value: {kind: string, text: open}}\n"
            "        - {name: limit, value: {kind: number, number: 20}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: words, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: find\n"
            "      objective: Find the open tickets about the outage\n"
            "      operation: tickets.search\n"
            "      inputs:\n"
            "        - {name: query, value: {kind: input, source: words}}\n"
            "        - {name: status, value: {kind: string, text: open}}\n"
            "        - {name: limit, value: {kind: number, number: 20}}\n"
        ),
        catalog=_SEARCH,
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_TYPE",
        family="ports and types",
        owner="types",
        title="A bound value does not fit the input port",
        explanation=(
            "A value bound to an operation's input port does not fit the port's type (taskplan.md, Types): "
            "the kinds must match (an integer fits a number, text never fits a number); a value that may be "
            "null fits only a nullable port, and `null` is a value, not leaving an optional port out; a port "
            "with an `enum` accepts only values whose enum or literal (a string literal keeps its text as a "
            "`const` through value tasks, exports and captures) lies inside it; an object needs every "
            "required field of the port's type, each fitting, and no field a closed type lacks (nor may it be "
            "open: a tool's result that does not close its object may answer any other field, which a closed "
            "port refuses at run time; build an `object` value from the fields the port takes); an array's "
            "items must fit; an opaque value (`any`, e.g. the whole result of an operation without an output "
            "schema) fits only an untyped port. The message names the produced and the required type; the "
            "diagnostic points at the value (inside an object literal, at the member that does not fit) and "
            "relates the port's declaration and, for an enum or nullability mismatch, the producer slot that "
            "causes it."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: words, type: {kind: string}}\n"
            "  - {name: state, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: find\n"
            "      objective: Find the tickets about the outage in the given state\n"
            "      operation: tickets.search\n"
            "      inputs:\n"
            "        - {name: query, value: {kind: input, source: words}}\n"
            "        - {name: status, value: {kind: input, source: state}}\n"
            "        - {name: limit, value: {kind: string, text: \"20\"}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: words, type: {kind: string}}\n"
            "  - {name: state, type: {kind: string, enum: [open, pending, closed]}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: find\n"
            "      objective: Find the tickets about the outage in the given state\n"
            "      operation: tickets.search\n"
            "      inputs:\n"
            "        - {name: query, value: {kind: input, source: words}}\n"
            "        - {name: status, value: {kind: input, source: state}}\n"
            "        - {name: limit, value: {kind: number, number: 20}}\n"
        ),
        catalog=_SEARCH,
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_CATALOG_OWNED",
        family="ports and types",
        owner="types",
        title="A plan binds a port that the catalog fixes",
        explanation=(
            "The catalog fixes this port (`fixed`: a host-owned input such as a tenant, an API version or a "
            "timeout): the compiler injects the catalog's value into the request, and the plan may not bind "
            "the port, not even to the same value. The diagnostic points at the binding's `name` and relates "
            "the catalog's `fixed` entry. Remove the binding."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: reply\n"
            "      objective: Tell the requester we are on it\n"
            "      operation: tickets.comment\n"
            "      inputs:\n"
            "        - {name: tenant, value: {kind: string, text: acme}}\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "        - {name: body, value: {kind: string, text: \"We are looking into it.\"}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: reply\n"
            "      objective: Tell the requester we are on it\n"
            "      operation: tickets.comment\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "        - {name: body, value: {kind: string, text: \"We are looking into it.\"}}\n"
        ),
        catalog=_FIXED,
    )
)

register(
    CodeInfo(
        code="TASK_OUTPUT_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A value reads a port the task does not have",
        explanation=(
            "A value reads a port that the task does not have. A task's ports are fixed by its kind: an "
            "operation's are the top-level properties of its output schema (an operation without an output "
            "schema has an opaque result and no ports: read it whole with `port: null`, or add a transform "
            "that declares what you need); a transform's are the fields of its `resultType`; a value task's "
            "its `outputs`; a call's, a sequence's, a conditional's, a parallel's and a foreach's the "
            "`outputs` of their scopes. The diagnostic points at `port`; the hint suggests the closest port "
            "or lists them."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - {name: state, value: {kind: output, source: fetch, port: state}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - {name: state, value: {kind: output, source: fetch, port: status}}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_FIELD_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A field value selects a field the object does not declare",
        explanation=(
            "`{kind: field, items: [OBJECT], port: NAME}` selects a field the object's type declares, by its "
            "exact name (never a dotted path: nest `field` values to go deeper). The object's type does not "
            "declare this one. The diagnostic points at `port`; the hint suggests the closest field or lists "
            "them, and the related location is where the object's type is declared."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - name: title\n"
            "      value: {kind: field, items: [{kind: output, source: fetch, port: null}], port: subject}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - name: title\n"
            "      value: {kind: field, items: [{kind: output, source: fetch, port: null}], port: title}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_FIELD_TYPE",
        family="ports and types",
        owner="types",
        title="A field value selects from an opaque or non-object value",
        explanation=(
            "A `field` value selects from something that is not an object with declared fields: an opaque "
            "value (`any`: the whole result of an operation without an output schema, an untyped port) grants "
            "no field access, and a string, number, boolean or array has no fields. The diagnostic points at "
            "the value selected from. To use part of an opaque result, add a transform whose `resultType` "
            "declares the field, and read its port."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: url, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: page\n"
            "      objective: Fetch the status page\n"
            "      operation: web.fetch\n"
            "      inputs:\n"
            "        - {name: url, value: {kind: input, source: url}}\n"
            "  outputs:\n"
            "    - name: status\n"
            "      value: {kind: field, items: [{kind: output, source: page, port: null}], port: status}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: url, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: page\n"
            "      objective: Fetch the status page\n"
            "      operation: web.fetch\n"
            "      inputs:\n"
            "        - {name: url, value: {kind: input, source: url}}\n"
            "    - id: read_status\n"
            "      kind: transform\n"
            "      objective: Read the overall status from the status page\n"
            "      inputs:\n"
            "        - {name: page, value: {kind: output, source: page, port: null}}\n"
            "      resultType:\n"
            "        kind: object\n"
            "        fields:\n"
            "          - {name: status, type: {kind: string, enum: [operational, degraded, outage]}}\n"
            "  outputs:\n"
            "    - name: status\n"
            "      value: {kind: output, source: read_status, port: status}\n"
        ),
        catalog=_OPAQUE,
    )
)

register(
    CodeInfo(
        code="TASK_PREDICATE_INVALID",
        family="ports and types",
        owner="structure",
        title="A predicate is unknown or has the wrong number of operands",
        explanation=(
            "The predicates are `not` (one operand) and `and`, `or`, `equal`, `not_equal`, `less`, "
            "`less_equal`, `greater`, `greater_equal` (two operands each). An unknown name is reported at "
            "`predicate` with the closest one; a wrong number of operands at `items`. The operands' types are"
            " checked by the types pass (TASK_PREDICATE_TYPE)."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: count, type: {kind: integer}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Tell whether there is anything to review\n"
            "      outputs:\n"
            "        - name: empty\n"
            "          value:\n"
            "            kind: predicate\n"
            "            predicate: equals\n"
            "            items: [{kind: input, source: count}, {kind: number, number: 0}]\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: count, type: {kind: integer}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Tell whether there is anything to review\n"
            "      outputs:\n"
            "        - name: empty\n"
            "          value:\n"
            "            kind: predicate\n"
            "            predicate: equal\n"
            "            items: [{kind: input, source: count}, {kind: number, number: 0}]\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_PREDICATE_TYPE",
        family="ports and types",
        owner="types",
        title="A predicate's operands have the wrong types",
        explanation=(
            "A predicate's operands have types it cannot use. `and`, `or` and `not` need booleans that are "
            "never null; `less`, `less_equal`, `greater` and `greater_equal` need two numbers (integer and "
            "number mix) or two strings, never null; `equal` and `not_equal` need comparable operands: the "
            "same kind (integer and number are one), restricted strings with a value in common (comparing an "
            "enum with a literal outside it is a typo the compiler catches), and `null` only against a value "
            "that may be null. Opaque operands are comparable. The diagnostic points at the operand; the "
            "number of operands is TASK_PREDICATE_INVALID's."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - name: still_open\n"
            "      value:\n"
            "        kind: predicate\n"
            "        predicate: equal\n"
            "        items:\n"
            "          - {kind: output, source: fetch, port: status}\n"
            "          - {kind: string, text: opened}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "  outputs:\n"
            "    - name: still_open\n"
            "      value:\n"
            "        kind: predicate\n"
            "        predicate: equal\n"
            "        items:\n"
            "          - {kind: output, source: fetch, port: status}\n"
            "          - {kind: string, text: open}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_CONDITION_TYPE",
        family="ports and types",
        owner="types",
        title="A conditional's condition is not boolean",
        explanation=(
            "The `condition` of a `conditional` must produce a boolean that is never null; a string, a number "
            "or a nullable boolean is not one (there is no truthiness). Compare the value with a predicate, "
            "or test whether a task produced a result with `{kind: present, source: ...}`. The diagnostic "
            "points at the condition."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "    - id: if_open\n"
            "      kind: conditional\n"
            "      objective: Note open tickets\n"
            "      condition: {kind: output, source: fetch, port: status}\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: note\n"
            "            kind: value\n"
            "            objective: Note that the ticket is open\n"
            "            outputs:\n"
            "              - {name: open, value: {kind: boolean, boolean: true}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: fetch\n"
            "      objective: Fetch the ticket\n"
            "      operation: tickets.get_ticket\n"
            "      inputs:\n"
            "        - {name: ticket_id, value: {kind: input, source: ticket}}\n"
            "    - id: if_open\n"
            "      kind: conditional\n"
            "      objective: Note open tickets\n"
            "      condition:\n"
            "        kind: predicate\n"
            "        predicate: equal\n"
            "        items:\n"
            "          - {kind: output, source: fetch, port: status}\n"
            "          - {kind: string, text: open}\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: note\n"
            "            kind: value\n"
            "            objective: Note that the ticket is open\n"
            "            outputs:\n"
            "              - {name: open, value: {kind: boolean, boolean: true}}\n"
        ),
        catalog=_TICKETS,
    )
)

register(
    CodeInfo(
        code="TASK_TRANSFORM_TYPE",
        family="ports and types",
        owner="structure",
        title="A transform's resultType is not a strict closed object",
        explanation=(
            "A transform's result is produced by a model under strict structured output, so its `resultType` "
            "is a non-empty object, never null, whose fields are all fully typed (no `any`, at any depth), "
            "required or explicitly `nullable: true`, and without defaults; nested objects follow the same "
            "rules (a nested object declares its fields). The diagnostic points at the offending node: a "
            "field's `kind`, its `default`, the field itself when it is optional but not nullable, the type of"
            " a nested object without fields, the `nullable` of a nullable resultType. The transform's ports "
            "are then unknown."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: triage\n"
            "      kind: transform\n"
            "      objective: Classify the ticket by urgency\n"
            "      inputs:\n"
            "        - {name: ticket, value: {kind: input, source: ticket}}\n"
            "      resultType:\n"
            "        kind: object\n"
            "        fields:\n"
            "          - {name: urgency, type: {kind: string, enum: [low, high]}}\n"
            "          - {name: reason, type: {kind: any}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: triage\n"
            "      kind: transform\n"
            "      objective: Classify the ticket by urgency\n"
            "      inputs:\n"
            "        - {name: ticket, value: {kind: input, source: ticket}}\n"
            "      resultType:\n"
            "        kind: object\n"
            "        fields:\n"
            "          - {name: urgency, type: {kind: string, enum: [low, high]}}\n"
            "          - {name: reason, type: {kind: string}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEFAULT_REQUIRED",
        family="ports and types",
        owner="structure",
        title="An optional input has no default",
        explanation=(
            "A workflow or group input with `required: false` may be left out by the caller, so it needs a "
            "literal `default` that stands in for it (that the default fits the type is "
            "TASK_DEFAULT_INVALID). The diagnostic points at the input. The input is still typed as declared."
            " Optional fields inside an object type need no default."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: limit, type: {kind: integer}, required: false}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: limit, type: {kind: integer}, required: false, default: {kind: number, number: 20}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEFAULT_INVALID",
        family="ports and types",
        owner="types",
        title="A default does not fit its input",
        explanation=(
            "An input's `default` (of the workflow, of a group, or of an optional field inside an object "
            "type) stands in for a value the caller left out, so it must be a literal (null, string, number, "
            "boolean, or an object or array of those; never a read of another value) that fits the input's "
            "type: the same rules as bindings. The diagnostic points at the default (inside an object "
            "literal, at the member that does not fit) and relates the declared type."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - name: limit\n"
            "    type: {kind: integer}\n"
            "    required: false\n"
            "    default: {kind: string, text: \"20\"}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - name: limit\n"
            "    type: {kind: integer}\n"
            "    required: false\n"
            "    default: {kind: number, number: 20}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
        ),
    )
)
