"""Identifier codes: jobs, pools, reservations, the Digital Link resolver and integrity
checks. Draws on `domain/codes` and `domain/gs1`."""
