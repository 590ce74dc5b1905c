"""Parts of an index built on first use, once, whichever thread asks first."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class built_once(Generic[T]):
    """``functools.cached_property`` with the lock per attribute it lost in Python 3.12: the
    bot's background ``prepare`` and a query may ask for a part at the same moment, and it
    must be built once (seconds and hundreds of MB at large corpora), not twice."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self.__doc__ = build.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> built_once[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        values = instance.__dict__  # once built, the instance's own value hides this
        with self._lock:
            if self._name not in values:
                values[self._name] = self._build(instance)
        return values[self._name]

    def built(self, instance: object) -> bool:
        """Whether ``instance``'s part is built already: a caller that can do without it
        (more slowly) need not wait seconds for it to be built."""
        return self._name in instance.__dict__
