"""CURIEs in query parameters: the values that name IRIs, written `prefix:local`, are
expanded before the query is parsed, as captured events' values are before they are indexed.

Where the prefix is bound comes from outside: the query's own bindings (the
`GS1-Extensions` header, a named query's `@context`), else those the captured documents
agree on. A prefix the captured documents bind to several namespaces is ambiguous.
"""

from collections.abc import Collection, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field

from domain.epcis.curies import curie_prefix, expand_curie
from domain.epcis.event_query import CLASS_ROLES, EPC_ROLES, QueryParameterError, split_values
from domain.epcis.field_parameters import field_parameter

#: Parameters whose values are IRIs.
IRI_PARAMETERS = frozenset(
    {
        "eventType",
        "orderBy",
        "EQ_bizStep",
        "EQ_disposition",
        "EQ_readPoint",
        "EQ_bizLocation",
        "WD_bizLocation",
        "EQ_transformationID",
        "EQ_persistentDisposition_set",
        "EQ_persistentDisposition_unset",
        "EQ_errorReason",
        *EPC_ROLES,
        *CLASS_ROLES,
    }
)
#: Parameters whose values are IRIs and whose name ends in a type that is one too.
TYPED_PARAMETERS = ("EQ_bizTransaction_", "EQ_source_", "EQ_destination_")


@dataclass(frozen=True)
class PrefixBindings:
    """What captured documents bound some prefixes to: the prefixes bound to one
    namespace, with it, and those bound to several (ambiguous: they mean nothing)."""

    namespaces: dict[str, str] = field(default_factory=dict)
    ambiguous: frozenset[str] = frozenset()

    @classmethod
    def of(cls, found: Mapping[str, Set[str]]) -> "PrefixBindings":
        """The bindings of what a look-up `found`: each prefix and its namespaces."""
        return cls(
            {prefix: next(iter(ns)) for prefix, ns in found.items() if len(ns) == 1},
            frozenset(prefix for prefix, ns in found.items() if len(ns) > 1),
        )


def query_prefixes(params: Mapping[str, Sequence[str]]) -> set[str]:
    """The prefixes of the CURIEs among the IRIs the parameters name."""
    return {prefix for _, text in named_iris(params) if (prefix := curie_prefix(text)) is not None}


def expand_query(
    params: Mapping[str, Sequence[str]],
    namespaces: Mapping[str, str],
    ambiguous: Collection[str] = (),
) -> dict[str, list[str]]:
    """The parameters with the CURIEs of their IRIs expanded by `namespaces`.

    Raises QueryParameterError for a CURIE whose prefix is one of `ambiguous`.
    """
    for name, text in named_iris(params):
        if curie_prefix(text) in ambiguous:
            raise QueryParameterError(
                f"{name}: the prefix of {text!r} is bound to more than one namespace by the "
                "captured documents; write the full IRI, or bind the prefix in the "
                "GS1-Extensions header"
            )
    expanded: dict[str, list[str]] = {}
    for name, values in params.items():
        key = name
        field = field_parameter(name)
        if field is not None:
            op, scope, written = field
            key = f"{op}_{scope}{expand_curie(written, namespaces)}"
            if key != name and key in params:
                raise QueryParameterError(f"{name} names the same field as {key}")
            expanded[key] = list(values)
            continue
        typed = name.startswith(TYPED_PARAMETERS)
        if typed:
            kind, _, type_name = name.partition("_")[2].partition("_")
            key = f"EQ_{kind}_{expand_curie(type_name, namespaces)}" if type_name else name
            if key != name and key in params:
                raise QueryParameterError(f"{name} names the same type as {key}")
        if typed or name in IRI_PARAMETERS:
            expanded[key] = [expand_curie(v, namespaces) for v in split_values(values)]
        else:
            expanded[key] = list(values)
    return expanded


def extension_prefixes(header: str) -> dict[str, str]:
    """The bindings of a `GS1-Extensions` header: `prefix=namespace` pairs, comma-separated.

    Raises QueryParameterError for a pair that is not of that form.
    """
    bindings: dict[str, str] = {}
    for part in header.split(","):
        prefix, sep, namespace = part.strip().partition("=")
        if not part.strip():
            continue
        if not sep or not prefix.strip() or not namespace.strip():
            raise QueryParameterError(
                f"GS1-Extensions: {part.strip()!r} is not of the form prefix=namespace"
            )
        bindings[prefix.strip()] = namespace.strip()
    return bindings


def named_iris(params: Mapping[str, Sequence[str]]) -> Iterator[tuple[str, str]]:
    """Each parameter that names IRIs, with each IRI it names (a type in its name too)."""
    for name, values in params.items():
        field = field_parameter(name)
        if field is not None:
            yield name, field[2]
            continue
        typed = name.startswith(TYPED_PARAMETERS)
        if typed:
            yield name, name.partition("_")[2].partition("_")[2]
        if typed or name in IRI_PARAMETERS:
            for value in split_values(values):
                yield name, value
