"""The public API is on purpose: `netsift.__all__` lists exactly what the package exports."""

from __future__ import annotations

import types

import netsift


def test_all_is_sorted_and_lists_every_public_name() -> None:
    # dir(), not vars(): the exports load on first use, and dir() names them before that.
    public = {
        name
        for name in dir(netsift)
        if not name.startswith("_") and not isinstance(getattr(netsift, name), types.ModuleType)
    }
    assert set(netsift.__all__) == public | {"__version__"}
    assert netsift.__all__ == sorted(set(netsift.__all__))


def test_every_exported_name_resolves() -> None:
    for name in netsift.__all__:
        assert getattr(netsift, name) is not None, name


def test_the_readme_entry_points_exist() -> None:
    assert callable(netsift.fetch) and callable(netsift.search) and callable(netsift.extract)
    assert callable(netsift.research)
    assert netsift.Client.__name__ == "Client"


def test_every_error_class_is_exported() -> None:
    """A caller catches what it can name: each stable error code's class is importable."""
    from netsift import errors

    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.NetsiftError)
    }
    assert classes <= set(netsift.__all__)


def test_the_conveniences_survive_their_subpackages_loading() -> None:
    """`netsift.fetch` is the function even after the `netsift.fetch` subpackage is imported."""
    import importlib

    for name in ("fetch", "search", "research"):
        importlib.import_module(f"netsift.{name}")
        assert callable(getattr(netsift, name)), name
