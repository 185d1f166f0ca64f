"""Who may call the registry, and what they may do.

Off by default (as in Confluent's open-source registry); on with ``registry serve --auth``. Users live in
the registry's database (``registry users``), with a role (``read`` < ``write`` < ``admin``), the subject
prefixes a writer may write under, and argon2 hashes of a password (HTTP Basic, what Confluent clients
send with ``basic.auth.user.info``) and of a bearer token.

- ``permissions``: which permission each request needs and whether a user has it (pure).
- ``throttle``: failed attempts per user name and client address (pure).
- ``credentials``: the Authorization header, hashing and verification.
- ``users``: the users table.
- ``registry.api.authentication``: the Flask hook that puts it together.
- ``cli``: ``registry users add|remove|list``.
"""
