"""Service settings, read from `TRACEPOINT_*` environment variables."""

import os
from typing import Annotated, Literal

from pydantic import AliasChoices, BeforeValidator, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from infrastructure.durations import parse_duration
from infrastructure.passwords import DEFAULT_MEMORY_KIB, DEFAULT_TIME_COST

#: Seconds; in the environment written `900000` (milliseconds), `15m`, `12h` or `7d`.
Duration = Annotated[float, BeforeValidator(parse_duration)]


def _log_level(value: object) -> object:
    """A level name in any case (`info`, `Warning`) as the logging module spells it."""
    level = str(value).strip().upper()
    if level not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
        raise ValueError("must be DEBUG, INFO, WARNING, ERROR or CRITICAL")
    return level


def _auth_environment() -> dict[str, str]:
    """Every `AUTH_*` variable of the environment: the sign-in providers as Directus names
    them (`AUTH_PROVIDERS`, `AUTH_<NAME>_DRIVER`, …), whose names depend on the providers."""
    return {name: value for name, value in os.environ.items() if name.startswith("AUTH_")}


def _spec_name(name: str) -> AliasChoices:
    """Settings the interface specification names keep its name (and ours works too)."""
    return AliasChoices(name, f"TRACEPOINT_{name}", name.lower())


class Settings(BaseSettings):
    """Everything the service reads from its environment; defaults suit `make run`."""

    model_config = SettingsConfigDict(env_prefix="TRACEPOINT_", extra="ignore")

    database_url: str = Field(
        default="sqlite:///./var/tracepoint.db",
        description="sqlite:///path/to/file.db or postgresql://user@host:port/dbname",
    )
    host: str = "127.0.0.1"
    port: int = Field(default=8080, ge=1, le=65535)
    secret: SecretStr | None = Field(
        default=None,
        description="Signs page tokens and (later) access tokens; generated and kept in "
        "the database when unset.",
    )
    admin_email: str | None = None
    admin_password: SecretStr | None = None
    admin_token: SecretStr | None = None

    capture_max_events: int = Field(default=10_000, ge=1)
    capture_max_bytes: int = Field(default=50 * 1024 * 1024, ge=1)
    capture_workers: int = Field(
        default_factory=lambda: min(os.cpu_count() or 1, 4),
        ge=0,
        description="Processes that compute the event hashes and index terms of large "
        "captures; 0 does it in the service process.",
    )
    run_dir: str = Field(
        default="./var/run",
        description="Where a running service notes its worker processes, so that a start "
        "after a crash can end those the crashed service left.",
    )
    query_per_page_default: int = Field(default=30, ge=1)
    query_per_page_max: int = Field(default=1000, ge=1)
    read_your_writes_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a write waits for the read models."
    )
    trace_max_depth: int = Field(
        default=50, ge=1, le=1000, description="Largest `depth` a `GET /trace` may ask for."
    )
    trace_max_nodes: int = Field(
        default=10_000,
        ge=1,
        description="Most nodes one `GET /trace` answer holds; the walk stops there and says so.",
    )
    projection_batch_size: int = Field(default=1000, ge=1)
    projection_poll_interval: float = Field(
        default=0.5, gt=0, description="Seconds between polls of the event log."
    )
    database_pool_size: int = Field(default=8, ge=1)
    access_cache_size: int = Field(
        default=4096,
        ge=0,
        description="Resolved callers (tokens, users and their grants) each process keeps in "
        "memory; 0 reads them from the database on every request.",
    )
    password_hash_time_cost: int = Field(
        default=DEFAULT_TIME_COST,
        ge=1,
        description="Argon2id passes of a password hash. Keep the default in production; "
        "the tests lower it, as hashing dominates their run time.",
    )
    password_hash_memory_kib: int = Field(
        default=DEFAULT_MEMORY_KIB,
        ge=32,
        description="KiB of memory an Argon2id password hash takes (at least 32). Keep the "
        "default in production.",
    )

    access_token_ttl: Duration = Field(
        default=15 * 60.0,
        validation_alias=_spec_name("ACCESS_TOKEN_TTL"),
        description="Lifetime of access tokens.",
    )
    refresh_token_ttl: Duration = Field(
        default=7 * 86_400.0,
        validation_alias=_spec_name("REFRESH_TOKEN_TTL"),
        description="Lifetime of refresh tokens (json and cookie modes).",
    )
    session_cookie_ttl: Duration = Field(
        default=86_400.0,
        validation_alias=_spec_name("SESSION_COOKIE_TTL"),
        description="Lifetime of session-mode tokens and cookies.",
    )
    cookie_secure: bool = Field(
        default=False, description="Send the auth cookies only over HTTPS (set it in production)."
    )
    trust_proxy: bool = Field(
        default=False,
        description="Take the client address from X-Forwarded-For (behind a reverse proxy).",
    )
    login_failures_per_minute: int = Field(
        default=10, ge=1, description="Failed logins a client address may make per minute."
    )
    # Sign-in locks (failed logins lock the password sign-in for a while, never the
    # account: its static token and sessions keep working).
    login_lock_after: int = Field(
        default=5,
        ge=1,
        # TRACEPOINT_LOGIN_ATTEMPTS used to suspend the account after that many.
        validation_alias=AliasChoices(
            "TRACEPOINT_LOGIN_LOCK_AFTER",
            "TRACEPOINT_LOGIN_ATTEMPTS",
            "login_lock_after",
            "login_attempts",
        ),
        description="Failed logins in a row to one account (from any address) after which "
        "its password sign-in is locked.",
    )
    login_address_lock_after: int = Field(
        default=20,
        ge=1,
        description="Failed logins in a row from one client address (to any account) after "
        "which password sign-in from it is locked.",
    )
    login_lock_duration: Duration = Field(
        default=60.0,
        description="The first lock's length; each further failure doubles it.",
    )
    login_lock_max_duration: Duration = Field(
        default=15 * 60.0, description="The longest a lock lasts, however many failures."
    )
    login_failures_forgotten_after: Duration = Field(
        default=86_400.0,
        description="Failures in a row are forgotten after this long without a failure.",
    )

    mail_requests_per_minute: int = Field(
        default=5,
        ge=1,
        description="Registrations and password-reset requests a client address may make "
        "per minute.",
    )
    public_url: str = Field(
        default="",
        validation_alias=_spec_name("PUBLIC_URL"),
        description="Where the service is reached; links in e-mails, Digital Links and "
        "export files start with it. Unset: http://<host>:<port> (a wildcard host such as "
        "0.0.0.0 becomes 127.0.0.1, reachable from this machine only).",
    )
    digital_link_base: str | None = Field(
        default=None,
        description="Start of the Digital Link URIs of records and codes (the resolver's "
        "address, e.g. https://id.example.com); PUBLIC_URL when unset.",
    )
    multi_tenant: bool = Field(
        default=False,
        description="Users belong to accounts and see only their account's items and "
        "events; administrators see all.",
    )
    standard_identifiers: bool = Field(
        default=True,
        description="Products and lots with a known GTIN get GS1 ids and Digital Links "
        "unless their own use_gs1_identifiers says otherwise.",
    )
    background_work: bool = Field(
        default=True,
        description="Run identifier jobs, reservations and pool refills in this process "
        "(several processes may; each job runs in one).",
    )
    code_pools: str = Field(
        default="[]",
        description='Pools of codes kept topped up, as JSON: [{"type": "sgtin", "product": '
        '"<product pk>", "minimum": 10000, "batch": 50000}] (other identifier_job fields '
        "may be given too).",
    )
    code_job_max_quantity: int = Field(
        default=1_000_000,
        ge=1,
        description="Most codes one identifier job or reservation asks for.",
    )
    code_chunk_size: int = Field(
        default=10_000, ge=1, le=100_000, description="Codes written per chunk (one event)."
    )
    code_worker_interval: float = Field(
        default=5.0, gt=0, description="Seconds between looks for waiting jobs and reservations."
    )
    code_pool_interval: float = Field(
        default=60.0, gt=0, description="Seconds between checks of the code pools."
    )
    integrity_duplicate_km: float = Field(
        default=100.0,
        gt=0,
        description="Scans of one code farther apart than this within "
        "the window below make a `duplicated` integrity result.",
    )
    integrity_duplicate_window: Duration = Field(
        default=3600.0,
        gt=0,
        description="The time window of the duplicate rule: 30m, 1h, 2d (a bare number is "
        "milliseconds, as in the other durations).",
    )
    outbound_allow_list: str = Field(
        default="",
        description="Comma-separated URL prefixes, host names or CIDR ranges that webhooks "
        "and partner connections may reach although they are internal (loopback, private, "
        "link-local).",
    )
    flow_batch_size: int = Field(
        default=500, ge=1, le=10_000, description="Events per document an outbound flow sends."
    )
    audit_tree: bool = Field(
        default=True,
        description="Write each log entry's leaf of the audit tree (a Merkle tree of the "
        "whole log) with the entry; switched off, the next start with it on catches up.",
    )
    audit_head_interval: float = Field(
        default=60.0,
        gt=0,
        description="Seconds between signed heads of the audit tree (one is signed only "
        "when the log grew).",
    )
    audit_signing_key: SecretStr | None = Field(
        default=None,
        description="The Ed25519 key that signs the audit tree's heads, as an unencrypted "
        "PEM PRIVATE KEY; generated and kept in the database when unset.",
    )
    flow_poll_interval: float = Field(
        default=1.0,
        gt=0,
        description="Seconds between looks for outbound flows whose interval has passed.",
    )
    scans_per_minute: int = Field(
        default=60,
        ge=1,
        description="Scans kept (and checked for integrity) per client address and minute; "
        "past it, codes still resolve.",
    )
    scan_country_header: str = Field(
        default="CF-IPCountry",
        description="Request header holding the scanning client's country (ISO 3166 "
        "alpha-2), as a CDN or proxy sets it; used by the `diverted` rule.",
    )
    email_smtp_host: str | None = Field(
        default=None, validation_alias=_spec_name("EMAIL_SMTP_HOST")
    )
    email_smtp_port: int = Field(default=587, validation_alias=_spec_name("EMAIL_SMTP_PORT"))
    email_smtp_user: str | None = Field(
        default=None, validation_alias=_spec_name("EMAIL_SMTP_USER")
    )
    email_smtp_password: SecretStr | None = Field(
        default=None, validation_alias=_spec_name("EMAIL_SMTP_PASSWORD")
    )
    email_smtp_secure: bool = Field(default=False, validation_alias=_spec_name("EMAIL_SMTP_SECURE"))
    email_from: str = Field(
        default="no-reply@tracepoint.local", validation_alias=_spec_name("EMAIL_FROM")
    )
    mail_dir: str = Field(
        default="./var/mail", description="Where mail goes as .eml files when SMTP is not set."
    )
    uploads_dir: str = Field(
        default="./var/uploads", description="Where the bytes of uploaded files are kept."
    )
    max_upload_bytes: int = Field(
        default=100 * 1024 * 1024, ge=1, description="Largest file an upload may carry."
    )
    user_register_url_allow_list: str = Field(
        default="", validation_alias=_spec_name("USER_REGISTER_URL_ALLOW_LIST")
    )
    user_invite_url_allow_list: str = Field(
        default="", validation_alias=_spec_name("USER_INVITE_URL_ALLOW_LIST")
    )
    password_reset_url_allow_list: str = Field(
        default="", validation_alias=_spec_name("PASSWORD_RESET_URL_ALLOW_LIST")
    )
    public_registration: bool = Field(
        default=False, description="Whether anyone may register through /users/register."
    )
    public_registration_role: str | None = Field(
        default=None, description="The role given to users who register themselves."
    )
    public_registration_verify_email: bool = Field(
        default=True, description="Registered users must confirm their e-mail address first."
    )

    auth: dict[str, str] = Field(
        default_factory=_auth_environment,
        description="The AUTH_* variables: AUTH_PROVIDERS, AUTH_DISABLE_DEFAULT and each "
        "provider's AUTH_<NAME>_* (docs/single-sign-on.md).",
    )

    # -- first start ------------------------------------------------------------------
    bootstrap_credentials_file: str = Field(
        default="./var/bootstrap-admin.txt",
        description="Where the generated credentials of the bootstrap admin are kept "
        "(readable by the service's user only) until the admin first signs in.",
    )

    # Logs, security headers and CORS (docs/logs-and-headers.md).
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="`text`: one human-readable line per record; `json`: one JSON object per "
        "line (access and application logs, exceptions included).",
    )
    log_level: Annotated[str, BeforeValidator(_log_level)] = Field(
        default="INFO",
        validation_alias=_spec_name("LOG_LEVEL"),
        description="Least severe records logged: DEBUG, INFO, WARNING, ERROR or CRITICAL.",
    )
    cors_enabled: bool = Field(default=False, validation_alias=_spec_name("CORS_ENABLED"))
    cors_origin: str = Field(
        default="false",
        validation_alias=_spec_name("CORS_ORIGIN"),
        description="false (no origin), true (reflect any origin), * or a comma list of "
        "origins; an item `regex:<pattern>` allows the origins the pattern matches.",
    )
    cors_methods: str = Field(
        default="GET,POST,PATCH,DELETE", validation_alias=_spec_name("CORS_METHODS")
    )
    cors_allowed_headers: str = Field(
        default="Content-Type,Authorization", validation_alias=_spec_name("CORS_ALLOWED_HEADERS")
    )
    cors_exposed_headers: str = Field(
        default="Content-Range", validation_alias=_spec_name("CORS_EXPOSED_HEADERS")
    )
    cors_credentials: bool = Field(default=True, validation_alias=_spec_name("CORS_CREDENTIALS"))
    cors_max_age: int = Field(
        default=18_000,
        ge=0,
        validation_alias=_spec_name("CORS_MAX_AGE"),
        description="Seconds a browser may cache a preflight answer.",
    )

    @model_validator(mode="after")
    def _default_public_url(self) -> "Settings":
        if not self.public_url:
            self.public_url = default_public_url(self.host, self.port)
        return self

    # -- /metrics (Prometheus), switched and guarded as Directus does --------------------
    metrics_enabled: bool = Field(
        default=False,
        validation_alias=_spec_name("METRICS_ENABLED"),
        description="Serve Prometheus metrics at /metrics (404 when off).",
    )
    metrics_tokens: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=_spec_name("METRICS_TOKENS"),
        description="Comma-separated tokens a scraper sends as `Authorization: Bearer "
        "<token>` (or Directus's `Metrics <token>`); administrators may read /metrics too.",
    )

    @property
    def metrics_token_list(self) -> tuple[str, ...]:
        """The METRICS_TOKENS, each stripped, empty ones left out."""
        raw = self.metrics_tokens.get_secret_value()
        return tuple(t.strip() for t in raw.split(",") if t.strip())

    # -- read replicas ---------------------------------------------------------------
    database_replica_urls: str = Field(
        default="",
        description="Comma-separated postgresql:// URLs of streaming replicas of the "
        "database; read requests (events, items, lists) go to one that has replayed the "
        "caller's last write, else to the primary.",
    )
    database_replica_max_lag: float = Field(
        default=30.0,
        gt=0,
        description="Seconds a replica may lag behind the primary before reads skip it.",
    )

    @property
    def replica_urls(self) -> list[str]:
        """The replicas' URLs, in order of preference."""
        return [u.strip() for u in self.database_replica_urls.split(",") if u.strip()]


def default_public_url(host: str, port: int) -> str:
    """`http://host:port`, with a wildcard host replaced by the loopback address: a
    wildcard is where the service listens, not an address anyone can reach."""
    if host in ("", "0.0.0.0"):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
