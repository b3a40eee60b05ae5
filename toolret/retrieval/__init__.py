"""The request path: ranking a message against a catalog, and what a turn binds."""
