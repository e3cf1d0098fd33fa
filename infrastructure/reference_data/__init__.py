"""The standard code lists the reference collections serve, as rows of their fields.

ISO 3166-1 countries come from pycountry; the UN/ECE Recommendation 20 units and the GS1
packaging types, which no maintained Python package ships, from the CSV files beside
this module (SOURCES.md says where each comes from and how to bring it up to date).
"""

import csv
import io
from collections.abc import Callable, Mapping
from functools import cache
from importlib import resources

import pycountry

from domain.collections.schema import Collection
from domain.masterdata.references import REF_COUNTRY, REF_PACKAGING_TYPE_CODES, REF_UOM

#: A row of a reference list: field name -> value.
Row = Mapping[str, str | None]


def countries() -> tuple[Row, ...]:
    """ISO 3166-1: every country with its alpha-2 code, names, alpha-3 and numeric code."""
    return tuple(
        {
            "code": country.alpha_2,
            "name": country.name,
            # Only some countries have an official name besides their short one.
            "official_name": dict(country).get("official_name"),
            "alpha_3": country.alpha_3,
            "numeric": country.numeric,
        }
        for country in pycountry.countries
    )


def units() -> tuple[Row, ...]:
    """UN/ECE Recommendation 20, Annex III: every unit code in use, with its name."""
    return _csv("units.csv")


def packaging_types() -> tuple[Row, ...]:
    """GS1 PackageTypeCode: every packaging type code, with its name."""
    return _csv("packaging_types.csv")


#: What each reference collection holds.
REFERENCE_LISTS: Mapping[str, Callable[[], tuple[Row, ...]]] = {
    REF_COUNTRY.name: countries,
    REF_UOM.name: units,
    REF_PACKAGING_TYPE_CODES.name: packaging_types,
}


def reference_rows(collection: Collection) -> tuple[Row, ...]:
    """The rows of a reference collection."""
    return _rows(collection.name)


# Once a process: every service start (and every test's) reads the same lists.
@cache
def _rows(name: str) -> tuple[Row, ...]:
    return REFERENCE_LISTS[name]()


def _csv(name: str) -> tuple[Row, ...]:
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return tuple(csv.DictReader(io.StringIO(text)))
