"""The OpenAPI 3.1 document of both API families, generated from the router and the
catalogue (`/server/specs/oas`); draws on `collections` and `epcis` of the domain."""
