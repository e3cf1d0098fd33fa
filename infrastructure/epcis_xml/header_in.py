"""An XML document's `EPCISHeader`: its master data and SBDH, as the JSON binding has them.

Master data (`EPCISMasterData`, inside 1.2's `<extension>` or directly in 2.0) becomes
`epcisHeader.epcisMasterData.vocabularyList`, as a JSON document sends it. Of the SBDH the
JSON binding keeps only the sender, the receiver and the instance identifier, as top-level
`sender`, `receiver` and `instanceIdentifier` (GS1's "pseudo SBDH" examples).
"""

from typing import Any

from lxml import etree

SBDH = "http://www.unece.org/cefact/namespaces/StandardBusinessDocumentHeader"


def read_header(header: Any, document: dict[str, Any]) -> None:
    """Put what the header holds into the JSON-LD `document`."""
    for element in header.iter():
        if not isinstance(element.tag, str):
            continue
        qname = etree.QName(element)
        if qname.namespace == SBDH and qname.localname == "StandardBusinessDocumentHeader":
            _sbdh(element, document)
        elif qname.namespace is None and qname.localname in ("EPCISMasterData", "epcisMasterData"):
            document.setdefault("epcisHeader", {})["epcisMasterData"] = _master_data(element)


def _sbdh(sbdh: Any, document: dict[str, Any]) -> None:
    found = {
        "sender": sbdh.find(f"{{{SBDH}}}Sender/{{{SBDH}}}Identifier"),
        "receiver": sbdh.find(f"{{{SBDH}}}Receiver/{{{SBDH}}}Identifier"),
        "instanceIdentifier": sbdh.find(
            f"{{{SBDH}}}DocumentIdentification/{{{SBDH}}}InstanceIdentifier"
        ),
    }
    for key, element in found.items():
        if element is not None and (element.text or "").strip():
            document[key] = element.text.strip()


def _master_data(element: Any) -> dict[str, Any]:
    vocabularies: list[dict[str, Any]] = []
    for vocabulary in element.iter("Vocabulary"):
        entry: dict[str, Any] = {"type": (vocabulary.get("type") or "").strip()}
        elements = [_vocabulary_element(item) for item in vocabulary.iter("VocabularyElement")]
        if elements:
            entry["vocabularyElementList"] = elements
        vocabularies.append(entry)
    return {"vocabularyList": vocabularies}


def _vocabulary_element(element: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"id": (element.get("id") or "").strip()}
    attributes = []
    for attribute in element.findall("attribute"):
        value: Any = (attribute.text or "").strip()
        children = [child for child in attribute if isinstance(child.tag, str)]
        if children:
            # A structured attribute (an address, say): kept as its elements' text.
            value = {etree.QName(child).localname: (child.text or "").strip() for child in children}
        attributes.append({"id": (attribute.get("id") or "").strip(), "attribute": value})
    if attributes:
        entry["attributes"] = attributes
    children_list = element.find("children")
    if children_list is not None:
        entry["children"] = [(child.text or "").strip() for child in children_list.findall("id")]
    return entry
