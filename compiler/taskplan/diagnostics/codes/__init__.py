"""Registers every diagnostic code, one module per family (diagnostics.md, Codes)."""

from taskplan.diagnostics.codes import (  # noqa: F401
    artifacts,
    catalog,
    choices,
    compiler,
    config,
    groups,
    identity,
    ports,
    reading,
    scope,
    structure,
    workflow,
)
