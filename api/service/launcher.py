"""The `tracepoint` command's entry point: it imports the command line only when run.

A worker process of a pool (the event analysis) starts by importing the module its parent
was run from, as multiprocessing does. The console script names this module, so each
worker imports this page rather than the command line and the service with it, which
cost each worker about 37 MB.
"""


def main() -> None:
    """Run the `tracepoint` command."""
    from api.service.cli import main as run

    run()
