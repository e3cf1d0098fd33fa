"""Platform collections: their schema and the Directus-style query language over them."""
