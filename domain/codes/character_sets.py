"""The alphabets codes are drawn from, and how many codes of a length each can make."""

import string

#: Name → alphabet (spec §2 identifier_job.character_set; ours are listed in docs).
CHARACTER_SETS: dict[str, str] = {
    "alphanumeric": string.digits + string.ascii_uppercase + string.ascii_lowercase,
    "numeric": string.digits,
    "alphanumeric_upper": string.digits + string.ascii_uppercase,
    # Read aloud or off a worn label, 0/O, 1/I/L are confused; they are left out.
    "unambiguous": "".join(c for c in string.digits + string.ascii_uppercase if c not in "0O1IL"),
}


def alphabet(character_set: str) -> str:
    """The characters of a named set (KeyError for an unknown name)."""
    return CHARACTER_SETS[character_set]


def code_space(character_set: str, length: int) -> int:
    """How many different codes of `length` characters the set can make."""
    return int(len(CHARACTER_SETS[character_set]) ** length)


def within(code: str, character_set: str) -> bool:
    """True when every character of `code` belongs to the set."""
    chars = CHARACTER_SETS[character_set]
    return all(c in chars for c in code)
