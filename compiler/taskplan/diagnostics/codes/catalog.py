"""The catalog family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="CATALOG_SYNTAX",
        family="catalog",
        owner="catalog",
        title="The catalog file is malformed",
        explanation=(
            "The catalog is not well-formed YAML or JSON, or does not follow the catalog format (unknown or missing fields, wrong types, invalid operation IDs)."
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
            "An operation's input or output schema is not valid JSON Schema (draft-07 or 2020-12), or an input schema is not an object schema, or a local $ref does not resolve."
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
            "Operation IDs are unique across all catalog files, per version."
        ),
    )
)
