"""Writes the tutorial's two tables as parquet: ``sample_data/tutorial/{orders,products}.parquet``.

The rows below are the data; the parquet files are committed, and this script rebuilds them
from these rows (``.venv/bin/python sample_data/make_data.py``).

Schemas follow the CREATE TABLE statements of the Substrait SQL-to-Substrait tutorial::

    orders   (product_id i64 NOT NULL, quantity i32 NOT NULL, order_date date NOT NULL, price decimal(10,2))
    products (product_id i64 NOT NULL, categories list<string NOT NULL> NOT NULL,
              details struct<manufacturer: string, year_created: i32>, product_name string)

The rows are chosen so every sample plan shows something: products 1, 2 and 10 are in the
"Computers" category; products 11 and 12 were never ordered; orders of products 13 and 14 have no
product; one order row appears twice (product 4 on 2024-01-12); some prices, one product name, one
``details`` struct and some of its members are null; product 9 has no categories.
"""

from __future__ import annotations

import datetime as dt
import os
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tutorial")

ORDERS_SCHEMA = pa.schema(
    [
        pa.field("product_id", pa.int64(), nullable=False),
        pa.field("quantity", pa.int32(), nullable=False),
        pa.field("order_date", pa.date32(), nullable=False),
        pa.field("price", pa.decimal128(10, 2), nullable=True),
    ]
)

PRODUCTS_SCHEMA = pa.schema(
    [
        pa.field("product_id", pa.int64(), nullable=False),
        pa.field("categories", pa.list_(pa.field("element", pa.string(), nullable=False)), nullable=False),
        pa.field(
            "details",
            pa.struct([pa.field("manufacturer", pa.string()), pa.field("year_created", pa.int32())]),
            nullable=True,
        ),
        pa.field("product_name", pa.string(), nullable=True),
    ]
)


def d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def price(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


# product_id, quantity, order_date, price
ORDERS = [
    (1, 1, d("2024-01-05"), price("1299.00")),
    (2, 2, d("2024-01-07"), price("999.00")),
    (3, 1, d("2024-01-07"), price("349.99")),
    (4, 3, d("2024-01-12"), price("35.00")),
    (4, 3, d("2024-01-12"), price("35.00")),  # the same row twice
    (4, 1, d("2024-02-02"), price("35.00")),
    (5, 1, d("2024-02-03"), price(None)),
    (3, 2, d("2024-02-10"), price("329.99")),
    (6, 5, d("2024-02-14"), price("42.50")),
    (7, 1, d("2024-02-20"), price("12.00")),
    (13, 2, d("2024-02-21"), price("20.00")),  # no such product
    (1, 1, d("2024-03-01"), price("1249.00")),
    (8, 4, d("2024-03-03"), price("24.95")),
    (14, 1, d("2024-03-09"), price("5.00")),  # no such product
    (9, 1, d("2024-03-15"), price(None)),
    (10, 2, d("2024-03-20"), price("79.99")),
    (4, 2, d("2024-03-22"), price("33.00")),
]

# product_id, categories, details (manufacturer, year_created), product_name
PRODUCTS = [
    (1, ["Computers", "Electronics"], {"manufacturer": "Lenovo", "year_created": 2019}, "ThinkPad X1"),
    (2, ["Computers"], {"manufacturer": "Apple", "year_created": 2021}, "MacBook Air"),
    (3, ["Electronics", "Audio"], {"manufacturer": "Sony", "year_created": 2018}, "Noise-cancelling headphones"),
    (4, ["Kitchen"], {"manufacturer": "Bialetti", "year_created": 1933}, "Moka pot"),
    (5, ["Kitchen", "Electronics"], {"manufacturer": "Breville", "year_created": 2020}, "Espresso machine"),
    (6, ["Books"], None, "SQL for Smarties"),
    (7, ["Books"], {"manufacturer": None, "year_created": 1979}, None),
    (8, ["Garden"], {"manufacturer": "Fiskars", "year_created": 2015}, "Pruning shears"),
    (9, [], {"manufacturer": "Acme", "year_created": None}, "Mystery box"),
    (10, ["Computers", "Accessories"], {"manufacturer": "Logitech", "year_created": 2022}, "Wireless mouse"),
    (11, ["Audio"], {"manufacturer": "Bose", "year_created": 2017}, "Bluetooth speaker"),
    (12, ["Toys"], {"manufacturer": "Lego", "year_created": 2023}, "Building bricks"),
]


def table(rows: list[tuple], schema: pa.Schema) -> pa.Table:
    columns = list(zip(*rows))
    return pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(columns, schema)], schema=schema)


def main() -> None:
    os.makedirs(HERE, exist_ok=True)
    pq.write_table(table(ORDERS, ORDERS_SCHEMA), os.path.join(HERE, "orders.parquet"))
    pq.write_table(table(PRODUCTS, PRODUCTS_SCHEMA), os.path.join(HERE, "products.parquet"))


if __name__ == "__main__":
    main()
