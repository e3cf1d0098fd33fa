"""The item collections of the platform API: master data, identifier codes, integrity
checks and outbound flows (spec §2), each declared once and served generically."""
