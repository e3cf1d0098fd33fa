"""The location hierarchy as events name places, for WD_bizLocation and WD_readPoint: the
`location` collection's `parent_location`, and the `children` of master data captured with
events, followed together to any depth."""

import re
from collections.abc import Sequence

from domain.gs1.digital_link import GS1_RESOLVER
from domain.masterdata.locations import location_place
from infrastructure.database import Database
from infrastructure.sql_conditions import in_list

_GLN = re.compile(r"/414/([0-9]{13})(?:/|$)")


class LocationTree:
    """Finds the places that lie within others by the locations' parent links."""

    def __init__(self, database: Database) -> None:
        self._db = database

    def within(
        self,
        places: Sequence[str],
        vocabulary: str | None = None,
        accounts: Sequence[str] | None = None,
    ) -> set[str]:
        """The canonical places below these (at any depth), by the location collection and
        by the captured master data of `vocabulary` (a ReadPoint or BusinessLocation
        vocabulary type) that `accounts` captured (all of it when None)."""
        found: set[str] = set()
        frontier = set(places)
        # Each source may lead into the other: follow both until nothing new turns up.
        while frontier:
            below = self._locations_within(sorted(frontier))
            if vocabulary is not None:
                below |= self._master_data_within(sorted(frontier), vocabulary, accounts)
            frontier = below - found - set(places)
            found |= below
        return found

    def _master_data_within(
        self, places: Sequence[str], vocabulary: str, accounts: Sequence[str] | None
    ) -> set[str]:
        params: list[str] = [vocabulary]
        roots = in_list("parent", list(places), params)
        owned = ""
        if accounts is not None:
            owned = " AND " + in_list("account", list(accounts), params)
        params.append(vocabulary)
        owned_inner = ""
        if accounts is not None:
            owned_inner = " AND " + in_list("c.account", list(accounts), params)
        with self._db.transaction(write=False) as conn:
            rows = conn.fetchall(
                "WITH RECURSIVE tree(element) AS ("
                " SELECT child FROM epcis_vocabulary_children"
                f" WHERE vocabulary = ? AND {roots}{owned}"
                " UNION SELECT c.child FROM epcis_vocabulary_children c"
                f" JOIN tree t ON c.parent = t.element WHERE c.vocabulary = ?{owned_inner})"
                " SELECT element FROM tree",
                params,
            )
        return {row[0] for row in rows}

    def _locations_within(self, places: Sequence[str]) -> set[str]:
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
