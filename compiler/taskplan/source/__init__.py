"""The read pass: bytes to a document tree plus a source map.

`read_document` is the entry point; it never raises on user input.
"""
