"""The ``toolret`` command line: one module per command group.

``app`` holds the typer application and ``main``; ``errors`` the one error printer every
command uses; ``loading`` the one catalog loader (``module:attribute`` or a JSON file).
"""
