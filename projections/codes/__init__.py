"""The tables of generated codes and scans, and the lookups behind code generation."""
