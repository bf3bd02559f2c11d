"""Secrets kept at rest (a provider's API key): sealed with Fernet under a key
derived from the server's secret by HKDF, so the database alone never gives
them away.

A changed server secret makes what was sealed before unreadable: ``unseal``
then raises ``Unreadable`` with a sentence saying what to do, never a
traceback. Pure Python: no Django imports.
"""

from __future__ import annotations

import base64

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

# Changing either value makes every sealed secret unreadable: they name this use of the server's secret.
SALT = b"researchmind secretbox"
INFO = b"provider api keys v1"


class Unreadable(ValueError):
    """A sealed secret that the current server secret cannot open."""


def _fernet(server_secret: str) -> Fernet:
    if not server_secret:
        raise ValueError("A secret is sealed under the server's secret (SECRET_KEY), which is empty.")
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=SALT, info=INFO).derive(
        server_secret.encode("utf-8")
    )
    return Fernet(base64.urlsafe_b64encode(derived))


def seal(server_secret: str, plaintext: str) -> str:
    """``plaintext`` encrypted and authenticated, as ASCII text to store."""
    return _fernet(server_secret).encrypt(plaintext.encode("utf-8")).decode("ascii")


def unseal(server_secret: str, sealed: str) -> str:
    """The plaintext of ``seal(server_secret, …)``; ``Unreadable`` when the
    server secret changed since (or the stored text was altered)."""
    try:
        return _fernet(server_secret).decrypt(sealed.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeError, ValueError) as error:
        raise Unreadable(
            "The stored API key cannot be read: the server's SECRET_KEY changed since it was saved "
            "(or the stored value was altered). Enter the key again."
        ) from error
