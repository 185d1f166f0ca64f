"""Persistence of the registry: typed SQLAlchemy models, engine setup and the transactional repository."""
