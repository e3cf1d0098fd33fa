"""Who may use the EPCIS API: the 401-or-403 rule, without HTTP."""

import pytest

from application.access.event_scope import AuthenticationRequired, request_scope
from application.service.errors import Forbidden
from domain.access.policies import Accountability, PermissionRule, PolicyGrant

ADMIN = PolicyGrant("admin", admin_access=True)
READER = PolicyGrant("reader", rules=(PermissionRule("reader", "epcis_event", "read"),))
PARTNER = PolicyGrant(
    "partner",
    rules=(
        PermissionRule(
            "partner",
            "epcis_event",
            "read",
            permissions={"bizStep": {"_eq": "shipping"}},
        ),
    ),
)


def test_the_public_without_the_right_is_asked_to_authenticate() -> None:
    with pytest.raises(AuthenticationRequired, match="Authentication required"):
        request_scope(Accountability(), "read")


def test_a_signed_in_user_without_the_right_is_forbidden_not_asked_to_authenticate() -> None:
    with pytest.raises(Forbidden) as refused:
        request_scope(Accountability(user="u1"), "create")
    assert not isinstance(refused.value, AuthenticationRequired)
    assert refused.value.message == 'You don\'t have permission to "create" EPCIS events.'


def test_the_public_with_the_right_is_served_everything_it_may_read() -> None:
    assert request_scope(Accountability(policies=(READER,)), "read") is None


def test_an_administrator_sees_every_event() -> None:
    assert request_scope(Accountability(user="root", policies=(ADMIN,)), "read") is None


def test_a_read_rule_becomes_the_scope_of_every_query() -> None:
    scope = request_scope(Accountability(user="p1", policies=(PARTNER,)), "read")
    assert scope is not None
    assert [query.biz_steps for query in scope] == [("https://ref.gs1.org/cbv/BizStep-shipping",)]
