-- Queries that mix types on purpose, over the TPC-H tables. As written, DataFusion's plans of them call
-- functions with arguments no Substrait signature takes (a decimal against a double or an integer, an IN
-- list of mixed literals, CASE branches of different types): the executor must run each call as
-- DataFusion's engine evaluates it. Values sit on the boundaries where a double and a decimal disagree.

-- name: decimal_between_double_arithmetic
SELECT count(*) AS n, sum(l_extendedprice) AS total
FROM lineitem
WHERE l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
;

-- name: decimal_against_double_literal
SELECT count(*) AS n FROM lineitem WHERE l_discount <= 0.07 AND l_tax >= 0.02 + 0.01
;

-- name: decimal_against_integer_literal
SELECT count(*) AS n, min(l_quantity) AS lo, max(l_quantity) AS hi
FROM lineitem WHERE l_quantity > 10 AND l_quantity <= 20
;

-- name: decimal_times_double
SELECT l_orderkey, l_linenumber, l_extendedprice * 1.1 AS raised, l_extendedprice * 2 AS doubled
FROM lineitem WHERE l_orderkey < 40
;

-- name: integer_against_double
SELECT count(*) AS n FROM orders WHERE o_custkey < 100.5 AND o_shippriority = 0.0
;

-- name: in_list_of_mixed_literals
SELECT count(*) AS n FROM lineitem WHERE l_discount IN (0.05, 0.06 + 0.01, 1)
;

-- name: in_list_integer_and_double
SELECT n_name FROM nation WHERE n_nationkey IN (1, 2.0, 3.5, 7)
;

-- name: case_integer_and_double
SELECT o_orderkey,
       CASE WHEN o_totalprice > 100000 THEN 0 ELSE o_totalprice / 3.0 END AS ratio
FROM orders WHERE o_orderkey < 100
;

-- name: case_null_and_decimals
SELECT o_orderkey,
       CASE WHEN o_orderstatus = 'F' THEN NULL WHEN o_orderstatus = 'O' THEN o_totalprice ELSE 1.5 END AS price
FROM orders WHERE o_orderkey < 100
;

-- name: coalesce_null_and_differing_decimals
SELECT l_orderkey, l_linenumber,
       coalesce(CASE WHEN l_returnflag = 'R' THEN NULL ELSE l_discount END, l_tax * 2, 0) AS rate
FROM lineitem WHERE l_orderkey < 40
;

-- name: union_of_null_integer_and_double
SELECT n_name AS name, n_nationkey AS k FROM nation WHERE n_nationkey < 3
UNION ALL
SELECT NULL, 2.5
UNION ALL
SELECT r_name, r_regionkey FROM region
;

-- name: avg_of_integers
SELECT l_returnflag, avg(l_linenumber) AS mean_line, stddev(l_linenumber) AS sd FROM lineitem GROUP BY l_returnflag
;
