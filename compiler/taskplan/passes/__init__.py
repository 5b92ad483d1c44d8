"""The compiler's passes, one module each, each owning its diagnostics:
read (taskplan.source) -> shape -> structure -> identity -> scope -> types -> usage -> lower
-> emit -> validate."""
