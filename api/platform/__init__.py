"""The platform API's shared conventions: the Directus request and response shapes,
keys, collection families, and the error middleware."""
