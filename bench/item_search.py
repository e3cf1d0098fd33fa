"""Search and filter latency over a collection's items, through `ItemReader`.

    python -m bench.item_search [--backend sqlite|postgresql|both] [--items 100000]
                                [--runs 200] [--without-index]

Loads `--items` products (the master data's `product` collection: some 30 string fields,
a dozen numbers; made-up but plausible values) straight into the table the records
projection makes for them, search index included, then measures p50/p95 of list queries
as the API runs them (`fields=*`, default sort, limit 100): `search` for a word
fragment, for a GTIN (digits: number fields join in), for a term found nowhere and for a
two-letter term (read without the index); `_eq` on an indexed field (a relation) and on
one without an index; `_icontains` on the product name. `--without-index` drops the
search index afterwards and measures the same queries again, for comparison.

Each run uses a database of its own, as `bench.run` does, dropped at the end.
"""

import argparse
import random
import statistics
import string
import time
import uuid
from collections.abc import Callable
from typing import Any

from bench.harness import fresh_database
from domain.access.collections import SYSTEM_COLLECTIONS
from domain.collections.filters import parse_filter
from domain.collections.item_query import ItemQuery
from domain.collections.schema import Field, FieldType, Schema
from domain.masterdata.catalogue import MASTER_DATA_COLLECTIONS
from domain.masterdata.products import PRODUCT
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from projections.items.reader import ItemReader
from projections.items.records import RecordsProjection, column_value
from projections.search_index import drop_search_indexes

SCHEMA = Schema((*SYSTEM_COLLECTIONS, *MASTER_DATA_COLLECTIONS))
#: Fields whose values come from short lists, as colours and units do.
CATEGORIES = {
    "color": ["red", "green", "blue", "black", "white", "yellow", "orange", "purple"],
    "country_of_origin": ["DE", "FR", "IT", "ES", "NL", "BE", "PL", "US", "CN", "IN"],
    "target_consumer_gender": ["female", "male", "unisex"],
    "season_code": ["spring", "summer", "autumn", "winter"],
    # GS1 packaging types and Recommendation 20 units, as the reference lists hold them.
    "packaging_type_code": ["BX", "BO", "BG", "CNG", "JR", "PU"],
    **{
        unit: ["GRM", "KGM", "MLT", "LTR"]
        for unit in ("net_weight_unit", "gross_weight_unit", "net_content_unit")
    },
}
COLLECTIONS = tuple(SCHEMA)
_BATCH = 5000


class Products:
    """Made-up products: words from a fixed vocabulary, so that terms hit some rows."""

    def __init__(self, seed: int = 7) -> None:
        self.random = random.Random(seed)
        letters = string.ascii_lowercase
        self.words = [
            "".join(self.random.choice(letters) for _ in range(self.random.randint(4, 9)))
            for _ in range(4000)
        ]
        self.brands = [self._phrase(1, 2) for _ in range(300)]
        self.organisations = [str(uuid.UUID(int=self.random.getrandbits(128))) for _ in range(200)]
        self.gtins: list[str] = []

    def _phrase(self, low: int, high: int) -> str:
        words = self.random.choices(self.words, k=self.random.randint(low, high))
        return " ".join(words).title()

    def value(self, field: Field, index: int) -> Any:
        rng = self.random
        match field.name:
            case "id":
                return f"product-{index:08d}"
            case "product_name":
                return self._phrase(2, 5)
            case "brand":
                return rng.choice(self.brands)
            case "gtin":
                gtin = f"0{4000000 + index:07d}{rng.randint(0, 999999):06d}"
                if index % 97 == 0:
                    self.gtins.append(gtin)
                return gtin
            case "custom_id":
                return f"SKU-{index:08d}"
            case "product_manufacturer" | "brand_owner":
                return rng.choice(self.organisations)
            case "parent_product" | "product_redirection_rule":
                return None
            case name if name in CATEGORIES:
                return rng.choice(CATEGORIES[name])
            case "date_created" | "date_updated":
                return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1.7e9 + index * 60))
        match field.type:
            case FieldType.STRING | FieldType.TEXT:
                return None if rng.random() < 0.2 else self._phrase(1, 3)
            case FieldType.FLOAT:
                return round(rng.uniform(0, 1000), 2)
            case FieldType.INTEGER:
                return rng.randint(0, 10_000)
            case FieldType.BOOLEAN:
                return rng.random() < 0.5
            case _:
                return None

    def fragment(self) -> str:
        """Five letters of a vocabulary word: found in a few hundred products."""
        word = self.random.choice([w for w in self.words if len(w) >= 6])
        start = self.random.randint(0, len(word) - 5)
        return word[start : start + 5]


def load(database: Database, count: int, products: Products) -> None:
    """Create every collection's table (and search index) and fill `product`."""
    with database.transaction() as conn:
        RecordsProjection(COLLECTIONS).create_tables(conn)
    columns = [f'"{field.name}"' for field in PRODUCT.fields]
    for start in range(0, count, _BATCH):
        rows = [
            [column_value(field, products.value(field, index)) for field in PRODUCT.fields]
            for index in range(start, min(count, start + _BATCH))
        ]
        with database.transaction(durable=False) as conn:
            conn.insert_many(f'"{PRODUCT.table}"', columns, rows)
    database.analyze([f'"{PRODUCT.table}"'])


def queries(products: Products) -> dict[str, Callable[[], ItemQuery]]:
    rng = products.random

    def filtered(raw: Any) -> ItemQuery:
        return ItemQuery(filter=parse_filter(raw), limit=100)

    return {
        "search word fragment": lambda: ItemQuery(search=products.fragment(), limit=100),
        "search GTIN": lambda: ItemQuery(search=rng.choice(products.gtins), limit=100),
        "search found nowhere": lambda: ItemQuery(search=products.fragment() + "zq", limit=100),
        "search two letters": lambda: ItemQuery(search=products.fragment()[:2], limit=100),
        "_eq relation (indexed)": lambda: filtered(
            {"product_manufacturer": {"_eq": rng.choice(products.organisations)}}
        ),
        "_eq gtin (no index)": lambda: filtered({"gtin": {"_eq": rng.choice(products.gtins)}}),
        "_eq color (1 in 8)": lambda: filtered({"color": {"_eq": rng.choice(CATEGORIES["color"])}}),
        "search colour (1 in 8)": lambda: ItemQuery(
            search=rng.choice(CATEGORIES["color"]), limit=100
        ),
        "_icontains product_name": lambda: filtered(
            {"product_name": {"_icontains": products.fragment()}}
        ),
    }


def measure(
    reader: ItemReader, made: dict[str, Callable[[], ItemQuery]], runs: int
) -> dict[str, tuple[float, float, float]]:
    """p50 and p95 milliseconds of each query, and its mean number of items."""
    results = {}
    for name, make in made.items():
        for _ in range(5):
            reader.list(PRODUCT.name, make())
        timings, sizes = [], []
        for _ in range(runs):
            query = make()
            began = time.perf_counter()
            items = reader.list(PRODUCT.name, query)
            timings.append((time.perf_counter() - began) * 1000)
            sizes.append(len(items))
        timings.sort()
        p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
        results[name] = (statistics.median(timings), p95, statistics.mean(sizes))
    return results


def drop_index(database: Database) -> None:
    with database.transaction() as conn:
        if conn.dialect.name == "sqlite":
            drop_search_indexes(conn, (PRODUCT,))
            return
        for (name,) in conn.fetchall(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
            " AND tablename = ? AND indexname LIKE 'product!_!_trigram!_%' ESCAPE '!'",
            (PRODUCT.table,),
        ):
            conn.execute(f'DROP INDEX "{name}"')


def report(results: dict[str, tuple[float, float, float]], label: str) -> None:
    for name, (p50, p95, size) in results.items():
        print(f"  {name:<26} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   ({size:5.1f} items){label}")


def main() -> None:
    """Load products on each backend and print the latencies."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--without-index", action="store_true", help="also measure without it")
    args = parser.parse_args()
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    for backend in backends:
        print(f"== {backend}: {args.items:,} products, {args.runs} runs per query", flush=True)
        with fresh_database(backend) as url:
            database = Database(DatabaseUrl.parse(url), pool_size=2)
            try:
                products = Products()
                began = time.perf_counter()
                load(database, args.items, products)
                print(f"  loaded in {time.perf_counter() - began:.0f} s", flush=True)
                made = queries(products)
                report(measure(ItemReader(database, SCHEMA), made, args.runs), "")
                if args.without_index:
                    drop_index(database)
                    searches = {k: v for k, v in made.items() if "search" in k or "_icontains" in k}
                    report(
                        measure(ItemReader(database, SCHEMA), searches, args.runs),
                        "  without index",
                    )
            finally:
                database.close()


if __name__ == "__main__":
    main()
