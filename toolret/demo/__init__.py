"""The demo: a 44-tool CRM roster with example requests, and ``toolret demo``'s run.

- ``roster``: the tools (package data: the demo and the eval rank the same catalog);
- ``examples``: their example requests in English, Arabic and Turkish;
- ``run``: selections for messages in three languages, printed as tables.
"""
