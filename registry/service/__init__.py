"""Pure domain logic of the registry service: errors, input validation, nothing that does I/O."""
