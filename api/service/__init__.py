"""The HTTP application, the `tracepoint` command and its launcher."""
