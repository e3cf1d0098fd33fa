"""Master-data query latency over a large `product` collection, through
`MasterDataQueryService` as a master-data named query runs it.

    python -m bench.master_data [--backend sqlite|postgresql|both] [--items 100000]
                                [--runs 100]

Loads `--items` products as `bench.item_search` makes them, then measures p50/p95 of
SimpleMasterDataQuery answers: `EQ_name` of one product, `WD_name` of one, `EQ_ATTR_` on
the GTIN attribute (a column without an index), `HASATTR` with `maxElementCount` (stops
one record past the limit). Before the conditions went to SQL each of these read every
product.
"""

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from typing import Any

from application.epcis.master_data_queries import MasterDataQueryService, QueryTooLarge
from application.service.blocking import BlockingRunner
from bench.harness import fresh_database
from bench.item_search import Products, load
from domain.access.policies import Accountability, PolicyGrant
from infrastructure.database import Database
from infrastructure.database_url import DatabaseUrl
from projections.epcis.master_data import MasterDataProjection
from projections.epcis.vocabulary_reader import VocabularyReader

ADMIN = Accountability(user="bench", policies=(PolicyGrant("admin", admin_access=True),))
EPC_CLASS = "urn:epcglobal:epcis:vtype:EPCClass"
GTIN = "https://gs1.org/voc/gtin"


def queries(products: Products, items: int) -> dict[str, Callable[[], dict[str, list[str]]]]:
    rng = products.random

    def product() -> str:
        return f"product-{rng.randrange(items):08d}"

    base = {"includeAttributes": ["true"], "includeChildren": ["true"]}
    return {
        "EQ_name (one product)": lambda: {**base, "EQ_name": [product()]},
        "WD_name (one product)": lambda: {**base, "WD_name": [product()]},
        "EQ_ATTR_ gtin (no index)": lambda: {
            **base,
            f"EQ_ATTR_{GTIN}": [rng.choice(products.gtins)],
        },
        "HASATTR, maxElementCount 100": lambda: {
            **base,
            "vocabularyName": [EPC_CLASS],
            "HASATTR": [GTIN],
            "maxElementCount": ["100"],
        },
    }


async def measure(
    service: MasterDataQueryService,
    made: dict[str, Callable[[], dict[str, list[str]]]],
    runs: int,
) -> dict[str, tuple[float, float, float]]:
    """p50 and p95 milliseconds of each query, and its mean number of elements."""
    results = {}
    for name, make in made.items():
        timings, sizes = [], []
        for run in range(runs + 3):
            params = make()
            began = time.perf_counter()
            try:
                answer = await service.query(params, ADMIN)
                size = sum(len(v["vocabularyElementList"]) for v in answer.vocabulary_list)
            except QueryTooLarge:
                size = 0
            if run >= 3:  # the first runs warm the caches
                timings.append((time.perf_counter() - began) * 1000)
                sizes.append(size)
        timings.sort()
        p95 = timings[max(0, int(len(timings) * 0.95) - 1)]
        results[name] = (statistics.median(timings), p95, statistics.mean(sizes))
    return results


def main() -> None:
    """Load products on each backend and print the latencies."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=100)
    args = parser.parse_args()
    backends = ["postgresql", "sqlite"] if args.backend == "both" else [args.backend]
    for backend in backends:
        print(f"== {backend}: {args.items:,} products, {args.runs} runs per query", flush=True)
        with fresh_database(backend) as url:
            database = Database(DatabaseUrl.parse(url), pool_size=2)
            blocking = BlockingRunner(2)
            try:
                products = Products()
                load(database, args.items, products)
                with database.transaction() as conn:
                    MasterDataProjection().create_tables(conn)
                service = MasterDataQueryService(VocabularyReader(database), blocking)
                results: Any = asyncio.run(
                    measure(service, queries(products, args.items), args.runs)
                )
                for name, (p50, p95, size) in results.items():
                    print(f"  {name:<30} p50 {p50:7.1f} ms   p95 {p95:7.1f} ms   ({size:.1f})")
            finally:
                blocking.close()
                database.close()


if __name__ == "__main__":
    main()
