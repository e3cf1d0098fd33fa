"""Words a short code must never be: the first path segments of the service's own
endpoints (and Directus's), which a short-code URL `/<code>` would collide with."""

#: Lower case; only words of six letters or more matter, as shorter codes are not made.
RESERVED_SEGMENTS = frozenset(
    {
        "activity",
        "assets",
        "collections",
        "comments",
        "dashboards",
        "extensions",
        "fields",
        "folders",
        "graphql",
        "health",
        "metrics",
        "notifications",
        "operations",
        "panels",
        "permissions",
        "policies",
        "presets",
        "relations",
        "revisions",
        "schema",
        "server",
        "settings",
        "shares",
        "translations",
        "versions",
        "webhooks",
    }
)
