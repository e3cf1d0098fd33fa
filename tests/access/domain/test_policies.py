"""How the permissions of several policies combine into what a caller may do."""

from domain.access.policies import Accountability, PermissionRule, PolicyGrant, applicable


def rule(collection: str = "roles", action: str = "read", **kw: object) -> PermissionRule:
    return PermissionRule(policy="p", collection=collection, action=action, **kw)  # type: ignore[arg-type]


def caller(*grants: PolicyGrant) -> Accountability:
    return Accountability(user="u", policies=grants)


def test_a_caller_without_a_matching_row_has_no_access() -> None:
    me = caller(PolicyGrant("a", rules=(rule(action="create"),)))
    assert me.access("roles", "read") is None


def test_a_row_without_an_item_rule_gives_full_access() -> None:
    me = caller(PolicyGrant("a", rules=(rule(fields=("*",)),)))
    access = me.access("roles", "read")
    assert access is not None
    assert access.full
    assert access.rule is None


def test_item_rules_of_several_policies_combine_with_or() -> None:
    first = rule(permissions={"name": {"_eq": "a"}}, fields=("id",))
    second = rule(permissions={"name": {"_eq": "b"}}, fields=("name",))
    me = caller(PolicyGrant("a", rules=(first,)), PolicyGrant("b", rules=(second,)))
    access = me.access("roles", "read")
    assert access is not None
    assert access.rule == {"_or": [{"name": {"_eq": "a"}}, {"name": {"_eq": "b"}}]}


def test_one_unrestricted_row_makes_the_access_full_whatever_the_other_rules() -> None:
    limited = rule(permissions={"name": {"_eq": "a"}})
    me = caller(PolicyGrant("a", rules=(limited,)), PolicyGrant("b", rules=(rule(),)))
    access = me.access("roles", "read")
    assert access is not None
    assert access.full


def test_fields_are_the_union_of_the_rows() -> None:
    me = caller(
        PolicyGrant("a", rules=(rule(fields=("id", "name")),)),
        PolicyGrant("b", rules=(rule(fields=("icon",)),)),
    )
    access = me.access("roles", "read")
    assert access is not None
    assert access.fields == ("icon", "id", "name")
    assert access.allows_field("icon")
    assert not access.allows_field("description")


def test_validation_rules_all_apply() -> None:
    me = caller(
        PolicyGrant("a", rules=(rule(action="create", validation={"name": {"_nnull": True}}),)),
        PolicyGrant("b", rules=(rule(action="create", validation={"icon": {"_eq": "x"}}),)),
    )
    access = me.access("roles", "create")
    assert access is not None
    assert access.validation == ({"name": {"_nnull": True}}, {"icon": {"_eq": "x"}})


def test_presets_merge_with_later_policies_winning() -> None:
    me = caller(
        PolicyGrant("a", rules=(rule(action="create", presets={"icon": "a", "name": "a"}),)),
        PolicyGrant("b", rules=(rule(action="create", presets={"icon": "b"}),)),
    )
    access = me.access("roles", "create")
    assert access is not None
    assert access.presets == {"icon": "b", "name": "a"}


def test_admin_access_comes_from_any_policy() -> None:
    assert caller(PolicyGrant("a"), PolicyGrant("b", admin_access=True)).admin
    assert not caller(PolicyGrant("a", app_access=True)).admin
    assert caller(PolicyGrant("a", app_access=True)).app


def test_a_policy_with_an_ip_list_applies_only_to_those_addresses() -> None:
    office = PolicyGrant("office", ip_access="10.0.0.0/8, 192.168.1.5")
    everywhere = PolicyGrant("everywhere")
    assert applicable([office, everywhere], "10.1.2.3") == (office, everywhere)
    assert applicable([office, everywhere], "192.168.1.5") == (office, everywhere)
    assert applicable([office, everywhere], "172.16.0.1") == (everywhere,)


def test_an_unknown_address_drops_every_policy_with_an_ip_list() -> None:
    office = PolicyGrant("office", ip_access="10.0.0.0/8")
    assert applicable([office], None) == ()


def test_ip_ranges_are_inclusive() -> None:
    lab = PolicyGrant("lab", ip_access="10.0.0.10-10.0.0.20")
    assert lab.allows_ip("10.0.0.10")
    assert lab.allows_ip("10.0.0.20")
    assert not lab.allows_ip("10.0.0.21")


def test_a_malformed_ip_list_entry_matches_nothing() -> None:
    assert not PolicyGrant("x", ip_access="not-an-ip").allows_ip("10.0.0.1")
