"""How much of a client's input an error message may repeat: never more than a few hundred characters.

An id, a name or a value that comes back in a message is cut (``shown``); a whole message is cut as the
last guard (``clipped``), at the edge where userErrors and GraphQL errors leave the server.
"""

from __future__ import annotations

ECHO_LIMIT = 100  # characters of a client's value that a message repeats
MESSAGE_LIMIT = 2000  # characters of any one error message


def shown(value: object, limit: int = ECHO_LIMIT) -> str:
    """A client's value as a message may repeat it: its repr, cut to ``limit`` characters.

    A cut value ends in an ellipsis and says how long the original was, so a megabyte sent as an id
    comes back as a hundred characters, not as a megabyte.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value)} characters)"
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text)} characters)"


def clipped(message: str, limit: int = MESSAGE_LIMIT) -> str:
    """``message`` cut to ``limit`` characters: the last guard on anything that interpolates input."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}… ({len(message)} characters)"
