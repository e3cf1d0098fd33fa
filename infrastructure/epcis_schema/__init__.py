"""Tracepoint's own EPCIS 2.0 JSON Schema and the validator that checks documents against it."""

from infrastructure.epcis_schema.validator import (
    DocumentKind,
    DocumentValidator,
    document_schema,
    load_schema,
)

__all__ = ["DocumentKind", "DocumentValidator", "document_schema", "load_schema"]
