"""The role an EPC or class plays in its event, as the index tables hold it: a small
number instead of its name.

The role is in every row of `epcis_event_epcs` and `epcis_event_quantities` and in their
identifier indexes; as a name (`child`, `parent`) it cost PostgreSQL ~8 bytes a row in
each, padding included. The numbers are stored: never renumber one.
"""

from collections.abc import Iterable

ROLE_NUMBERS = {"epc": 1, "child": 2, "parent": 3, "input": 4, "output": 5, "quantity": 6}


def role_numbers(roles: Iterable[str]) -> list[int]:
    """The stored numbers of `roles` (names of `domain.epcis.index_terms`), in order."""
    return [ROLE_NUMBERS[role] for role in roles]
