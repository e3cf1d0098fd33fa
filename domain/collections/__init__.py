"""Platform collections: their schema and the Directus-style query language over them.

The query language is independent of storage. `parse_query` and `query_from_object`
(`item_query`) read the global query parameters into an `ItemQuery`; `parse_filter`
(`filters`) reads a filter rule; `resolve_variables` (`variables`) fills in the dynamic
variables; `validate` (`validation`) checks paths, operators and values against the schema
and returns the normalised form that `projections.items.filters` compiles to SQL and
`matches` (`evaluation`) evaluates in Python. Behaviour follows Directus 11; deviations
say so where they occur.
"""
