"""The data contract of tg-index: SQLAlchemy models (models.py) and SQL views (views.sql)."""

from importlib import resources

from .models import SCHEMA_VERSION, Base

__all__ = ["SCHEMA_VERSION", "Base", "views_sql"]


def views_sql() -> str:
    """The CREATE VIEW statements for people who write their own SQL."""
    return resources.files(__package__).joinpath("views.sql").read_text()
