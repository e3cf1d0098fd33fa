"""EPCIS 2.0 response formats: exception problem details (JSON or XML), the
invalid-document text, common headers."""

import re
from collections.abc import Iterable, Mapping
from typing import Any

import orjson
from aiohttp import web
from lxml import etree

from domain.epcis.violations import Violation

EPCIS_VERSION_HEADERS = {"GS1-EPCIS-Version": "2.0.0", "GS1-CBV-Version": "2.0.0"}

_TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    406: "Not acceptable",
    409: "Conflict",
    413: "Payload too large",
    415: "Unsupported media type",
    500: "Internal error",
}


#: The namespace of RFC 7807's XML problem details (its Appendix A).
PROBLEM_XML_NS = "urn:ietf:rfc:7807"
#: The members of a problem, in the order RFC 7807 §3.1 lists them.
_PROBLEM_MEMBERS = ("type", "title", "status", "detail", "instance")
#: Characters XML 1.0 cannot hold (a detail may quote what a client sent).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class ProblemResponse(web.Response):
    """An EPCIS exception as RFC 7807 problem JSON; keeps its members (`problem`) so the
    errors middleware can give it in XML to a caller that prefers XML."""

    def __init__(self, problem: dict[str, Any], headers: dict[str, str]) -> None:
        super().__init__(
            status=problem["status"],
            body=orjson.dumps(problem),
            content_type="application/problem+json",
            headers=headers,
        )
        self.problem = problem

    def with_instance(self, instance: str, xml: bool) -> "ProblemResponse":
        """The same problem naming the request it answers (`instance`), in problem JSON
        or, when `xml`, in problem XML."""
        self.problem = {**self.problem, "instance": instance}
        if xml:
            self.body = problem_xml(self.problem)
            self.content_type = "application/problem+xml"
        else:
            self.body = orjson.dumps(self.problem)
        return self


def problem_xml(problem: Mapping[str, Any]) -> bytes:
    """RFC 7807 Appendix A: `<problem xmlns="urn:ietf:rfc:7807">` with one element a member."""
    root = etree.Element(f"{{{PROBLEM_XML_NS}}}problem", nsmap={None: PROBLEM_XML_NS})
    for member in _PROBLEM_MEMBERS:
        if member in problem:
            text = _NOT_XML.sub("\ufffd", str(problem[member]))
            etree.SubElement(root, f"{{{PROBLEM_XML_NS}}}{member}").text = text
    return bytes(etree.tostring(root, xml_declaration=True, encoding="UTF-8"))


def epcis_exception(
    status: int,
    exception: str,
    detail: str,
    headers: dict[str, str] | None = None,
) -> ProblemResponse:
    """An EPCIS exception (RFC 7807 problem details) with type `epcisException:<exception>`."""
    body = {
        "type": f"epcisException:{exception}",
        "title": _TITLES.get(status, "Error"),
        "status": status,
        "detail": detail,
    }
    return ProblemResponse(body, {**EPCIS_VERSION_HEADERS, **(headers or {})})


def invalid_document(violations: Iterable[Violation]) -> web.Response:
    """400 `text/plain`: `EPCIS Document is invalid;` then one `location: reason` per line."""
    entries = ";\n".join(str(v) for v in violations)
    return web.Response(
        status=400,
        text="EPCIS Document is invalid;\n" + entries,
        content_type="text/plain",
        headers=EPCIS_VERSION_HEADERS,
    )


def json_response(
    body: object, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    """A JSON response with the EPCIS version headers."""
    return web.Response(
        status=status,
        body=orjson.dumps(body),
        content_type="application/json",
        headers={**EPCIS_VERSION_HEADERS, **(headers or {})},
    )
