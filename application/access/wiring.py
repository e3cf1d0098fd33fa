"""Builds the access capability: sign-in, the e-mail flows and the access collections' rules."""

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from application.access.account_status import AccountStatus
from application.access.accountability import AccessService
from application.access.admin_guard import AdminGuard
from application.access.authentication import Authenticator, TokenLifetimes
from application.access.event_scope import EventScopes
from application.access.first_credentials import FirstCredentials
from application.access.outbox import Outbox
from application.access.single_sign_on import SingleSignOn
from application.access.system_collections import (
    EXTRA_PERMISSION_COLLECTIONS,
    NotificationsRules,
    PermissionsRules,
    PoliciesRules,
    RolesRules,
    UsersRules,
)
from application.access.throttle import SignInLocks, Throttle
from application.access.user_flows import FlowSettings, UserFlows, allow_list
from application.items.rules import CollectionRules
from application.items.service import ItemsService
from application.service.blocking import BlockingRunner
from application.service.core import Core
from application.service.log_checked_cache import LogCheckedCache
from domain.access.backoff import Backoff
from domain.access.providers import Providers
from infrastructure.access_tokens import AccessTokens
from infrastructure.mailer import FileMailer, Mailer, SmtpMailer
from infrastructure.settings import Settings
from projections.access.changes import AccessChanges


@dataclass(frozen=True)
class AccessCapability:
    """The access capability as the API and the other capabilities use it."""

    authenticator: Authenticator
    #: Sign-in at the providers of `AUTH_PROVIDERS` (OpenID Connect).
    single_sign_on: SingleSignOn
    user_flows: UserFlows
    outbox: Outbox
    #: Password hashing runs here, so that sign-in floods cannot starve the database work.
    password_checks: BlockingRunner
    rules: Mapping[str, CollectionRules]


def admin_guard(core: Core) -> AdminGuard:
    """The check that keeps at least one active administrator, for every write."""
    return AdminGuard(core.access_reader)


def build_access(core: Core, items: ItemsService, scopes: EventScopes) -> AccessCapability:
    """Sign-in, the flows that reach users by e-mail, and the rules of the access-control
    collections (`scopes` reads the CURIEs of rules on EPCIS events)."""
    settings = core.settings
    outbox = Outbox(_mailer(settings))
    tokens = AccessTokens(core.secret.encode())
    password_checks = BlockingRunner(workers=2)
    status = AccountStatus(items)
    first_credentials = FirstCredentials(settings)

    async def signed_in(user_id: str, ip: str | None, user_agent: str | None) -> None:
        await status.signed_in(user_id, ip, user_agent)
        first_credentials.signed_in(user_id)

    sign_in = Throttle(
        core.attempts,
        core.blocking,
        "login",
        settings.login_failures_per_minute,
        _sign_in_locks(settings),
        clock=core.clock,
    )
    changes = AccessChanges(core.store)
    # What this process's runner applies is looked at in memory; only what it did not
    # see (another runner applied it) is read from the log.
    core.projections.add_listener(changes.applied)
    callers = LogCheckedCache(
        changes.between,
        lambda: core.projections.reached,
        settings.access_cache_size,
        known=changes.known,
    )
    authenticator = Authenticator(
        AccessService(core.access_reader, core.blocking, callers),
        core.sessions,
        tokens,
        core.blocking,
        TokenLifetimes(
            access=settings.access_token_ttl,
            refresh=settings.refresh_token_ttl,
            session=settings.session_cookie_ttl,
        ),
        throttle=sign_in,
        passwords=core.passwords,
        password_checks=password_checks,
        signed_in=signed_in,
        clock=core.clock,
    )
    user_flows = UserFlows(
        items,
        core.access_reader,
        tokens,
        outbox,
        FlowSettings(
            public_url=settings.public_url,
            register_urls=allow_list(settings.user_register_url_allow_list),
            invite_urls=allow_list(settings.user_invite_url_allow_list),
            reset_urls=allow_list(settings.password_reset_url_allow_list),
            public_registration=settings.public_registration,
            registration_role=settings.public_registration_role,
            verify_email=settings.public_registration_verify_email,
        ),
        core.blocking,
        Throttle(core.attempts, core.blocking, "mail", settings.mail_requests_per_minute),
        core.passwords,
        sign_in=sign_in,
    )
    names = [c.name for c in core.schema] + list(EXTRA_PERMISSION_COLLECTIONS)
    rules: dict[str, CollectionRules] = {
        "users": UsersRules(core.sessions, core.blocking, core.passwords),
        "roles": RolesRules(core.access_reader),
        "policies": PoliciesRules(),
        "permissions": PermissionsRules(lambda: names, scopes, core.access_reader),
        "notifications": NotificationsRules(core.access_reader, core.blocking, outbox),
    }
    single_sign_on = SingleSignOn(
        Providers.from_environment(settings.auth),
        authenticator,
        core.access_reader,
        items,
        core.sign_in_flows,
        core.blocking,
        settings.public_url,
        clock=core.clock,
    )
    return AccessCapability(
        authenticator, single_sign_on, user_flows, outbox, password_checks, rules
    )


def _sign_in_locks(settings: Settings) -> SignInLocks:
    """The locks of password sign-in, per account and per client address."""

    def backoff(after: int) -> Backoff:
        return Backoff(
            after=after,
            first=settings.login_lock_duration,
            longest=settings.login_lock_max_duration,
            forget=settings.login_failures_forgotten_after,
        )

    return SignInLocks(
        account=backoff(settings.login_lock_after),
        address=backoff(settings.login_address_lock_after),
    )


def _mailer(settings: Settings) -> Mailer:
    """SMTP when a host is set; else .eml files a newcomer can open."""
    if settings.email_smtp_host:
        password = settings.email_smtp_password
        return SmtpMailer(
            host=settings.email_smtp_host,
            port=settings.email_smtp_port,
            sender=settings.email_from,
            user=settings.email_smtp_user,
            password=password.get_secret_value() if password else None,
            secure=settings.email_smtp_secure,
        )
    return FileMailer(Path(settings.mail_dir), settings.email_from)
