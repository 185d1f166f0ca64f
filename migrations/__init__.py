"""Alembic migrations of the registry database (a package so that it can be installed with the code)."""
