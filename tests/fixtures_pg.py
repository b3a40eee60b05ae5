"""Postgres fixtures: the embedded server (pgvector) once per run, a fresh migrated database per test."""
