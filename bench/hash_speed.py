"""How long the CBV 2.0 event hash takes per typical captured event.

    .venv/bin/python -m bench.hash_speed [--events 5000] [--seed 5] [--runs 5]

Each run hashes the events once, in an interpreter of its own so that the caches start
cold: EPCs in capture are new, and a second pass over the same events would flatter the
result. The best run is the one least disturbed by whatever else the machine is doing.
"""

import argparse
import subprocess
import sys
import time

from bench.generator import EventFactory
from domain.epcis.event_hash import event_hash


def one_run(events: int, seed: int) -> float:
    """Microseconds per event for one pass over `events` fresh events."""
    batch = EventFactory(seed=seed).events(events)
    start = time.perf_counter()
    for event in batch:
        event_hash(event, {})
    return (time.perf_counter() - start) / events * 1e6


def main() -> None:
    """Run the passes, each in its own interpreter, and print them and the best."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--once", action="store_true", help="one pass in this interpreter")
    args = parser.parse_args()
    if args.once:
        print(f"{one_run(args.events, args.seed):.2f}")
        return
    command = [sys.executable, "-m", "bench.hash_speed", "--once"]
    command += ["--events", str(args.events), "--seed", str(args.seed)]
    runs = [float(subprocess.check_output(command, text=True)) for _ in range(args.runs)]
    print("µs/event per run:", ", ".join(f"{run:.1f}" for run in runs))
    print(f"best: {min(runs):.1f} µs/event")


if __name__ == "__main__":
    main()
