"""The system collections of access control: users, roles, policies, permissions, the
access junction, folders, files, translations and notifications (spec §2)."""

from domain.collections.schema import Alias, Collection, Field, FieldType

#: A user may authenticate only while active.
USER_STATUSES = ("draft", "invited", "unverified", "active", "suspended", "archived")
#: What a permission row may allow.
ACTIONS = ("create", "read", "update", "delete", "share")


def normalise_email(address: str) -> str:
    """E-mail addresses are kept and compared trimmed and lower-case."""
    return address.strip().lower()


UUID, STRING, TEXT = FieldType.UUID, FieldType.STRING, FieldType.TEXT
INTEGER, BOOLEAN = FieldType.INTEGER, FieldType.BOOLEAN
DATETIME, JSON, HASH = FieldType.DATETIME, FieldType.JSON, FieldType.HASH

USERS = Collection(
    name="users",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("first_name", STRING),
        Field("last_name", STRING),
        Field("email", STRING, unique=True),
        Field("password", HASH, concealed=True),
        Field("location", STRING),
        Field("title", STRING),
        Field("description", TEXT),
        Field("tags", JSON),
        Field("avatar", UUID),
        Field("language", STRING),
        Field("appearance", STRING, choices=("auto", "light", "dark")),
        Field("theme_light", STRING),
        Field("theme_dark", STRING),
        Field("theme_light_overrides", JSON),
        Field("theme_dark_overrides", JSON),
        # Set only through the two-factor endpoints, never by a payload.
        Field("tfa_secret", STRING, concealed=True, readonly=True),
        Field("status", STRING, choices=USER_STATUSES, default="active"),
        Field("role", UUID, relation="roles"),
        # Held as a SHA-256 digest: requests are matched by the digest of their token.
        Field("token", HASH, concealed=True, unique=True),
        Field("last_access", DATETIME, readonly=True),
        Field("last_page", STRING),
        Field("provider", STRING),
        Field("external_identifier", STRING),
        Field("auth_data", JSON),
        Field("email_notifications", BOOLEAN, default=True),
    ),
    aliases=(Alias("policies", "access", "user", writable=True),),
)

ROLES = Collection(
    name="roles",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("name", STRING, required=True),
        Field("icon", STRING),
        Field("description", TEXT),
        Field("parent", UUID, relation="roles"),
    ),
    aliases=(
        Alias("users", "users", "role"),
        Alias("policies", "access", "role", writable=True),
        Alias("children", "roles", "parent"),
    ),
)

POLICIES = Collection(
    name="policies",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("name", STRING, required=True),
        Field("icon", STRING),
        Field("description", TEXT),
        Field("ip_access", STRING),
        Field("enforce_tfa", BOOLEAN, default=False),
        Field("admin_access", BOOLEAN, default=False),
        Field("app_access", BOOLEAN, default=False),
    ),
    aliases=(
        Alias("users", "access", "policy", requires="user"),
        Alias("roles", "access", "policy", requires="role"),
        Alias("permissions", "permissions", "policy"),
    ),
)

#: The junction that attaches policies to roles, to users, or (neither) to the public.
ACCESS = Collection(
    name="access",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("role", UUID, relation="roles"),
        Field("user", UUID, relation="users"),
        Field("policy", UUID, relation="policies", required=True),
        Field("sort", INTEGER),
    ),
    junction=True,
)

PERMISSIONS = Collection(
    name="permissions",
    primary_key="id",
    fields=(
        Field("id", INTEGER),
        Field("policy", UUID, relation="policies", required=True),
        Field("collection", STRING, required=True),
        Field("action", STRING, required=True, choices=ACTIONS),
        Field("permissions", JSON),
        Field("validation", JSON),
        Field("presets", JSON),
        Field("fields", JSON),
    ),
)

FOLDERS = Collection(
    name="folders",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("name", STRING, required=True),
        Field("parent", UUID, relation="folders"),
    ),
)

#: Uploaded files (Directus's `directus_files`): the bytes live in the upload store under
#: `filename_disk`; what the service learns from an upload is read-only.
FILES = Collection(
    name="files",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("storage", STRING),
        Field("filename_disk", STRING, readonly=True),
        Field("filename_download", STRING, required=True),
        Field("title", STRING),
        Field("type", STRING),
        Field("folder", UUID, relation="folders"),
        Field("uploaded_by", UUID, relation="users", readonly=True),
        Field("created_on", DATETIME, readonly=True),
        Field("modified_by", UUID, relation="users", readonly=True),
        Field("modified_on", DATETIME, readonly=True),
        Field("charset", STRING),
        Field("filesize", INTEGER, readonly=True),
        Field("width", INTEGER),
        Field("height", INTEGER),
        Field("duration", INTEGER),
        Field("embed", STRING),
        Field("description", TEXT),
        Field("location", STRING),
        Field("tags", JSON),
        Field("metadata", JSON),
        Field("uploaded_on", DATETIME, readonly=True),
    ),
)

TRANSLATIONS = Collection(
    name="translations",
    primary_key="id",
    fields=(
        Field("id", UUID),
        Field("key", STRING, required=True),
        Field("language", STRING, required=True),
        Field("value", TEXT, required=True),
    ),
)

NOTIFICATIONS = Collection(
    name="notifications",
    primary_key="id",
    fields=(
        Field("id", INTEGER),
        Field("timestamp", DATETIME, readonly=True),
        Field("status", STRING, choices=("inbox", "archived"), default="inbox"),
        Field("recipient", UUID, relation="users", required=True),
        Field("sender", UUID, relation="users"),
        Field("subject", STRING, required=True),
        Field("message", TEXT),
        Field("collection", STRING),
        Field("item", STRING),
    ),
)

SYSTEM_COLLECTIONS = (
    USERS,
    ROLES,
    POLICIES,
    ACCESS,
    PERMISSIONS,
    FOLDERS,
    FILES,
    TRANSLATIONS,
    NOTIFICATIONS,
)

#: The collections with the generic endpoints (`/users`, `/roles`...); `access` is
#: written through the `policies` field of users and roles, and `files` has routes of
#: its own (uploads are multipart, `/assets` serves the bytes).
ROUTED_COLLECTIONS = tuple(
    c.name for c in SYSTEM_COLLECTIONS if c.name not in ("access", FILES.name)
)
