"""EPC patterns for EPCIS MATCH_* query parameters, as globs over canonical Digital Link URIs.

A `Glob` is literal text interleaved with wildcards; it matches a canonical identifier as
a whole. What each kind of value becomes:

- an exact EPC (URN or Digital Link, or an idpat URN without `*`): a 1-tuple with its
  canonical form;
- `urn:epc:idpat:sgtin:CP.IR.*`: (`…/01/<GTIN>`, ANY): the GTIN, its lots and its serials;
- `urn:epc:idpat:sgtin:CP.*.*`: (`…/01/`, ONE_CHAR, CP, ANY): every GTIN of the company
  prefix, whose indicator digit comes first; `*.*.*`: (`…/01/`, ANY);
- the other TDS pattern schemes alike, down to their last fixed field: `sscc:CP.*` →
  (`…/00/`, ONE_CHAR, CP, ANY); `sgln:CP.LR.*` → (`…/414/<GLN>`, ANY) (the GLN and its
  extensions); `grai:CP.AT.*` → (`…/8003/<GRAI without serial>`, ANY); `cpi:CP.REF.*` →
  (`…/8010/<CPID>/8011/`, ANY); `upui:CP.IR.*` → (`…/01/<GTIN>/235/`, ANY); …;
- a Digital Link URI with `*`: the part before the first `*` is canonicalised as far as
  it goes (`https://example.com/01/09521234543213/21/*` → (`…/01/09521234543213/21/`, ANY)),
  the rest is literal;
- anything else: its text with each `*` as ANY.
"""

from enum import Enum

from domain.gs1.digital_link import (
    GS1_RESOLVER,
    SHORT_NAMES,
    digital_link_key_path,
    encode_value,
)
from domain.gs1.epc import canonical_epc, gs1_key_path
from domain.gs1.epc_urn import class_key_path, gtin, keyed


class Wildcard(Enum):
    """A wildcard in a Glob: exactly one character, or any run of characters (none included)."""

    ONE_CHAR = "?"
    ANY = "*"


Glob = tuple[str | Wildcard, ...]

ANY = Wildcard.ANY
ONE_CHAR = Wildcard.ONE_CHAR

# Pattern scheme → (fields in its URN, AI of its Digital Link key).
_SCHEMES = {
    "sgtin": (3, "01"),
    "sscc": (2, "00"),
    "sgln": (3, "414"),
    "grai": (3, "8003"),
    "giai": (2, "8004"),
    "gsrn": (2, "8018"),
    "gsrnp": (2, "8017"),
    "gdti": (3, "253"),
    "cpi": (3, "8010"),
    "sgcn": (3, "255"),
    "ginc": (2, "401"),
    "gsin": (2, "402"),
    "itip": (5, "8006"),
    "upui": (3, "01"),
    "pgln": (2, "417"),
}
# Keys whose first digit (indicator or extension) comes before the company prefix.
_LEADING_DIGIT = frozenset({"sgtin", "upui", "itip", "sscc"})
_KEY_AIS = frozenset(ai for _, ai in _SCHEMES.values())
_MATCHABLE_QUALIFIERS = frozenset({"10", "21", "235", "254", "8011"})


def epc_pattern(value: str) -> Glob:
    """The glob over canonical identifiers that an EPCIS MATCH_* value stands for."""
    if "*" not in value:
        if value.startswith("urn:epc:idpat:"):
            exact = canonical_epc("urn:epc:id:" + value[14:])
            if exact.startswith(GS1_RESOLVER):
                return (exact,)
        return (canonical_epc(value),)
    glob: Glob | None = None
    if value.startswith("urn:epc:idpat:"):
        glob = _idpat(value[14:])
    elif value.startswith("http"):
        glob = _digital_link(value)
    return _tidy(glob if glob is not None else _literal(value))


def _idpat(body: str) -> Glob | None:
    scheme, sep, rest = body.partition(":")
    if not sep or scheme not in _SCHEMES:
        return None
    count, ai = _SCHEMES[scheme]
    fields = rest.split(".", count - 1)
    if len(fields) != count:
        return None
    fixed = 0
    while fixed < count and fields[fixed] != "*":
        fixed += 1
    if any(field != "*" for field in fields[fixed:]) or any("*" in f for f in fields[:fixed]):
        return None
    if fixed == 0:
        if scheme == "upui":
            return (GS1_RESOLVER + "01/", ANY, "/235/", ANY)
        return (GS1_RESOLVER + ai + "/", ANY)
    company_prefix = fields[0]
    if not (_is_digits(company_prefix) and 6 <= len(company_prefix) <= 12):
        return None
    if fixed == 1:
        return _company_glob(scheme, ai, company_prefix)
    return _class_glob(scheme, fields[:fixed])


def _company_glob(scheme: str, ai: str, company_prefix: str) -> Glob:
    head = GS1_RESOLVER + ai + "/"
    if scheme == "upui":
        return (head, ONE_CHAR, company_prefix, ANY, "/235/", ANY)
    if scheme in _LEADING_DIGIT:
        return (head, ONE_CHAR, company_prefix, ANY)
    if scheme == "grai":
        return (head + "0" + company_prefix, ANY)
    return (head + company_prefix, ANY)


def _class_glob(scheme: str, fields: list[str]) -> Glob | None:
    path: str | None
    if scheme == "sgln":
        location = fields[1]
        gln = keyed(fields[0], location, 12) if _is_digits(location) or not location else None
        path = None if gln is None else "414/" + gln
    elif scheme == "itip" and len(fields) in (2, 3):
        key = gtin(fields[0], fields[1]) if _is_digits(fields[1]) else None
        extra = fields[2] if len(fields) == 3 else ""
        ok = key is not None and (not extra or (len(extra) == 2 and _is_digits(extra)))
        path = f"8006/{key}{extra}" if ok else None
    else:
        path = class_key_path(scheme, fields)
    if path is None:
        return None
    suffix = {"upui": "/235/", "cpi": "/8011/"}.get(scheme, "")
    return (GS1_RESOLVER + path + suffix, ANY)


def _digital_link(value: str) -> Glob | None:
    star = value.index("*")
    head, tail = value[:star], value[star:]
    prefix = _canonical_head(head)
    return None if prefix is None else (prefix, *_literal(tail))


def _canonical_head(head: str) -> str | None:
    last = encode_value(head.rsplit("/", 1)[-1])
    path = gs1_key_path(head) if last else None
    if path is not None and path.endswith("/" + last):
        return GS1_RESOLVER + path
    scheme_end = head.find("://")
    slash = head.find("/", scheme_end + 3) if scheme_end >= 0 else -1
    if slash < 0:
        return None
    segments = head[slash + 1 :].split("/")
    partial = encode_value(segments.pop())
    for index, segment in enumerate(segments):
        key = SHORT_NAMES.get(segment, segment)
        if key in _KEY_AIS:
            return _partial_key(key, segments[index + 1 :], partial)
    return None


def _partial_key(key: str, complete: list[str], partial: str) -> str | None:
    if not complete:
        # The key value itself is cut short: only the host can be canonicalised.
        return f"{GS1_RESOLVER}{key}/{partial}"
    if len(complete) % 2 == 1:
        # Whole key and qualifier pairs, then the start of one more segment.
        whole = digital_link_key_path(GS1_RESOLVER + "/".join([key, *complete]))
        return None if whole is None else f"{GS1_RESOLVER}{whole}/{partial}"
    base = digital_link_key_path(f"{GS1_RESOLVER}{key}/{complete[0]}")
    qualifier = SHORT_NAMES.get(complete[-1], complete[-1])
    if base is None or qualifier not in _MATCHABLE_QUALIFIERS:
        return None
    # Coarser qualifiers before the one being matched (a lot before a serial) are not
    # part of the canonical form, so the glob leaves them out too.
    return f"{GS1_RESOLVER}{base}/{qualifier}/{partial}"


def _is_digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _literal(value: str) -> Glob:
    parts: list[str | Wildcard] = []
    for index, text in enumerate(value.split("*")):
        if index:
            parts.append(ANY)
        parts.append(text)
    return tuple(parts)


def _tidy(glob: Glob) -> Glob:
    tidy: list[str | Wildcard] = []
    for part in glob:
        if part == "":
            continue
        if tidy and isinstance(part, str) and isinstance(tidy[-1], str):
            tidy[-1] = tidy[-1] + part
        elif not (part is ANY and tidy and tidy[-1] is ANY):
            tidy.append(part)
    return tuple(tidy)
