"""The catalog family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="CATALOG_SYNTAX",
        family="catalog",
        owner="catalog",
        title="The catalog file is malformed",
        explanation=(
            "The catalog is not well-formed YAML or JSON, or does not follow the catalog format (unknown or missing fields, wrong types, invalid operation IDs or versions, an executor type that is not two or more dot-separated lower-case segments such as `mcp.call`, a `version` other than 1). The diagnostic points into the catalog file, at the exact node. An operation with an error is left out of the catalog; plans that call it get no further diagnostic about the call."
        ),
        wrong=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        efect: read\n"
            "        input: {type: object, properties: {number: {type: integer}}, required: [number]}\n"
        ),
        right=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        input: {type: object, properties: {number: {type: integer}}, required: [number]}\n"
        ),
    )
)

register(
    CodeInfo(
        code="CATALOG_SCHEMA_INVALID",
        family="catalog",
        owner="catalog",
        title="An embedded JSON Schema is not valid JSON Schema",
        explanation=(
            "An operation's input or output schema is not valid JSON Schema of its draft (`$schema`: draft-07 or 2020-12 and the other drafts jsonschema knows; without `$schema`, 2020-12), or an input schema is not an object schema (its properties are the input ports), or a `$ref` is not local or does not resolve inside the schema. The diagnostic points at the offending keyword inside the schema."
        ),
        wrong=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            number: {type: int}\n"
            "          required: [number]\n"
        ),
        right=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            number: {type: integer}\n"
            "          required: [number]\n"
        ),
    )
)

register(
    CodeInfo(
        code="CATALOG_DUPLICATE_OPERATION",
        family="catalog",
        owner="catalog",
        title="An operation ID (and version) appears twice",
        explanation=(
            "Operation IDs are unique across all catalog files, per version: the same ID may be declared several times only with distinct `version`s (and then every declaration has one; a plan pins one as `ID@version`). The diagnostic points at the later declaration's `id` (files in path order, then document order); the first declaration is the related location. Plans resolve the ID to the first declaration."
        ),
        wrong=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        input: {type: object, properties: {number: {type: integer}}, required: [number]}\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        input: {type: object, properties: {number: {type: integer}, full: {type: boolean}}, required: [number]}\n"
        ),
        right=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        version: \"1\"\n"
            "        effect: read\n"
            "        input: {type: object, properties: {number: {type: integer}}, required: [number]}\n"
            "      - id: github.get_issue\n"
            "        version: \"2\"\n"
            "        effect: read\n"
            "        input: {type: object, properties: {number: {type: integer}, full: {type: boolean}}, required: [number]}\n"
        ),
    )
)

register(
    CodeInfo(
        code="CATALOG_OPERATION_INVALID",
        family="catalog",
        owner="catalog",
        title="An operation's declarations do not match its schemas",
        explanation=(
            "An operation's `fixed` inputs and `artifacts` refer to its ports, and must agree with its schemas: a fixed input must be a property of the input schema and its value must validate against that property's schema; a produced artifact port must be a property of the output schema, a consumed one a property of the input schema that is not fixed (no plan could bind it); a port is listed once per list. Otherwise every call would fail at run time, or no plan could ever satisfy the artifact rules. The operation is left out of the catalog; plans that call it get no further diagnostic about the call."
        ),
        wrong=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        fixed: {api_version: 2022}\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            number: {type: integer}\n"
            "            api_version: {type: string}\n"
            "          required: [number]\n"
        ),
        right=(
            "version: 1\n"
            "sources:\n"
            "  - id: github\n"
            "    operations:\n"
            "      - id: github.get_issue\n"
            "        effect: read\n"
            "        fixed: {api_version: \"2022-11-28\"}\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            number: {type: integer}\n"
            "            api_version: {type: string}\n"
            "          required: [number]\n"
        ),
    )
)

register(
    CodeInfo(
        code="CATALOG_NAME_RESERVED",
        family="catalog",
        owner="catalog",
        title="An operation uses a name its workflow call step cannot carry",
        explanation=(
            "A call compiles to one step whose `input` holds the executor's configuration and `request`, the request envelope with one member per input port. In workflow data a key starting with `$` is reserved (`{$literal: ...}` marks data that is never evaluated), so an input port whose name starts with `$` could not carry a value read at run time (a port named `$literal` would even turn the value into its expression's text), and a configuration key `request` (or one starting with `$`) would be replaced or rejected. The executor type is the step's type, so it may not be a built-in step type (`set`, `llm.call`, ...) or lie in a built-in namespace (`loop.`, `value.`, ...): the step would not run the operation. The diagnostic points at the name (the executor type at `type`, or at the bare string). The operation is left out of the catalog; plans that call it get no further diagnostic about the call. Rename the property (the tool's adapter maps it back), the configuration key or the executor type."
        ),
        wrong=(
            "version: 1\n"
            "sources:\n"
            "  - id: search\n"
            "    operations:\n"
            "      - id: search.query\n"
            "        effect: read\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            $filter: {type: string}\n"
            "          required: [$filter]\n"
        ),
        right=(
            "version: 1\n"
            "sources:\n"
            "  - id: search\n"
            "    operations:\n"
            "      - id: search.query\n"
            "        effect: read\n"
            "        input:\n"
            "          type: object\n"
            "          properties:\n"
            "            filter: {type: string}\n"
            "          required: [filter]\n"
        ),
    )
)
