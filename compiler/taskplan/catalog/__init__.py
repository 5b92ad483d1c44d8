"""The capability catalog (catalog.md): loading, JSON Schema -> business types,
MCP import, search.

    from taskplan.catalog import load_catalogs
    catalog = load_catalogs(["catalog.yaml"], sink)        # -> Catalog
    resolution = catalog.resolve("github.get_pull_request@3")
    if resolution.ok:
        op = resolution.operation                         # Operation: ports as BTypes
    elif resolution.code:                                 # TASK_OPERATION_UNKNOWN
        reporter.report(resolution.code, pointer, resolution.message(), hint=resolution.hint())

Importing this package is cheap: jsonschema and ruamel are imported only when a
catalog is actually loaded, checked or written.
"""

from taskplan.catalog.load import (
    Catalog,
    Operation,
    Resolution,
    load_catalog_text,
    load_catalogs,
    split_ref,
    version_key,
)

__all__ = [
    "Catalog",
    "Operation",
    "Resolution",
    "load_catalog_text",
    "load_catalogs",
    "search",
    "split_ref",
    "suggest",
    "version_key",
]


def search(catalog: Catalog, query: str):  # noqa: ANN201 - list[Hit]
    """Every operation matching `query`, best first (catalog.md, Search)."""
    from taskplan.catalog.search import search as _search

    return _search(catalog, query)


def suggest(catalog: Catalog, unknown_id: str, k: int = 3) -> list[str]:
    """Up to `k` catalog IDs close to `unknown_id`, for "did you mean"."""
    return list(catalog.suggest(unknown_id, k))
