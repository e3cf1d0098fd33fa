"""Who may use the EPCIS API: permissions on the collection `epcis_event`."""

from application.errors import Forbidden
from domain.access.policies import Accountability

#: The collection that permission rows name for the EPCIS API.
EPCIS_EVENTS = "epcis_event"


def require_epcis(caller: Accountability, action: str) -> None:
    """Capture needs `create`, queries and named queries `read`; Forbidden otherwise.

    A `read` permission whose item rule limits the events is refused for now rather
    than ignored: answering with every event would show a partner what is not theirs.
    """
    if caller.admin:
        return
    access = caller.access(EPCIS_EVENTS, action)
    if access is None:
        raise Forbidden(f'You don\'t have permission to "{action}" EPCIS events.')
    if action == "read" and not access.full:
        raise Forbidden("Item rules on epcis_event are not supported yet; ask an administrator.")
