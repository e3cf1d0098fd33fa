"""Identifier codes: their alphabets, formats, generation and lifecycle."""
