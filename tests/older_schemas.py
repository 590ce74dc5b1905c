"""Tables as an older schema made them, for the tests that upgrade such a database: today's
definitions less the columns added since, with the primary key they had then."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sqlalchemy import Column, MetaData, Table


def tables_as_before(
    tables: Iterable[Table],
    *,
    added: Mapping[str, set[str]],
    keys: Mapping[str, set[str]],
) -> MetaData:
    """``tables`` without the columns ``added`` since (by table name), keyed by ``keys``
    where the primary key changed since (by table name)."""
    old = MetaData()
    for table in tables:
        key = keys.get(table.name)
        Table(
            table.name,
            old,
            *(
                Column(
                    column.name,
                    column.type,
                    primary_key=column.primary_key if key is None else column.name in key,
                    nullable=column.nullable,
                    index=column.index,
                    autoincrement=False,
                )
                for column in table.columns
                if column.name not in added.get(table.name, ())
            ),
        )
    return old
