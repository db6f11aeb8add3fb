"""Knowledge packs as the faces use them (:mod:`salience.sharing.packs`): their identity,
manifest and import report, reading, verifying and signing a pack file."""

from __future__ import annotations

from salience.sharing.packs import (
    PackIdentity,
    PackImport,
    PackManifest,
    check_key,
    read_pack,
    sign_pack,
)

__all__ = ["PackIdentity", "PackImport", "PackManifest", "check_key", "read_pack", "sign_pack"]
