"""Any EPC identifier in the one form the CBV 2.0 event hash and our indexes use."""

from functools import lru_cache

from domain.gs1.digital_link import GS1_RESOLVER, digital_link_key_path
from domain.gs1.epc_urn import urn_key_path


# Events repeat their locations, classes and vocabulary values, and every value of an event
# is offered here while hashing: remembering answers makes most of them one dict lookup.
@lru_cache(maxsize=16384)
def gs1_key_path(uri: str) -> str | None:
    """The canonical `AI/value[/AI/value]` path of a GS1 key given as URN or Digital Link."""
    if uri.startswith("urn:epc:"):
        return urn_key_path(uri)
    if uri.startswith("http"):
        return digital_link_key_path(uri)
    return None


def canonical_epc(uri: str) -> str:
    """The canonical GS1 Digital Link URI (`https://id.gs1.org/…`) of an EPC; others unchanged.

    EPC URNs, LGTIN classes, class-level `urn:epc:idpat:` patterns and Digital Link URIs
    on any host all map to one URI; private URNs, other URLs and odd input come back as is.
    """
    if not isinstance(uri, str):
        return uri
    path = gs1_key_path(uri)
    return uri if path is None else GS1_RESOLVER + path


def is_gs1_epc(uri: str) -> bool:
    """Whether the identifier names a GS1 key (and so has a canonical Digital Link form)."""
    return isinstance(uri, str) and gs1_key_path(uri) is not None
