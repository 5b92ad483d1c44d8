"""One policy for CPython's cyclic garbage collector during a compile.

Every pass allocates tens or hundreds of thousands of long-lived, acyclic
container objects (document trees, source-map positions, models, IR nodes,
graph steps) over a live heap that grows with the plan. The generational
collector then runs full collections that traverse the whole heap again and
again, costing more than the passes themselves and making time grow faster
than the plan. Nothing a pass allocates becomes cyclic garbage, so pausing the
collector loses nothing.

The API runs the whole pipeline inside `gc_paused()`; the readers, passes and
the emitter use it too, so they stay fast when called on their own (benchmarks,
tests). Nested pauses are no-ops.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector; on exit restore it, with what was built moved to the
    oldest generation at once (freeze then unfreeze merges every generation into it),
    so the next allocation does not traverse it all as young objects."""
    was_enabled = gc.isenabled()
    if was_enabled:
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
