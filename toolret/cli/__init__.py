"""The ``toolret`` command line: one module per command group.

``app`` holds the typer application and ``main``; ``errors`` the one error printer every
command uses; ``output`` where they print (a terminal, or plain text for pipes and logs).
The one catalog loader (``module:attribute`` or a JSON file) is ``toolret.adapters._loading``.
"""
