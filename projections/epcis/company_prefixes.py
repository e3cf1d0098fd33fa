"""The GS1 company prefixes the organisations' master data names, for turning Digital
Link URIs into EPC URNs."""

from domain.gs1.link_to_urn import CompanyPrefixes
from infrastructure.database import Database


class CompanyPrefixReader:
    """Reads `organisation_company_prefix` of every organisation."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def prefixes(self) -> CompanyPrefixes:
        """Every company prefix an organisation record holds."""
        # A company prefix is public (GEPIR lists it), so every account's organisations
        # may tell its length: it only decides how an EPC is spelled.
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                "SELECT DISTINCT organisation_company_prefix FROM organisation"
                " WHERE organisation_company_prefix IS NOT NULL"
            )
        return CompanyPrefixes(str(row[0]).strip() for row in rows)
