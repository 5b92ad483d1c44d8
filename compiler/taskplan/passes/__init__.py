"""The compiler's passes, one module each, each owning its diagnostics:
read (taskplan.source) -> shape -> identity -> scope -> types -> lower -> emit -> validate."""
