"""Records of the platform collections, event-sourced."""
