"""The `make bench` table: each figure beside its floor, their ratio, its target and
whether the target is met, one row at a time so a long run shows its figures as they come.
"""

from dataclasses import dataclass

COLUMNS = (("figure", 50), ("value", 22), ("floor", 13), ("ratio", 6), ("target", 16))


@dataclass(frozen=True)
class Target:
    """A bound on a figure (`≤ 5 ms`), or on its ratio to its floor (`≥ 30 % of floor`)."""

    bound: float
    at_most: bool = False
    of_floor: bool = False

    def met(self, value: float, floor: float | None) -> bool | None:
        """Whether `value` meets the bound; None when it is on a floor not measured."""
        if self.of_floor:
            if not floor:
                return None
            value = value / floor
        return value <= self.bound if self.at_most else value >= self.bound

    def text(self, unit: str) -> str:
        """The bound as the table shows it."""
        sign = "≤" if self.at_most else "≥"
        if self.of_floor:
            return f"{sign} {self.bound:.0%} of floor"
        return f"{sign} {_number(self.bound)} {unit}".rstrip()


@dataclass(frozen=True)
class Figure:
    """One measured figure; `shown` replaces the value's text (e.g. `p50 2.1 / p95 3.4`)."""

    name: str
    value: float
    unit: str
    floor: float | None = None
    target: Target | None = None
    shown: str | None = None

    @property
    def ratio(self) -> float | None:
        """The value as a fraction of its floor, when it has one."""
        return self.value / self.floor if self.floor else None


def header() -> str:
    """The table's first two lines."""
    titles = " | ".join(f"{title:<{width}}" for title, width in COLUMNS)
    rule = "-+-".join("-" * width for _, width in COLUMNS)
    return f"{titles} | met?\n{rule}-+-----"


def row(figure: Figure) -> str:
    """One figure as a table line."""
    value = figure.shown or f"{_number(figure.value)} {figure.unit}".rstrip()
    floor = "—" if figure.floor is None else f"{_number(figure.floor)} {figure.unit}".rstrip()
    ratio = "—" if figure.ratio is None else f"{figure.ratio:.0%}"
    target, met = "—", "—"
    if figure.target is not None:
        target = figure.target.text(figure.unit)
        verdict = figure.target.met(figure.value, figure.floor)
        met = "—" if verdict is None else ("yes" if verdict else "NO")
    cells = (figure.name, value, floor, ratio, target)
    return (
        " | ".join(f"{cell:<{width}}" for cell, (_, width) in zip(cells, COLUMNS, strict=True))
        + f" | {met}"
    )


def _number(value: float) -> str:
    """Thousands separated; one decimal below 100, where a decimal still says something."""
    return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"
