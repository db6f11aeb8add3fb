"""The profile registry: the five seed systems, exactly, and salience's own default."""

from __future__ import annotations

from salience.errors import ConfigError
from salience.profiles import aide, eidet, ilab, rae, talome
from salience.profiles import salience as own
from salience.profiles.base import Profile, ProfileSettings, TypeSpec

PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (aide.PROFILE, eidet.PROFILE, ilab.PROFILE, talome.PROFILE, rae.PROFILE, own.PROFILE)
}
DEFAULT_PROFILE = "salience"


class UnknownProfileError(ConfigError):
    """The name is not in the registry; the message lists the known ones."""

    def __init__(self, name: str) -> None:
        super().__init__(f"unknown profile {name!r}; known profiles: {', '.join(sorted(PROFILES))}")
        self.name = name


def get_profile(name: str) -> Profile:
    """The profile called ``name``, or :class:`UnknownProfileError` listing the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise UnknownProfileError(name) from None


__all__ = [
    "DEFAULT_PROFILE",
    "PROFILES",
    "Profile",
    "ProfileSettings",
    "TypeSpec",
    "UnknownProfileError",
    "get_profile",
]
