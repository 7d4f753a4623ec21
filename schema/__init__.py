"""The data contract of tg-index: SQLAlchemy models (models.py), SQL views (views.sql), the version.

Importing this package is cheap: the models (and SQLAlchemy) load on first use of `Base`.
"""

from typing import Any

from .version import SCHEMA_VERSION

__all__ = ["SCHEMA_VERSION", "Base", "views_sql"]


def views_sql() -> str:
    """The CREATE VIEW statements for people who write their own SQL."""
    from importlib import resources  # here: tg-query imports this package for SCHEMA_VERSION alone

    return resources.files(__package__).joinpath("views.sql").read_text()


def __getattr__(name: str) -> Any:
    if name == "Base":
        from .models import Base

        return Base
    raise AttributeError(name)
