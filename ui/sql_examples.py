"""Example queries for the SQL page (and its tests): the tutorial query over the tutorial tables,
and TPC-H queries from substrait-io/consumer-testing (Apache-2.0), their file placeholders replaced
by table names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    title: str
    data: str  # "tutorial" or "tpch": the tables it is written against
    sql: str


TUTORIAL_SQL = """\
SELECT p.product_name, p.product_id, sum(o.quantity * o.price) AS sales
FROM orders o JOIN products p ON o.product_id = p.product_id
WHERE list_position(p.categories, 'Computers') IS NULL
GROUP BY p.product_name, p.product_id
"""

TPCH_Q01 = """\
SELECT
  l_returnflag,
  l_linestatus,
  sum(l_quantity) AS sum_qty,
  sum(l_extendedprice) AS sum_base_price,
  sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
  sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
  avg(l_quantity) AS avg_qty,
  avg(l_extendedprice) AS avg_price,
  avg(l_discount) AS avg_disc,
  count(*) AS count_order
FROM
  lineitem
WHERE
  l_shipdate <= date '1998-12-01' - interval '120' day
GROUP BY
  l_returnflag,
  l_linestatus
ORDER BY
  l_returnflag,
  l_linestatus
"""

TPCH_Q03 = """\
SELECT
    l_orderkey,
    sum(l_extendedprice * (1 - l_discount)) AS revenue,
    o_orderdate,
    o_shippriority
FROM
    customer, orders, lineitem
WHERE
    c_mktsegment = 'BUILDING'
    AND c_custkey = o_custkey
    AND l_orderkey = o_orderkey
    AND o_orderdate < CAST('1995-03-15' AS date)
    AND l_shipdate > CAST('1995-03-15' AS date)
GROUP BY
    l_orderkey,
    o_orderdate,
    o_shippriority
ORDER BY
    revenue DESC,
    o_orderdate
LIMIT 10
"""

TPCH_Q05 = """\
SELECT
    n_name,
    sum(l_extendedprice * (1 - l_discount)) AS revenue
FROM
    customer, orders, lineitem, supplier, nation, region
WHERE
    c_custkey = o_custkey
    AND l_orderkey = o_orderkey
    AND l_suppkey = s_suppkey
    AND c_nationkey = s_nationkey
    AND s_nationkey = n_nationkey
    AND n_regionkey = r_regionkey
    AND r_name = 'ASIA'
    AND o_orderdate >= CAST('1994-01-01' AS date)
    AND o_orderdate < CAST('1995-01-01' AS date)
GROUP BY
    n_name
ORDER BY
    revenue DESC
"""

TPCH_Q06 = """\
SELECT
    sum(l_extendedprice * l_discount) AS revenue
FROM
    lineitem
WHERE
    l_shipdate >= CAST('1994-01-01' AS date)
    AND l_shipdate < CAST('1995-01-01' AS date)
    AND l_discount BETWEEN 0.05
    AND 0.07
    AND l_quantity < 24
"""

TPCH_Q10 = """\
SELECT
    c_custkey,
    c_name,
    sum(l_extendedprice * (1 - l_discount)) AS revenue,
    c_acctbal,
    n_name,
    c_address,
    c_phone,
    c_comment
FROM
    customer, orders, lineitem, nation
WHERE
    c_custkey = o_custkey
    AND l_orderkey = o_orderkey
    AND o_orderdate >= CAST('1993-10-01' AS date)
    AND o_orderdate < CAST('1994-01-01' AS date)
    AND l_returnflag = 'R'
    AND c_nationkey = n_nationkey
GROUP BY
    c_custkey,
    c_name,
    c_acctbal,
    c_phone,
    n_name,
    c_address,
    c_comment
ORDER BY
    revenue DESC
LIMIT 20
"""

#: Title -> example, in the order the page lists them.
EXAMPLES: dict[str, Example] = {
    "Tutorial: sales per product, not in Computers": Example("Tutorial", "tutorial", TUTORIAL_SQL),
    "TPC-H q01: pricing summary report": Example("TPC-H q01", "tpch", TPCH_Q01),
    "TPC-H q03: shipping priority": Example("TPC-H q03", "tpch", TPCH_Q03),
    "TPC-H q05: local supplier volume": Example("TPC-H q05", "tpch", TPCH_Q05),
    "TPC-H q06: forecasting revenue change": Example("TPC-H q06", "tpch", TPCH_Q06),
    "TPC-H q10: returned item reporting": Example("TPC-H q10", "tpch", TPCH_Q10),
}
