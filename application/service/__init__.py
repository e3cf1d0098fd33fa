"""What every capability shares: the composition root, the core parts, the runners
of blocking and background work, the read-model follower, the errors."""
