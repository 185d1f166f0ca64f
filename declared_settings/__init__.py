"""Settings declared once per program: a field of its settings model with its help text (`fields.Setting`),
from which its command line's flags, its environment variables, its config file keys and its manual's
tables follow. Shared by the loader (`loader.setting_fields`) and the registry (`registry.config`); it
needs only click, so the registry's core commands (`registry check`, the pre-commit hook) can use it."""
