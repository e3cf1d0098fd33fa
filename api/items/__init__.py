"""`/items/<collection>`, `/files`, `/assets`, `/activity`, `/revisions` and the `/v1` lists."""
