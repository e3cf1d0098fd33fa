"""Uniformly random codes from an alphabet, drawn from a random source passed in.

The service passes `secrets.token_bytes`, so nobody can guess the next code from the
ones they have seen; tests pass a seeded source.
"""

from collections.abc import Callable

#: Returns `n` random bytes.
RandomBytes = Callable[[int], bytes]


def _table(alphabet: str) -> tuple[bytes, bytes]:
    """A byte translation that maps each accepted byte to a character, and the bytes to
    drop: only the largest multiple of the alphabet size is kept, so no character is
    likelier than another (no modulo bias)."""
    size = len(alphabet)
    accepted = 256 - 256 % size
    table = bytes(ord(alphabet[b % size]) if b < accepted else 0 for b in range(256))
    return table, bytes(range(accepted, 256))


def random_codes(random_bytes: RandomBytes, alphabet: str, length: int, count: int) -> list[str]:
    """`count` codes of `length` characters, each character uniform over `alphabet`.

    Codes may repeat; the caller keeps the ones it has not used yet. The work is done by
    `bytes.translate`, so a million codes take well under a second.
    """
    if not alphabet.isascii() or len(set(alphabet)) != len(alphabet):
        raise ValueError("the alphabet must be distinct ASCII characters")
    table, dropped = _table(alphabet)
    wanted = length * count
    characters = bytearray()
    while len(characters) < wanted:
        # A little more than needed, since some bytes are dropped.
        characters += random_bytes(wanted - len(characters) + 64).translate(table, dropped)
    text = characters[:wanted].decode("ascii")
    return [text[i : i + length] for i in range(0, wanted, length)]


def random_below(random_bytes: RandomBytes, bound: int) -> int:
    """A uniform integer in [0, bound), by rejection so no value is likelier."""
    if bound <= 0:
        raise ValueError("bound must be positive")
    size = (bound.bit_length() + 7) // 8
    limit = 256**size - 256**size % bound
    while True:
        value = int.from_bytes(random_bytes(size), "big")
        if value < limit:
            return value % bound


def random_sample(random_bytes: RandomBytes, population: list[str], count: int) -> list[str]:
    """`count` distinct items of `population`, uniformly (a partial Fisher-Yates shuffle
    that reorders `population` in place)."""
    if count > len(population):
        raise ValueError("the sample is larger than the population")
    for i in range(count):
        j = i + random_below(random_bytes, len(population) - i)
        population[i], population[j] = population[j], population[i]
    return population[:count]
