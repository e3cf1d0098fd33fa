"""Service settings, read from `TRACEPOINT_*` environment variables."""

import os

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


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
    query_per_page_default: int = Field(default=30, ge=1)
    query_per_page_max: int = Field(default=1000, ge=1)
    read_your_writes_timeout: float = Field(
        default=10.0, gt=0, description="Seconds a write waits for the read models."
    )
    projection_batch_size: int = Field(default=1000, ge=1)
    projection_poll_interval: float = Field(
        default=0.5, gt=0, description="Seconds between polls of the event log."
    )
    database_pool_size: int = Field(default=8, ge=1)
