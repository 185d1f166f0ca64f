"""The pre-commit check of ``schemas/*.avsc`` and the push after merge (``registry check`` / ``push``).

Pure parts (layout, source positions, policies, the check itself, report formatting) are separate from the
edges that do I/O (git history, the registry's REST API), so that the rules are tested in milliseconds and
the edges against real git repositories and a real registry.
"""
