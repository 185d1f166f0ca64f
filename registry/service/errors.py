"""Domain errors of the registry, each carrying its Confluent error code.

The storage layer and the request parsers raise these; ``registry.api.errors`` turns them into
``{"error_code": N, "message": "..."}`` bodies in one place. The HTTP status is the code's first three
digits, which is how Confluent numbers them (40401 -> 404, 42201 -> 422, 50001 -> 500).
"""

from __future__ import annotations


class RegistryError(Exception):
    """Base of every error that becomes a Confluent error body."""

    error_code: int = 50001
    default_message = "Error in the backend datastore"

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or self.default_message)
        self.message = message or self.default_message

    @property
    def http_status(self) -> int:
        code = self.error_code
        return code if code < 1000 else int(str(code)[:3])


class SubjectNotFound(RegistryError):
    error_code = 40401
    default_message = "Subject not found."


class VersionNotFound(RegistryError):
    error_code = 40402
    default_message = "Version not found."


class SchemaNotFound(RegistryError):
    error_code = 40403
    default_message = "Schema not found."


class SubjectSoftDeleted(RegistryError):
    error_code = 40404
    default_message = "Subject was soft deleted. Set permanent=true to delete permanently."


class SubjectNotSoftDeleted(RegistryError):
    error_code = 40405
    default_message = "Subject must be soft deleted first (DELETE without permanent=true)."


class VersionSoftDeleted(RegistryError):
    error_code = 40406
    default_message = "Version was soft deleted. Set permanent=true to delete permanently."


class VersionNotSoftDeleted(RegistryError):
    error_code = 40407
    default_message = "Version must be soft deleted first (DELETE without permanent=true)."


class SubjectConfigNotFound(RegistryError):
    error_code = 40408
    default_message = "Subject has no compatibility level of its own; add defaultToGlobal=true."


class SubjectModeNotFound(RegistryError):
    error_code = 40409
    default_message = "Subject has no mode of its own; add defaultToGlobal=true."


class Incompatible(RegistryError):
    error_code = 409
    default_message = "Schema being registered is incompatible with an earlier schema."


class InvalidSchema(RegistryError):
    error_code = 42201
    default_message = "Invalid schema."


class InvalidVersion(RegistryError):
    error_code = 42202
    default_message = "The specified version is not a valid version id."


class InvalidCompatibilityLevel(RegistryError):
    error_code = 42203
    default_message = "Invalid compatibility level."


class InvalidMode(RegistryError):
    error_code = 42204
    default_message = "Invalid mode."


class OperationNotPermitted(RegistryError):
    error_code = 42205
    default_message = "Operation not permitted."


class ReferenceExists(RegistryError):
    error_code = 42206
    default_message = "Another schema references this version; delete that schema first."


class InvalidSubject(RegistryError):
    error_code = 42208
    default_message = "Invalid subject name."


class SchemaTooLarge(RegistryError):
    error_code = 42209
    default_message = "Schema is too large."


class InvalidRuleSet(RegistryError):
    error_code = 42210
    default_message = "Invalid rule set."


class ContextNotSupported(RegistryError):
    """A qualified subject (``:.context:name``) of a context other than the default one."""

    error_code = 42208
    default_message = "Only the default context is supported."


class BadRequest(RegistryError):
    """Malformed requests (invalid JSON or UTF-8, too deep, wrong field types): Confluent answers 400."""

    error_code = 400
    default_message = "Bad request."


class PayloadTooLarge(RegistryError):
    error_code = 413
    default_message = "Request body is too large."


class StoreError(RegistryError):
    error_code = 50001
    default_message = "Error in the backend datastore."
