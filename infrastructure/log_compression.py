"""The log's entries compressed with a dictionary: zstd (RFC 8878) primed with the strings
entries repeat, so that even one entry of a few hundred bytes compresses well (a
dictionary-less compressor saves about half as much).

An entry's stored bytes are a tag byte, then the rest:

- `0x01`: a zstd frame compressed with `DICTIONARY_1` as a raw-content dictionary;
- `0x02`: the 8-byte ID of a dictionary trained on the log's own entries (the first 8
  bytes of its SHA-256), then a zstd frame compressed with it. Trained dictionaries are
  log entries themselves (`infrastructure/log_dictionaries.py`): a process learns them
  from its database (`add_lookup`) and keeps them by ID, which is safe across databases;
- `{`: the JSON itself, as entries were written before compression (still read).

A dictionary is part of the stored format: one is never edited (a test pins the first's
digest; a trained one is named by its digest), a better one comes under a new tag or ID.
docs/operations.md ("Reading the log directly") shows how to read entries outside the
service.
"""

import hashlib
import threading
from collections.abc import Callable, Sequence

import zstandard
from eventsourcing.persistence import Compressor

__all__ = [
    "DICTIONARY_1",
    "LogCompressor",
    "TrainedDictionary",
    "UnknownDictionary",
    "add_lookup",
    "compressed",
    "decompressed",
    "learn",
    "remove_lookup",
]

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
_TAG_TRAINED = 0x02
_UNCOMPRESSED = ord("{")
#: Bytes of a trained dictionary's ID, after the tag.
ID_SIZE = 8
#: Level 1: ~4 µs an entry, within 2 % of level 3's size on captured events.
_LEVEL = 1
_DICTIONARY = zstandard.ZstdCompressionDict(DICTIONARY_1, dict_type=zstandard.DICT_TYPE_RAWCONTENT)
_DICTIONARY.precompute_compress(level=_LEVEL)


class UnknownDictionary(ValueError):
    """An entry is compressed with a trained dictionary this process has not learned."""

    def __init__(self, key: bytes) -> None:
        super().__init__(
            f"a log entry is compressed with the trained dictionary {key.hex()}, "
            "which is not among its database's log entries"
        )
        #: The dictionary's ID.
        self.id = key


class TrainedDictionary:
    """A zstd dictionary trained on a log's entries, named by its digest."""

    def __init__(self, content: bytes) -> None:
        """Refuses (ValueError) bytes that are not a zstd dictionary with entropy tables."""
        if not content.startswith(b"\x37\xa4\x30\xec"):
            raise ValueError("not a trained zstd dictionary (its magic number is missing)")
        self.content = content
        self.id = dictionary_id(content)
        self.prefix = bytes((_TAG_TRAINED,)) + self.id
        self.data = zstandard.ZstdCompressionDict(content, dict_type=zstandard.DICT_TYPE_FULLDICT)
        self.data.precompute_compress(level=_LEVEL)


def dictionary_id(content: bytes) -> bytes:
    """The ID entries compressed with the dictionary `content` carry."""
    return hashlib.sha256(content).digest()[:ID_SIZE]


class _Contexts(threading.local):
    """Compressors and decompressors per thread: zstandard's are not thread-safe."""

    def __init__(self) -> None:
        self.compressor = zstandard.ZstdCompressor(
            level=_LEVEL, dict_data=_DICTIONARY, write_checksum=False, write_dict_id=False
        )
        self.decompressor = zstandard.ZstdDecompressor(dict_data=_DICTIONARY)
        self.trained: dict[bytes, tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]] = {}

    def of(
        self, dictionary: TrainedDictionary
    ) -> tuple[zstandard.ZstdCompressor, zstandard.ZstdDecompressor]:
        pair = self.trained.get(dictionary.id)
        if pair is None:
            compressor = zstandard.ZstdCompressor(
                level=_LEVEL, dict_data=dictionary.data, write_checksum=False, write_dict_id=False
            )
            pair = self.trained[dictionary.id] = (
                compressor,
                zstandard.ZstdDecompressor(dict_data=dictionary.data),
            )
        return pair


_contexts = _Contexts()
#: Trained dictionaries this process has learned, by ID (content-addressed, so one
#: process may serve several databases).
_known: dict[bytes, TrainedDictionary] = {}
#: Functions that learn the trained dictionaries of a database (its event store's).
_lookups: list[Callable[[], object]] = []
_learning = threading.Lock()


def learn(content: bytes) -> TrainedDictionary:
    """Keep a trained dictionary so that entries naming it can be read; the dictionary."""
    key = dictionary_id(content)
    with _learning:
        known = _known.get(key)
        if known is None:
            known = _known[key] = TrainedDictionary(content)
        return known


def add_lookup(lookup: Callable[[], object]) -> None:
    """Call `lookup` (which learns a database's dictionaries) when an entry names a
    dictionary not learned yet."""
    with _learning:
        _lookups.append(lookup)


def remove_lookup(lookup: Callable[[], object]) -> None:
    """Stop calling `lookup` (its database is closed)."""
    with _learning:
        if lookup in _lookups:
            _lookups.remove(lookup)


def _trained(key: bytes) -> TrainedDictionary:
    known = _known.get(key)
    if known is None:
        with _learning:
            lookups = list(_lookups)
        for lookup in lookups:
            lookup()
            if (known := _known.get(key)) is not None:
                return known
        raise UnknownDictionary(key)
    return known


def compressed(data: bytes, dictionary: TrainedDictionary | None = None) -> bytes:
    """`data` as the log stores it: with `dictionary` (tag `0x02`), else `DICTIONARY_1`."""
    if dictionary is None:
        return bytes((_TAG_1,)) + _contexts.compressor.compress(data)
    return dictionary.prefix + _contexts.of(dictionary)[0].compress(data)


def compressed_many(
    entries: Sequence[bytes], dictionary: TrainedDictionary | None = None
) -> list[bytes]:
    """Each of `entries` as `compressed` gives it, in one call into zstd.

    zstd lets go of the interpreter lock while it works: compressing a capture's entries
    one call each, its thread then waited for the lock again after every entry while
    another thread ran Python (~8 µs an entry where the work is ~2), all of it inside
    the log's write turn. The frames are the same bytes.
    """
    if dictionary is None:
        prefix, compressor = bytes((_TAG_1,)), _contexts.compressor
    else:
        prefix, compressor = dictionary.prefix, _contexts.of(dictionary)[0]
    if len(entries) < 2 or not hasattr(compressor, "multi_compress_to_buffer"):
        # One entry gains nothing; the cffi backend (PyPy) has no batch call.
        return [compressed(entry, dictionary) for entry in entries]
    frames = compressor.multi_compress_to_buffer(list(entries), threads=0)
    return [prefix + frames[index].tobytes() for index in range(len(frames))]


def decompressed(stored: bytes) -> bytes:
    """The JSON of a log entry's stored bytes, whichever format they were written in."""
    tag = stored[0] if stored else None
    try:
        if tag == _TAG_1:
            return bytes(_contexts.decompressor.decompress(memoryview(stored)[1:]))
        if tag == _TAG_TRAINED:
            key = bytes(stored[1 : 1 + ID_SIZE])
            if len(key) < ID_SIZE:
                raise ValueError("a log entry's stored bytes end inside a dictionary's ID")
            decompressor = _contexts.of(_trained(key))[1]
            return bytes(decompressor.decompress(memoryview(stored)[1 + ID_SIZE :]))
    except zstandard.ZstdError as error:
        raise ValueError(f"a log entry's compressed bytes do not decompress: {error}") from None
    if tag == _UNCOMPRESSED:
        return bytes(stored)
    raise ValueError(f"a log entry's stored bytes begin with an unknown tag: {tag!r}")


class LogCompressor(Compressor):
    """eventsourcing's compressor for the log (its mapper compresses every entry); with a
    `dictionary` set, entries are compressed with it."""

    def __init__(self) -> None:
        self.dictionary: TrainedDictionary | None = None

    def compress(self, data: bytes) -> bytes:
        """The stored bytes of an entry's JSON."""
        return compressed(data, self.dictionary)

    def compress_many(self, entries: Sequence[bytes]) -> list[bytes]:
        """The stored bytes of each of `entries`, in one call (`compressed_many`)."""
        return compressed_many(entries, self.dictionary)

    def decompress(self, data: bytes) -> bytes:
        """The JSON of an entry's stored bytes."""
        return decompressed(data)
