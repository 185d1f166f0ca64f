"""What a client of a schema registry needs, shared by the registry's command line and the loader.

``registry check``, ``registry push`` (and so the pre-commit hook) and the loader's registry client reach a
registry the same way: with Confluent's client properties (``client_settings``: ``basic.auth.*``,
``bearer.auth.*``, ``ssl.*``, from a properties file and the environment), secrets read from a file or an
environment variable and never shown (``secret_values``), and one kind of HTTP session that authenticates,
verifies TLS and keeps credentials out of messages (``http_session``).

The package needs only the core dependencies (requests; the rest is the standard library) and nothing of the
registry service, so the loader and the pre-commit hook install neither Flask nor SQLAlchemy. Import the
modules themselves: this one imports nothing, so ``Secret`` costs no HTTP library.
"""
