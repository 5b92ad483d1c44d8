"""`taskplan schema NAME [--wire] [-o FILE]`: print a JSON Schema.

    taskplan schema taskplan           the TaskPlan authoring schema (editors, validation)
    taskplan schema taskplan --wire    the strict structured-output schema a planning model writes under

The schemas are generated from the models, deterministically (the committed
copies under schemas/ are the same bytes). Exit codes: 0 done; 2 bad usage
(an unknown NAME, `--wire` for a schema that has no wire form, a file that
cannot be written); 3 a bug of taskplan.
"""

from __future__ import annotations

import importlib

import click

from taskplan.cli._common import EXIT_OK, EXIT_USAGE, guard, write

SCHEMAS: dict[str, tuple[str, bool]] = {
    "taskplan": ("taskplan.model.schema:schema_text", True),
    "catalog": ("taskplan.model.catalog:catalog_json_schema_text", False),
    "workflow": ("taskplan.workflow.schema:schema_text", False),
}
"""NAME -> ("module:function", whether it has a wire form). The function returns the
schema's text; it is called as `function()` or, with --wire, `function(wire=True)`.
Add an entry to offer another schema (modules are imported only when chosen)."""


@click.command()
@click.argument("name", metavar="NAME", type=click.Choice(sorted(SCHEMAS)))
@click.option("--wire", is_flag=True, help="The strict wire form: every property present and required, optional ones nullable.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the schema to FILE instead of stdout.")
@guard
def schema(name: str, wire: bool, output: str | None) -> int:
    """Print the JSON Schema NAME (draft 2020-12)."""
    target, has_wire = SCHEMAS[name]
    if wire and not has_wire:
        raise click.UsageError(f"the {name} schema has no wire form (--wire is for: {', '.join(n for n, (_, w) in sorted(SCHEMAS.items()) if w)})")
    module_name, attr = target.split(":")
    make = getattr(importlib.import_module(module_name), attr)
    text = make(wire=True) if wire else make()
    if output is None:
        write(text)
        return EXIT_OK
    try:
        with open(output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        write(f"error: cannot write {output}: {(exc.strerror or type(exc).__name__).lower()}\n", err=True)
        return EXIT_USAGE
    return EXIT_OK


__all__ = ["SCHEMAS", "schema"]
