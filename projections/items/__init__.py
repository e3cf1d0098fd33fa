"""The platform collections' tables, their history, and Directus-style queries over them."""
