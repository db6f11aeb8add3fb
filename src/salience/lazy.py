"""Modules imported on first use, so that start-up does not pay for them, and values worked
out on first read (:class:`once`).

numpy costs ~60 ms to import; ``salience --help`` and a recall without vectors never touch
it, but the modules that score briefings on columns are imported with the engine.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any, Generic, TypeVar, overload


def lazy_module(name: str) -> ModuleType:
    """``name``, executed only when one of its attributes is first read."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named {name!r}", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


_T = TypeVar("_T")


class once(Generic[_T]):  # (a decorator, named as functools.cached_property is)
    """``functools.cached_property`` without its lock: Python 3.11's takes one at every
    first read (1.0 against 0.4 µs; a write's look for updates makes some 80 first reads).
    Two threads reading one object at once may both work its value out: use it only where
    that gives the same value. It writes the instance's ``__dict__`` directly, so it serves
    frozen dataclasses too."""

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self._func, self._name = func, func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> once[_T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> _T: ...

    def __get__(self, obj: object | None, owner: type | None = None) -> _T | once[_T]:
        if obj is None:
            return self
        value = obj.__dict__[self._name] = self._func(obj)  # (read from there next time)
        return value
