"""Running outbound flows and Publish Lot."""
