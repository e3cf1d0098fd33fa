"""When a subscription's cron schedule fires: the query subscriptions' timer."""

from datetime import UTC, datetime
from typing import Any

from apscheduler.triggers.cron import CronTrigger

from domain.epcis.subscriptions import SubscriptionControlsError


def cron_trigger(schedule: dict[str, str]) -> CronTrigger:
    """The cron trigger of a schedule; SubscriptionControlsError when a field is not valid."""
    fields = {
        "second": schedule.get("second", "0"),
        "minute": schedule.get("minute", "*"),
        "hour": schedule.get("hour", "*"),
        "day": schedule.get("dayOfMonth", "*"),
        "month": schedule.get("month", "*"),
        "day_of_week": schedule.get("dayOfWeek", "*"),
    }
    try:
        return CronTrigger(timezone=UTC, **fields)
    except ValueError as exc:
        raise SubscriptionControlsError(f"'schedule' is not valid: {exc}") from exc


def next_fire(schedule: Any, now: datetime) -> datetime:
    """When a schedule fires next after `now`; never, for a schedule with no next time."""
    fire = cron_trigger(schedule or {}).get_next_fire_time(None, now)
    return fire if fire is not None else datetime.max.replace(tzinfo=UTC)
