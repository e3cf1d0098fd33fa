"""The `make bench` table: each figure beside its floor, the ratio, the target and whether
it is met; disk figures per event with the small tables summed."""

from bench.disk import DiskUsage, figures
from bench.table import Figure, Target, header, row


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.split(" | ")]


def test_a_share_of_the_floor_is_met_at_that_share() -> None:
    assert Target(0.30, of_floor=True).met(3_000, 10_000) is True


def test_a_share_of_the_floor_is_missed_below_it() -> None:
    assert Target(0.30, of_floor=True).met(2_999, 10_000) is False


def test_a_share_of_a_floor_not_measured_is_undecided() -> None:
    assert Target(0.30, of_floor=True).met(3_000, None) is None


def test_an_upper_bound_is_met_at_the_bound_and_missed_above() -> None:
    bound = Target(5.0, at_most=True)
    assert (bound.met(5.0, None), bound.met(5.1, None)) == (True, False)


def test_a_row_shows_the_value_its_floor_the_ratio_and_the_verdict() -> None:
    figure = Figure("capture", 2_500, "ev/s", 10_000, Target(0.30, of_floor=True))
    assert _cells(row(figure)) == [
        "capture",
        "2,500 ev/s",
        "10,000 ev/s",
        "25%",
        "≥ 30% of floor",
        "NO",
    ]


def test_a_row_shows_an_absolute_target_in_the_figures_unit() -> None:
    figure = Figure("latency", 4.2, "ms", None, Target(5, at_most=True), "p50 3.0 p95 4.2 ms")
    assert _cells(row(figure)) == ["latency", "p50 3.0 p95 4.2 ms", "—", "—", "≤ 5.0 ms", "yes"]


def test_a_row_without_floor_or_target_shows_dashes() -> None:
    assert _cells(row(Figure("raw", 12_345.6, "ev/s")))[2:] == ["—", "—", "—", "—"]


def test_rows_line_up_under_the_header() -> None:
    titles = header().splitlines()[0]
    line = row(Figure("capture", 2_500, "ev/s", 10_000, Target(0.30, of_floor=True)))
    assert [i for i, c in enumerate(line) if c == "|"] == [
        i for i, c in enumerate(titles) if c == "|"
    ]


def test_disk_figures_are_bytes_per_event_whole_database_first() -> None:
    usage = DiskUsage(3_000_000, {"public.events": 2_000_000, "public.epcs": 900_000})
    shown = [(f.name.strip(), f.value) for f in figures(usage, 1_000)]
    assert shown == [
        ("disk, whole database (1,000 events)", 3_000),
        ("tables + indexes together", 2_900),
        ("audit tree (leaves, nodes, heads) of those", 0),
        ("events + indexes", 2_000),
        ("epcs + indexes", 900),
    ]


def test_disk_figures_sum_the_audit_tree_s_tables_in_any_schema() -> None:
    tables = {"s.audit_leaves": 30_000, "audit_nodes": 4_000, "audit_heads": 1_000, "x": 9}
    shown = {f.name.strip(): f.value for f in figures(DiskUsage(50_000, tables), 1_000)}
    assert shown["audit tree (leaves, nodes, heads) of those"] == 35


def test_disk_figures_sum_the_tables_under_a_hundredth_of_the_database() -> None:
    usage = DiskUsage(1_000_000, {"big": 900_000, "a": 5_000, "b": 4_000})
    assert [(f.name.strip(), f.value) for f in figures(usage, 1_000)][-1] == (
        "2 smaller tables + indexes",
        9,
    )
