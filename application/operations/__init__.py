"""Running the service: its health and information, metrics, outages, read routing
to replicas, start-up checks and records."""
