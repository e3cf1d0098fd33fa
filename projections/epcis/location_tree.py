"""The location hierarchy (`parent_location`) as events name places, for WD_bizLocation."""

import re
from collections.abc import Sequence

from domain.gs1.digital_link import GS1_RESOLVER
from domain.masterdata.locations import location_place
from infrastructure.database import Database, in_list

_GLN = re.compile(r"/414/([0-9]{13})(?:/|$)")


class LocationTree:
    """Finds the places that lie within others by the locations' parent links."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def within(self, places: Sequence[str]) -> set[str]:
        """The canonical places of every location below the locations these places name
        (at any depth); places that name no location have nothing below them."""
        wanted = set(places)
        ids = wanted | {p[len(GS1_RESOLVER) - 1 :] for p in wanted if p.startswith(GS1_RESOLVER)}
        glns = {m.group(1) for p in wanted if (m := _GLN.search(p))}
        params: list[str] = []
        where = f"{in_list('id', list(ids), params)} OR {in_list('gln', list(glns), params)}"
        with self._db.transaction(write=False) as conn:
            candidates = conn.fetchall(
                f"SELECT id, gln, gln_extension FROM location WHERE {where}", params
            )
            roots = [
                row[0]
                for row in candidates
                if row[0] in ids or location_place(row[0], row[1], row[2]) in wanted
            ]
            if not roots:
                return set()
            params = []
            rows = conn.fetchall(
                "WITH RECURSIVE tree(id) AS ("
                f" SELECT id FROM location WHERE {in_list('parent_location', roots, params)}"
                " UNION SELECT l.id FROM location l JOIN tree t ON l.parent_location = t.id)"
                " SELECT l.id, l.gln, l.gln_extension FROM location l JOIN tree t ON l.id = t.id",
                params,
            )
        return {location_place(row[0], row[1], row[2]) for row in rows}
