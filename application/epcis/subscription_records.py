"""A subscription's record as the EPCIS API shows it, and the delivery formats it keeps."""

from typing import Any

from domain.epcis.cbv_format import CbvXmlFormat
from domain.epcis.epc_format import EpcFormat

JSON = "application/json"
XML = "application/xml"


def delivery_epc_format(stored: Any) -> EpcFormat:
    """The format a subscription delivers in: the one it was made with; as captured for
    one made before formats were kept, so an upgrade changes nothing it receives."""
    if stored is None:
        return EpcFormat.NEVER_TRANSLATES
    return EpcFormat(stored)


def delivery_cbv_xml_format(stored: Any) -> CbvXmlFormat:
    """The `GS1-CBV-XML-Format` of an XML subscription; the binding's default when none
    was kept."""
    if stored is None:
        return CbvXmlFormat.NO_PREFERENCE
    return CbvXmlFormat(stored)


def subscription_body(record: dict[str, Any]) -> dict[str, Any]:
    """A subscription as the EPCIS API shows it (never its token)."""
    body: dict[str, Any] = {
        "subscriptionID": record["id"],
        "queryName": record.get("query_name"),
        "dest": record.get("dest"),
        "reportIfEmpty": bool(record.get("report_if_empty")),
        "createdAt": record.get("date_created"),
        "lastNotifiedAt": record.get("last_notified_at"),
        "minRecordTime": record.get("min_record_time"),
        "active": bool(record.get("active")),
        "status": record.get("status"),
        "lastError": record.get("last_error"),
    }
    if record.get("stream"):
        body["stream"] = True
    else:
        body["schedule"] = record.get("schedule")
    if record.get("initial_record_time"):
        body["initialRecordTime"] = record["initial_record_time"]
    # How deliveries are written, as the request that made it asked (before these were
    # kept: JSON, EPCs as captured).
    body["mediaType"] = record.get("media_type") or JSON
    body["epcFormat"] = delivery_epc_format(record.get("epc_format")).value
    if body["mediaType"] != JSON:
        body["cbvXmlFormat"] = delivery_cbv_xml_format(record.get("cbv_xml_format")).value
    return body
