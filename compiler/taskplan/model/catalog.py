"""The capability catalog format (catalog.md), as pydantic models.

Closed objects, strict JSON types. The loader (`taskplan.catalog.load`) shapes a
catalog document tree into these models, reports model errors as
CATALOG_SYNTAX at exact pointers, validates the embedded JSON Schemas and builds
the runtime `Catalog`. `catalog_json_schema()` is the JSON Schema of the format
(`taskplan schema catalog`, schemas/catalog.schema.json).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field

from taskplan.workflow import dialect

OPERATION_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$"
"""Operation (and source) IDs: catalog.md."""
VERSION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$"
"""Operation versions: what may follow `@` in a pin (docs/decisions.md, Catalog)."""
DEFAULT_EXECUTOR = "operation.call"
EFFECTS = ("read", "write", "destroy")


class CatalogNode(BaseModel):
    """Every catalog object: closed, strict JSON types."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ExecutorSpec(CatalogNode):
    """The workflow step that runs the operation."""

    type: str = Field(DEFAULT_EXECUTOR, min_length=1, description="The step type: dotted lower-case segments outside the workflow dialect's built-in namespaces, e.g. mcp.call; default operation.call.")
    config: dict[str, Any] = Field(
        default_factory=dict, description="Host-owned executor settings, emitted as is."
    )


class ArtifactPort(CatalogNode):
    """A port that produces or consumes an artifact kind."""

    port: str = Field(min_length=1, description="The port: an output property (produces) or an input property (consumes).")
    kind: str = Field(min_length=1, description="The artifact kind, e.g. patch, report, workspace.")


class Artifacts(CatalogNode):
    """The artifact kinds an operation produces and consumes."""

    produces: list[ArtifactPort] = Field(default_factory=list, description="Output ports that produce an artifact kind.")
    consumes: list[ArtifactPort] = Field(default_factory=list, description="Input ports that consume an artifact kind.")


class OperationSpec(CatalogNode):
    """One operation: what a plan may call, with its exact contracts."""

    id: str = Field(pattern=OPERATION_ID_PATTERN, description="Unique in the catalog (per version).")
    version: Union[Annotated[str, Field(pattern=VERSION_PATTERN)], int, None] = Field(
        None,
        description="Optional; a plan may pin it as ID@version. An integer is read as its decimal text.",
    )
    title: str | None = Field(None, description="A short human title.")
    description: str | None = Field(None, description="What the operation does.")
    executor: ExecutorSpec = Field(
        default_factory=ExecutorSpec,
        description="The workflow step that runs it; a bare string is just the type.",
    )
    """(The loader reads a bare string as `{type: <string>}`; the published schema says so.)"""
    input: dict[str, Any] = Field(description="JSON Schema of the input: an object schema. Its top-level properties are the input ports.")
    output: Union[dict[str, Any], bool, None] = Field(
        None, description="JSON Schema of the result; absent means an opaque result."
    )
    fixed: dict[str, Any] = Field(
        default_factory=dict, description="Host-owned input values; the plan may not bind these ports."
    )
    artifacts: Artifacts = Field(default_factory=Artifacts, description="Artifact kinds produced and consumed.")
    effect: Literal["read", "write", "destroy"] = Field(
        "write", description="read | write | destroy (default write); cleanup and approval show it."
    )


class SourceSpec(CatalogNode):
    """A tool source: an MCP server, an HTTP API, a local toolbox."""

    id: str = Field(pattern=OPERATION_ID_PATTERN, description="The source's ID.")
    description: str | None = Field(None, description="What the source is.")
    operations: list[OperationSpec] = Field(default_factory=list, description="Its operations.")


class CatalogDocument(CatalogNode):
    """A capability catalog file, version 1."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        title="TaskPlan capability catalog",
        json_schema_extra={"$comment": "taskplan capability catalog, version 1 (catalog.md)"},
    )

    version: Literal[1] = Field(description="The catalog format version: the integer 1.")
    sources: list[SourceSpec] = Field(default_factory=list, description="The tool sources.")


CATALOG_SCHEMA_ID = "urn:taskplan:schema:catalog:1"
"""The catalog schema's `$id`: a URN, as the TaskPlan schemas' (the project has no URL)."""


def catalog_json_schema() -> dict[str, Any]:
    """The JSON Schema of a catalog file (draft 2020-12), deterministic. The executor
    may be a bare string (its type) or an ExecutorSpec."""
    schema = CatalogDocument.model_json_schema()
    executor = schema["$defs"]["OperationSpec"]["properties"]["executor"]
    executor.pop("$ref", None)
    executor.pop("allOf", None)
    # the executor type is the call step's type: what the dialect reads as an executor
    # (the loader checks the same with `dialect.step_kind`)
    type_rule = {"pattern": dialect.EXECUTOR_TYPE_PATTERN, "not": {"pattern": dialect.RESERVED_TYPE_PATTERN}}
    executor["anyOf"] = [{"type": "string", "minLength": 1, **type_rule}, {"$ref": "#/$defs/ExecutorSpec"}]
    schema["$defs"]["ExecutorSpec"]["properties"]["type"].update(type_rule)
    for body in [schema, *schema["$defs"].values()]:
        for prop in body.get("properties", {}).values():
            prop.pop("title", None)  # pydantic's "Version", "Kind", ...: editors would show them as the hover heading
    out: dict[str, Any] = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": CATALOG_SCHEMA_ID}
    out.update(schema)
    return out


def catalog_json_schema_text() -> str:
    """schemas/catalog.schema.json, byte for byte (sorted keys, 2-space indent, as the
    other committed schemas)."""
    import json

    return json.dumps(catalog_json_schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # python -m taskplan.model.catalog > schemas/catalog.schema.json
    import sys

    sys.stdout.write(catalog_json_schema_text())
