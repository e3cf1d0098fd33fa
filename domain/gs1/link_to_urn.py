"""GS1 Digital Link URIs as EPC URNs, where the length of the company prefix is known.

A Digital Link URI does not say where its company prefix ends and an EPC URN must, so
the way back needs the prefixes of the companies (GS1's own length table, or the
organisations a repository knows). No length is ever guessed: without one there is no URN.
"""

from collections.abc import Iterable, Sequence
from urllib.parse import unquote

from domain.gs1.digital_link import digital_link_key_path
from domain.gs1.epc_urn import urn_key_path

# Characters an EPC URN component escapes (TDS 2.0 Table A-1), `#` for a CPI's reference.
_URN_ESCAPES = str.maketrans(
    {
        '"': "%22",
        "#": "%23",
        "%": "%25",
        "&": "%26",
        "/": "%2F",
        "<": "%3C",
        ">": "%3E",
        "?": "%3F",
    }
)
_SHORTEST, _LONGEST = 6, 12


class CompanyPrefixes:
    """Known GS1 company prefixes; finds the one a key's digits start with."""

    def __init__(self, prefixes: Iterable[str]) -> None:
        # Prefixes EPC URNs cannot carry (under 6 digits) can never make one.
        self._prefixes = frozenset(
            p for p in prefixes if p.isascii() and p.isdigit() and _SHORTEST <= len(p) <= _LONGEST
        )

    def __bool__(self) -> bool:
        return bool(self._prefixes)

    def merged(self, more: Iterable[str]) -> "CompanyPrefixes":
        """These prefixes and `more`."""
        return CompanyPrefixes([*self._prefixes, *more])

    def length(self, digits: str) -> int | None:
        """The length of the longest known prefix `digits` start with, or None."""
        for size in range(min(_LONGEST, len(digits)), _SHORTEST - 1, -1):
            if digits[:size] in self._prefixes:
                return size
        return None


def _component(text: str) -> str:
    """A Digital Link path value as the same characters in an EPC URN."""
    return unquote(text).translate(_URN_ESCAPES)


def _with_prefix(key: str, value: str, length: int) -> tuple[str, str] | None:
    """The company prefix and the rest of a key's digits (less indicator, extension
    digit or leading zero, and check digit), for the keys that carry them so."""
    if key in ("01", "8006"):
        digits = value[1:13]
        return digits[:length], value[0] + digits[length:]
    if key == "00":
        digits = value[1:17]
        return digits[:length], value[0] + digits[length:]
    if key == "8003":
        digits = value[1:13]
        return digits[:length], digits[length:]
    size = {"414": 12, "417": 12, "253": 12, "255": 12, "8017": 17, "8018": 17, "402": 16}
    if key in size:
        digits = value[: size[key]]
        return digits[:length], digits[length:]
    return None


def _prefix_digits(key: str, value: str) -> str:
    """The digits a key's company prefix is looked up in."""
    return value[1:] if key in ("01", "8006", "00", "8003") else value


def _urn(path: str, length: int) -> str | None:
    """The EPC URN of a canonical key path whose company prefix has `length` digits."""
    parts = path.split("/")
    key, value = parts[0], parts[1]
    qualifier, extra = (parts[2], parts[3]) if len(parts) == 4 else (None, None)
    if key in ("8004", "401", "8010"):
        company_prefix, rest = value[:length], _component(value[length:])
        if key == "8010":
            if qualifier is None:
                return f"urn:epc:idpat:cpi:{company_prefix}.{rest}.*"
            return f"urn:epc:id:cpi:{company_prefix}.{rest}.{extra}"
        return f"urn:epc:id:{'giai' if key == '8004' else 'ginc'}:{company_prefix}.{rest}"
    split = _with_prefix(key, value, length)
    if split is None:
        return None
    company_prefix, reference = split
    head = f"{company_prefix}.{reference}"
    if key == "01":
        kinds = {None: "idpat:sgtin", "21": "id:sgtin", "10": "class:lgtin", "235": "id:upui"}
        if qualifier not in kinds:
            return None
        tail = "*" if extra is None else _component(extra)
        return f"urn:epc:{kinds[qualifier]}:{head}.{tail}"
    if key == "8006":
        itip = f"{head}.{value[14:16]}.{value[16:18]}"
        if qualifier is None:
            return f"urn:epc:idpat:itip:{itip}.*"
        return f"urn:epc:id:itip:{itip}.{_component(extra or '')}"
    if key == "414":
        return f"urn:epc:id:sgln:{head}.{_component(extra) if extra else '0'}"
    if key in ("8003", "253", "255"):
        scheme = {"8003": "grai", "253": "gdti", "255": "sgcn"}[key]
        serial = value[14:] if key == "8003" else value[13:]
        if not serial and key != "253":
            return f"urn:epc:idpat:{scheme}:{head}.*"
        return f"urn:epc:id:{scheme}:{head}.{_component(serial)}"
    scheme = {"00": "sscc", "417": "pgln", "8017": "gsrnp", "8018": "gsrn", "402": "gsin"}[key]
    return f"urn:epc:id:{scheme}:{head}"


def epc_urn(uri: str, prefixes: CompanyPrefixes) -> str | None:
    """The EPC URN of a GS1 Digital Link URI (any host), or None when `uri` is no GS1 key
    or none of `prefixes` starts it.

    Serials keep their characters, escaped as TDS escapes them. The result names the same
    key as `uri`: it is checked by converting it back.
    """
    length = company_prefix_length(uri, prefixes)
    return None if length is None else epc_urn_at(uri, length)


def company_prefix_length(uri: str, prefixes: CompanyPrefixes) -> int | None:
    """The length of the company prefix of a GS1 Digital Link URI, where one of `prefixes`
    starts its key; None for no GS1 key or no known prefix."""
    path = digital_link_key_path(uri)
    if path is None:
        return None
    key, _, rest = path.partition("/")
    return prefixes.length(_prefix_digits(key, rest.split("/", 1)[0]))


def company_prefix(urn: str) -> str | None:
    """The company prefix an EPC URN (`urn:epc:id:sgtin:4012345.011111.1`) spells out."""
    if not urn.startswith("urn:epc:"):
        return None
    body = urn.rsplit(":", 1)[-1]
    head = body.split(".", 1)[0]
    return head if head.isdigit() else None


def spelled_prefix_lengths(spelled: Sequence[tuple[str, str]]) -> dict[str, int]:
    """The length of the company prefix of each identifier (spelling, canonical id) whose
    spelling tells it: an EPC URN says where its prefix ends; a Digital Link does not, but
    the prefixes of the URNs beside it may start its key."""
    lengths: dict[str, int] = {}
    prefixes: set[str] = set()
    links: list[str] = []
    for spelling, canonical in spelled:
        if not spelling.startswith("urn:"):
            links.append(canonical)
        elif (prefix := company_prefix(spelling)) is not None:
            lengths[canonical] = len(prefix)
            prefixes.add(prefix)
    if links and prefixes:
        known = CompanyPrefixes(prefixes)
        for canonical in links:
            length = company_prefix_length(canonical, known)
            if length is not None:
                lengths.setdefault(canonical, length)
    return lengths


def company_prefix_at(uri: str, length: int) -> str | None:
    """The company prefix of a GS1 Digital Link URI whose prefix has `length` digits."""
    path = digital_link_key_path(uri)
    if path is None:
        return None
    key, _, rest = path.partition("/")
    digits = _prefix_digits(key, rest.split("/", 1)[0])
    return digits[:length] if len(digits) >= length else None


def epc_urn_at(uri: str, length: int) -> str | None:
    """The EPC URN of a GS1 Digital Link URI whose company prefix has `length` digits, or
    None when it has no URN so."""
    path = digital_link_key_path(uri)
    if path is None:
        return None
    urn = _urn(path, length)
    return urn if urn is not None and urn_key_path(urn) == path else None


def epc_urns(uri: str) -> tuple[str, ...]:
    """Every EPC URN naming the key a GS1 Digital Link URI (any host) names: one for each
    length of company prefix the key can hold, since the URI does not say which."""
    path = digital_link_key_path(uri)
    if path is None:
        return ()
    spellings = (_urn(path, length) for length in range(_SHORTEST, _LONGEST + 1))
    return tuple(urn for urn in spellings if urn is not None and urn_key_path(urn) == path)
