"""The log's entries compressed with a preset dictionary: deflate (RFC 1951) primed with
the strings every EPCIS entry repeats, so that even one entry of a few hundred bytes
compresses to about a third (a dictionary-less deflate of one entry saves half as much).

An entry's stored bytes are a tag byte, then the compressed JSON:

- `0x01`: raw deflate (zlib `wbits=-15`) with `DICTIONARY_1` as its preset dictionary;
- `{`: the JSON itself, as entries were written before compression (still read).

A dictionary is part of the stored format: one is never edited (a test pins its digest),
a better one is added under the next tag. docs/operations.md ("Reading the log
directly") shows how to read entries outside the service.
"""

import zlib

from eventsourcing.persistence import Compressor

__all__ = ["DICTIONARY_1", "LogCompressor", "decompressed"]

_DICTIONARY_1_PARTS = (
    # Rarer first: deflate reaches the end of the dictionary with the shortest distances.
    '"sensorElementList":[{"sensorMetadata":{"time":"","deviceID":"urn:epc:id:giai:',
    '","deviceMetadata":"https://id.gs1.org/","rawData":"https://example.org/","dataProcessingMethod":"',
    '"sensorReport":[{"type":"gs1:MT-Temperature","value":,"uom":"CEL"},{"type":"gs1:MT-Humidity","uom":"A93"',
    '"minValue":,"maxValue":,"meanValue":,"sDev":,"percRank":,"percValue":,"booleanValue":true,"stringValue":"',
    '"hexBinaryValue":"","uriValue":"","component":"","chemicalSubstance":"","microorganism":"","coordinateReferenceSystem":"',
    '"certificationInfo":"https://accreditation-council.example.org/certificate/',
    '"errorDeclaration":{"declarationTime":"","reason":"incorrect_data","correctiveEventIDs":["ni:///sha-256;',
    '"persistentDisposition":{"set":["completeness_verified"],"unset":["completeness_inferred"]}',
    '"ilmd":{"cbvmda:lotNumber":"","cbvmda:itemExpirationDate":"","cbvmda:bestBeforeDate":"',
    '"sourceList":[{"type":"owning_party","source":"urn:epc:id:pgln:"},{"type":"location","source":"urn:epc:id:sgln:',
    '"destinationList":[{"type":"owning_party","destination":"urn:epc:id:pgln:"},{"type":"possessing_party","destination":"',
    '"bizTransactionList":[{"type":"po","bizTransaction":"urn:epcglobal:cbv:bt:"},{"type":"desadv","bizTransaction":"urn:epc:id:gdti:',
    '"inputEPCList":["","outputEPCList":["","inputQuantityList":[{"epcClass":"',
    '"outputQuantityList":[{"epcClass":"urn:epc:idpat:sgtin:","quantity":,"uom":"KGM"}]',
    '"transformationID":"urn:epc:id:gdti:',
    '"quantityList":[{"epcClass":"urn:epc:class:lgtin:","quantity":',
    '"childQuantityList":[{"epcClass":"https://id.gs1.org/01/',
    '"type":"TransformationEvent","type":"AssociationEvent","type":"TransactionEvent",',
    '"type":"AggregationEvent","eventTime":"","eventTimeZoneOffset":"-05:00","parentID":"urn:epc:id:sscc:',
    '","childEPCs":["urn:epc:id:sgtin:',
    '"action":"DELETE","action":"ADD",',
    "https://ref.gs1.org/cbv/BizStep-",
    "https://ref.gs1.org/cbv/Disp-",
    "urn:epcglobal:cbv:bizstep:",
    "urn:epcglobal:cbv:disp:",
    '"bizStep":"receiving","bizStep":"commissioning","bizStep":"packing","bizStep":"inspecting","bizStep":"storing",'
    '"bizStep":"accepting","bizStep":"loading","bizStep":"departing","bizStep":"arriving","bizStep":"retail_selling",',
    '"disposition":"active","disposition":"in_progress","disposition":"in_transit","disposition":"sellable_not_accessible",'
    '"disposition":"sellable_accessible","disposition":"needs_replacement","disposition":"damaged",',
    "https://id.gs1.org/414/",
    "https://id.gs1.org/00/",
    "https://id.gs1.org/01/",
    '"bizLocation":{"id":"urn:epc:id:sgln:',
    '"},"readPoint":{"id":"urn:epc:id:sgln:',
    '"record_time":"2026-01-01T00:00:00.000Z","capture_id":"',
    '"namespaces":{},',
    '{"type":"ObjectEvent","eventTime":"","eventTimeZoneOffset":"+00:00","epcList":["urn:epc:id:sgtin:',
    '"],"action":"OBSERVE","bizStep":"shipping","disposition":"in_transit","readPoint":{"id":"urn:epc:id:sgln:',
    '{"timestamp":{"_type_":"datetime_iso","_data_":"2026-01-01T00:00:00.000000+00:00"},'
    '"originator_topic":"domain.epcis.captured_event:CapturedEvent","event_id":"ni:///sha-256;',
    '?ver=CBV2.0","epcis_event":{"type":"ObjectEvent","eventTime":"2026-01-01T00:00:00.000Z","eventTimeZoneOffset":"+00:00",',
)
#: The first preset dictionary; its tag is `0x01`. Never edit: entries refer into it.
DICTIONARY_1 = "".join(_DICTIONARY_1_PARTS).encode()
_TAG_1 = 0x01
_UNCOMPRESSED = ord("{")
#: Level 6 saves as much as 9 here at ~7 µs an entry; an 8 KiB window holds the dictionary
#: and any entry's repeats that matter (EPCs of one event).
_PRIMED = zlib.compressobj(6, zlib.DEFLATED, -13, 8, zlib.Z_DEFAULT_STRATEGY, DICTIONARY_1)


def compressed(data: bytes) -> bytes:
    """`data` as the log stores it (tag `0x01`)."""
    # Copying a primed compressor is ~0.5 µs; priming one with the dictionary is ~30.
    compressor = _PRIMED.copy()
    return bytes((_TAG_1,)) + compressor.compress(data) + compressor.flush()


def decompressed(stored: bytes) -> bytes:
    """The JSON of a log entry's stored bytes, whichever format they were written in."""
    tag = stored[0] if stored else None
    if tag == _TAG_1:
        decompressor = zlib.decompressobj(-15, DICTIONARY_1)
        data = decompressor.decompress(memoryview(stored)[1:]) + decompressor.flush()
        if not decompressor.eof:
            raise ValueError("a log entry's compressed bytes end early")
        return data
    if tag == _UNCOMPRESSED:
        return bytes(stored)
    raise ValueError(f"a log entry's stored bytes begin with an unknown tag: {tag!r}")


class LogCompressor(Compressor):
    """eventsourcing's compressor for the log (its mapper compresses every entry)."""

    def compress(self, data: bytes) -> bytes:
        """The stored bytes of an entry's JSON."""
        return compressed(data)

    def decompress(self, data: bytes) -> bytes:
        """The JSON of an entry's stored bytes."""
        return decompressed(data)
