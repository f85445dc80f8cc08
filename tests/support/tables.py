"""Folders of other tables, for the Tables page (tests/app/test_app_tables.py, tests/browser/test_e2e_tables.py):
files whose names or columns do not serve the plan."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

TPCH_CUSTOMER = {
    "c_custkey": [1],
    "c_name": ["a"],
    "c_address": ["b"],
    "c_nationkey": [1],
    "c_phone": ["p"],
    "c_acctbal": [1.5],
    "c_mktsegment": ["BUILDING"],
    "c_comment": ["c"],
}


def other_tables(root):
    """``root`` made a folder of other tables: a customer.parquet with TPC-DS's first customer columns,
    and clients.parquet with TPC-H's customer columns under another file name."""
    root.mkdir()
    pq.write_table(
        pa.table(
            {
                "c_customer_sk": pa.array([1], pa.int32()),
                "c_customer_id": ["x"],
                "c_current_cdemo_sk": pa.array([1], pa.int32()),
                "c_salutation": ["Mr."],
            }
        ),
        root / "customer.parquet",
    )
    pq.write_table(pa.table(TPCH_CUSTOMER), root / "clients.parquet")
    return root
