"""What the service logs and how: secrets masked, text or one JSON object per line."""
