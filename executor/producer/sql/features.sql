-- name: inner_join_three_way_agg
SELECT n.n_name, count(*) AS num_orders, sum(o.o_totalprice) AS total_price
FROM orders o
JOIN customer c ON o.o_custkey = c.c_custkey
JOIN nation n ON c.c_nationkey = n.n_nationkey
WHERE o.o_orderdate < DATE '1993-01-01'
GROUP BY n.n_name
;

-- name: left_join_filter_in_on
SELECT c.c_custkey, o.o_orderkey, o.o_totalprice
FROM customer c
LEFT JOIN orders o ON c.c_custkey = o.o_custkey AND o.o_orderdate >= DATE '1998-01-01'
WHERE c.c_custkey <= 30
;

-- name: right_join
SELECT n.n_name, s.s_suppkey, s.s_acctbal
FROM supplier s
RIGHT JOIN nation n ON s.s_nationkey = n.n_nationkey AND s.s_acctbal > 7000
;

-- name: full_outer_join
SELECT a.n_nationkey, a.n_name, b.s_nationkey, b.cnt
FROM (SELECT n_nationkey, n_name FROM nation WHERE n_nationkey < 15) a
FULL OUTER JOIN (
    SELECT s_nationkey, count(*) AS cnt
    FROM supplier
    WHERE s_suppkey <= 40 AND s_nationkey >= 5
    GROUP BY s_nationkey
) b ON a.n_nationkey = b.s_nationkey
;

-- name: cross_join
SELECT r.r_name, t.n_name
FROM region r CROSS JOIN (SELECT n_name FROM nation WHERE n_nationkey < 3) t
;

-- name: semi_join_exists
SELECT c.c_custkey, c.c_name
FROM customer c
WHERE c.c_custkey <= 50
  AND EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey AND o.o_orderpriority = '1-URGENT')
;

-- name: semi_join_in
SELECT p_partkey, p_name
FROM part
WHERE p_size = 15 AND p_partkey IN (SELECT ps_partkey FROM partsupp WHERE ps_availqty < 1000)
;

-- name: anti_join_not_exists
SELECT c.c_custkey
FROM customer c
WHERE c.c_custkey <= 60
  AND NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey)
;

-- name: anti_join_not_in
SELECT s_suppkey, s_name
FROM supplier
WHERE s_nationkey NOT IN (SELECT n_nationkey FROM nation WHERE n_regionkey IN (0, 1, 2))
;

-- name: non_equi_join_only
SELECT r1.r_name AS lo, r2.r_name AS hi
FROM region r1 JOIN region r2 ON r1.r_regionkey < r2.r_regionkey
;

-- name: join_equi_plus_range
SELECT p.p_size, count(*) AS cnt, sum(ps.ps_supplycost) AS cost
FROM part p
JOIN partsupp ps ON p.p_partkey = ps.ps_partkey AND ps.ps_supplycost * 2 > p.p_retailprice
GROUP BY p.p_size
;

-- name: left_join_non_equi_band
SELECT n.n_nationkey, r.r_regionkey
FROM nation n
LEFT JOIN region r ON r.r_regionkey BETWEEN n.n_nationkey - 1 AND n.n_nationkey + 1
;

-- name: self_join_nation_same_region
SELECT n1.n_name AS first_nation, n2.n_name AS second_nation
FROM nation n1
JOIN nation n2 ON n1.n_regionkey = n2.n_regionkey AND n1.n_nationkey < n2.n_nationkey
;

-- name: union_all
SELECT 'nation' AS src, n_name AS name FROM nation WHERE n_regionkey = 1
UNION ALL
SELECT 'region', r_name FROM region
;

-- name: intersect_distinct
SELECT c_nationkey FROM customer WHERE c_acctbal > 9000
INTERSECT
SELECT s_nationkey FROM supplier WHERE s_acctbal < 0
;

-- name: intersect_all
SELECT n_nationkey, n_regionkey FROM nation
INTERSECT ALL
SELECT s_nationkey, s_nationkey % 5 FROM supplier
;

-- name: except_distinct
SELECT n_nationkey FROM nation
EXCEPT
SELECT s_nationkey FROM supplier WHERE s_acctbal > 5000
;

-- name: except_all
SELECT n_nationkey, n_regionkey FROM nation
EXCEPT ALL
SELECT s_nationkey, s_nationkey % 5 FROM supplier WHERE s_acctbal > 0
;

-- name: union_decimal_precision
SELECT CAST(c_acctbal AS DECIMAL(10, 2)) AS bal FROM customer WHERE c_custkey <= 5
UNION ALL
SELECT s_acctbal FROM supplier WHERE s_suppkey <= 5
;

-- name: union_nullability
SELECT c.c_custkey AS k, o.o_orderkey AS v
FROM customer c LEFT JOIN orders o ON c.c_custkey = o.o_custkey AND o.o_orderdate >= DATE '1998-01-01'
WHERE c.c_custkey <= 10
UNION ALL
SELECT n_nationkey, n_regionkey FROM nation
;

-- name: union_null_literal
SELECT NULL AS x, n_nationkey AS k FROM nation WHERE n_nationkey < 3
UNION ALL
SELECT r_name, r_regionkey FROM region
;

-- name: union_distinct_null_and_int_widths
SELECT NULL AS v FROM region
UNION
SELECT l_linenumber FROM lineitem WHERE l_orderkey = 1
UNION
SELECT o_orderkey FROM orders WHERE o_orderkey <= 3
;

-- name: group_by_having
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, avg(l_extendedprice) AS avg_price, count(*) AS cnt
FROM lineitem
GROUP BY l_returnflag, l_linestatus
HAVING count(*) > 1000
;

-- name: select_distinct
SELECT DISTINCT c_mktsegment, c_nationkey
FROM customer
WHERE c_nationkey < 5
;

-- name: count_distinct
SELECT o_orderpriority, count(DISTINCT o_custkey) AS customers, count(DISTINCT o_clerk) AS clerks, count(*) AS cnt
FROM orders
GROUP BY o_orderpriority
;

-- name: grouping_sets
SELECT l_returnflag, l_linestatus,
       GROUPING(l_returnflag) AS g_flag,
       GROUPING(l_returnflag, l_linestatus) AS g_both,
       count(*) AS cnt, sum(l_quantity) AS qty
FROM lineitem
GROUP BY GROUPING SETS ((l_returnflag, l_linestatus), (l_returnflag), (l_linestatus), ())
;

-- name: rollup
SELECT r.r_name, n.n_name,
       GROUPING(n.n_name) AS g_nation,
       GROUPING(r.r_name, n.n_name) AS g_both,
       count(*) AS customers
FROM customer c
JOIN nation n ON c.c_nationkey = n.n_nationkey
JOIN region r ON n.n_regionkey = r.r_regionkey
GROUP BY ROLLUP (r.r_name, n.n_name)
;

-- name: cube
SELECT o_orderstatus, o_orderpriority,
       GROUPING(o_orderstatus) AS g_status,
       GROUPING(o_orderstatus, o_orderpriority) AS g_both,
       count(*) AS cnt, sum(o_totalprice) AS total
FROM orders
GROUP BY CUBE (o_orderstatus, o_orderpriority)
;

-- name: aggregates_basic
SELECT l_shipmode, sum(l_quantity) AS s, avg(l_discount) AS a, min(l_extendedprice) AS mn,
       max(l_shipdate) AS mx, count(*) AS cnt_star, count(l_comment) AS cnt_col
FROM lineitem
GROUP BY l_shipmode
;

-- name: aggregates_statistics
SELECT l_returnflag,
       stddev(CAST(l_quantity AS DOUBLE)) AS sd,
       stddev_pop(CAST(l_quantity AS DOUBLE)) AS sd_pop,
       var_samp(CAST(l_quantity AS DOUBLE)) AS var,
       var_pop(CAST(l_quantity AS DOUBLE)) AS var_pop
FROM lineitem
GROUP BY l_returnflag
;

-- name: aggregates_empty_input
SELECT count(*) AS cnt, count(n_name) AS cnt_name, sum(n_nationkey) AS s, max(n_name) AS mx, avg(n_regionkey) AS a
FROM nation
WHERE n_nationkey < 0
;

-- name: window_row_number
SELECT n_regionkey, n_name, rn
FROM (
    SELECT n_regionkey, n_name, row_number() OVER (PARTITION BY n_regionkey ORDER BY n_name) AS rn
    FROM nation
) t
WHERE rn <= 2
;

-- name: window_rank_dense_rank
SELECT c_nationkey, c_custkey, c_mktsegment,
       rank() OVER (PARTITION BY c_nationkey ORDER BY c_mktsegment) AS rnk,
       dense_rank() OVER (PARTITION BY c_nationkey ORDER BY c_mktsegment) AS drnk,
       sum(c_acctbal) OVER (PARTITION BY c_nationkey) AS nation_bal,
       avg(c_acctbal) OVER (PARTITION BY c_mktsegment) AS segment_avg_bal,
       count(*) OVER () AS total
FROM customer
WHERE c_custkey <= 80
;

-- name: window_lag_lead
SELECT o_custkey, o_orderkey, o_orderdate,
       lag(o_orderdate) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS prev_date,
       lead(o_totalprice, 2) OVER (PARTITION BY o_custkey ORDER BY o_orderdate, o_orderkey) AS next2_price
FROM orders
WHERE o_custkey <= 10
;

-- name: window_rows_n_preceding
SELECT o_orderkey, o_totalprice,
       sum(o_totalprice) OVER (ORDER BY o_orderkey ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving_sum,
       max(o_totalprice) OVER (ORDER BY o_orderkey ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving_max
FROM orders
WHERE o_orderkey <= 100
;

-- name: window_range_unbounded_preceding
SELECT l_orderkey, l_linenumber, l_quantity,
       sum(l_quantity) OVER (PARTITION BY l_orderkey ORDER BY l_quantity
                             RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS running_qty
FROM lineitem
WHERE l_orderkey <= 40
;

-- name: window_rows_unbounded_following
SELECT l_orderkey, l_linenumber, l_extendedprice,
       sum(l_extendedprice) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber
                                  ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS remaining,
       count(*) OVER (PARTITION BY l_orderkey ORDER BY l_linenumber
                      ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) AS lines_left
FROM lineitem
WHERE l_orderkey <= 40
;

-- name: order_by_nulls_first_limit
SELECT c.c_custkey, o.o_orderkey
FROM customer c
LEFT JOIN orders o ON c.c_custkey = o.o_custkey AND o.o_orderdate >= DATE '1998-07-01'
WHERE c.c_custkey <= 300
ORDER BY o.o_orderkey ASC NULLS FIRST, c.c_custkey ASC
LIMIT 20
;

-- name: order_by_nulls_last_desc
SELECT c.c_custkey, o.o_orderkey
FROM customer c
LEFT JOIN orders o ON c.c_custkey = o.o_custkey AND o.o_orderdate >= DATE '1998-07-01'
WHERE c.c_custkey <= 300
ORDER BY o.o_orderkey DESC NULLS LAST, c.c_custkey DESC
LIMIT 20
;

-- name: limit_offset
SELECT o_orderkey, o_totalprice
FROM orders
ORDER BY o_totalprice DESC, o_orderkey ASC
LIMIT 10 OFFSET 5
;

-- name: date_plus_minus_interval
SELECT o_orderkey, o_orderdate,
       CAST(o_orderdate + INTERVAL '3' MONTH AS DATE) AS plus_3_months,
       CAST(o_orderdate - INTERVAL '10' DAY AS DATE) AS minus_10_days
FROM orders
WHERE o_orderkey <= 20
;

-- name: interval_year_month_compound
SELECT o_orderkey,
       CAST(o_orderdate + INTERVAL '1 year 2 months' AS DATE) AS later,
       CAST(DATE '1995-01-31' + INTERVAL '1' MONTH AS DATE) AS month_end_clamp
FROM orders
WHERE o_orderkey <= 10
;

-- name: interval_day_time
SELECT o_orderkey,
       CAST(o_orderdate AS TIMESTAMP) + INTERVAL '1 day 12 hours' AS ts_plus,
       CAST(o_orderdate AS TIMESTAMP) - INTERVAL '90' MINUTE AS ts_minus
FROM orders
WHERE o_orderkey <= 10
;

-- name: extract_year_month
SELECT EXTRACT(YEAR FROM o_orderdate) AS yr, date_part('month', o_orderdate) AS mon, count(*) AS cnt
FROM orders
GROUP BY EXTRACT(YEAR FROM o_orderdate), date_part('month', o_orderdate)
;

-- name: date_comparisons
SELECT l_shipmode,
       count(*) AS cnt,
       sum(CASE WHEN l_commitdate < l_receiptdate THEN 1 ELSE 0 END) AS late,
       sum(CASE WHEN l_shipdate >= l_commitdate THEN 1 ELSE 0 END) AS shipped_after_commit
FROM lineitem
WHERE l_shipdate BETWEEN DATE '1995-01-01' AND DATE '1995-03-31'
  AND l_receiptdate <> l_commitdate
GROUP BY l_shipmode
;

-- name: like_not_like
SELECT p_brand, count(*) AS cnt
FROM part
WHERE p_name LIKE '%green%'
  AND p_type NOT LIKE 'PROMO%'
  AND p_container LIKE '_M%'
GROUP BY p_brand
;

-- name: ilike
SELECT p_partkey, p_name
FROM part
WHERE p_name ILIKE '%ALMOND%IVORY%'
;

-- name: like_escape
SELECT c_custkey, nm
FROM (SELECT c_custkey, c_name, replace(c_name, '#', '_') AS nm FROM customer) t
WHERE nm LIKE '%r\_00000000_' ESCAPE '\'
   OR nm LIKE 'Customer\_0000001\_%' ESCAPE '\'
   OR c_name LIKE 'Customer\_00000002_' ESCAPE '\'
;

-- name: string_functions_basic
SELECT n_nationkey,
       upper(n_comment) AS up,
       lower(n_name) AS low,
       substring(n_name FROM 2 FOR 3) AS sub_from_for,
       substr(n_name, 1, 4) AS sub4,
       length(n_name) AS len,
       char_length(n_comment) AS clen,
       concat(n_name, '-', CAST(n_regionkey AS VARCHAR)) AS cat,
       n_name || '/' || CAST(n_nationkey AS VARCHAR) AS piped
FROM nation
;

-- name: string_trim_replace
SELECT n_nationkey,
       trim(concat('  ', n_name, '  ')) AS trimmed,
       ltrim(concat('  ', n_name, '  ')) AS ltrimmed,
       rtrim(concat('  ', n_name, '  ')) AS rtrimmed,
       trim(BOTH 'A' FROM n_name) AS trimmed_a,
       replace(n_name, 'A', 'a') AS replaced
FROM nation
;

-- name: string_search_pad
SELECT n_nationkey,
       starts_with(n_name, 'UNITED') AS is_united,
       strpos(n_name, 'AN') AS pos_an,
       position('A' IN n_name) AS pos_a,
       lpad(n_name, 12, '*') AS lpadded,
       rpad(n_name, 5, '.') AS rpadded,
       left(n_name, 3) AS left3,
       right(n_name, 3) AS right3
FROM nation
;

-- name: case_with_null_branches
SELECT n_nationkey,
       CASE WHEN n_regionkey = 0 THEN NULL WHEN n_regionkey = 1 THEN n_name ELSE 'other' END AS c1,
       CASE n_regionkey WHEN 2 THEN n_nationkey ELSE NULL END AS c2,
       CASE WHEN n_nationkey > 20 THEN 'high' END AS c3
FROM nation
;

-- name: coalesce_nullif_is_null_distinct
SELECT c.c_custkey,
       coalesce(o.o_totalprice, 0) AS price_or_zero,
       nullif(c.c_mktsegment, 'BUILDING') AS seg,
       coalesce(nullif(c.c_mktsegment, 'AUTOMOBILE'), 'none') AS seg2,
       coalesce(o.o_orderpriority, c.c_mktsegment) AS prio_or_seg,
       o.o_orderkey IS NULL AS no_order,
       o.o_orderkey IS NOT NULL AS has_order,
       o.o_custkey IS DISTINCT FROM c.c_custkey AS distinct_cust,
       o.o_custkey IS NOT DISTINCT FROM c.c_custkey AS same_cust
FROM customer c
LEFT JOIN orders o ON c.c_custkey = o.o_custkey AND o.o_orderdate >= DATE '1998-06-01'
WHERE c.c_custkey <= 40
;

-- name: between_in_list
SELECT p_brand, p_container, count(*) AS cnt
FROM part
WHERE p_size BETWEEN 10 AND 20
  AND p_brand IN ('Brand#12', 'Brand#23', 'Brand#34')
  AND p_container NOT IN ('SM CASE', 'LG BOX', 'JUMBO PKG')
  AND p_partkey NOT BETWEEN 100 AND 200
GROUP BY p_brand, p_container
;

-- name: decimal_arithmetic
SELECT l_returnflag, l_linestatus,
       sum(l_extendedprice * (1 - l_discount)) AS disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS charge,
       sum(l_quantity + l_tax - l_discount) AS mixed,
       sum(l_extendedprice) / sum(l_quantity) AS avg_unit_price,
       sum(l_discount) / count(*) AS avg_disc
FROM lineitem
GROUP BY l_returnflag, l_linestatus
;

-- name: integer_div_mod_abs
SELECT n_nationkey,
       (n_nationkey - n_nationkey % 4) / 4 AS int_quotient,
       n_nationkey % 4 AS modulo,
       (n_nationkey - 12) % 5 AS neg_modulo,
       abs(n_nationkey - 12) AS abs_diff,
       -n_nationkey * 3 + 1 AS lin
FROM nation
;

-- name: round_and_abs_decimal
SELECT c_custkey, c_acctbal, abs(c_acctbal) AS abs_bal, round(c_acctbal, 0) AS round0, round(c_acctbal / 3, 2) AS round2
FROM customer
WHERE c_custkey <= 20
;

-- name: cast_between_types
SELECT o_orderkey,
       CAST(o_orderkey AS VARCHAR) AS key_str,
       CAST(o_orderdate AS VARCHAR) AS date_str,
       CAST(o_totalprice AS DOUBLE) AS price_dbl,
       CAST(o_custkey AS DECIMAL(12, 2)) AS cust_dec,
       CAST(o_totalprice AS DECIMAL(20, 4)) AS price_wide,
       CAST(o_shippriority AS BIGINT) AS prio_big,
       CAST('42' AS INTEGER) + o_shippriority AS forty_two,
       CAST('1996-02-29' AS DATE) AS leap_day
FROM orders
WHERE o_orderkey <= 10
;

-- name: scalar_subquery_uncorrelated
SELECT c_mktsegment, count(*) AS rich
FROM customer
WHERE c_acctbal > (SELECT avg(c_acctbal) FROM customer)
GROUP BY c_mktsegment
;

-- name: correlated_subquery_in_select
SELECT n.n_name,
       (SELECT count(*) FROM supplier s WHERE s.s_nationkey = n.n_nationkey) AS suppliers
FROM nation n
;

-- name: exists_not_exists_uncorrelated
SELECT r_name
FROM region
WHERE EXISTS (SELECT 1 FROM supplier WHERE s_acctbal < 0)
  AND NOT EXISTS (SELECT 1 FROM nation WHERE n_regionkey > 10)
  AND r_regionkey > 1
;

-- name: subquery_in_from
SELECT seg, count(*) AS nations, avg(cnt) AS avg_customers, max(cnt) AS max_customers
FROM (
    SELECT c_mktsegment AS seg, c_nationkey, count(*) AS cnt
    FROM customer
    GROUP BY c_mktsegment, c_nationkey
) t
GROUP BY seg
;

-- name: cte_single
WITH revenue AS (
    SELECT l_suppkey AS supplier_no, sum(l_extendedprice * (1 - l_discount)) AS total_revenue
    FROM lineitem
    WHERE l_shipdate >= DATE '1996-01-01' AND l_shipdate < DATE '1996-04-01'
    GROUP BY l_suppkey
)
SELECT s.s_suppkey, s.s_name, r.total_revenue
FROM supplier s JOIN revenue r ON s.s_suppkey = r.supplier_no
WHERE r.total_revenue = (SELECT max(total_revenue) FROM revenue)
;

-- name: values_list
SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS t(x, y)
;


-- name: null_typed_column
-- DataFusion writes the NULL type as a user-defined type named "null" (no extension URN)
SELECT NULL AS nothing, n_name FROM nation WHERE n_nationkey < 3
;
-- name: f_reads_no_column
SELECT 42 AS k FROM region
;
-- name: f_reads_no_column_under_aggregate
SELECT sum(x) AS s, count(x) AS c FROM (SELECT 7 AS x FROM nation) t
;
-- name: f_reads_no_column_in_subquery
SELECT n_nationkey FROM nation WHERE n_nationkey IN (SELECT 3 FROM region)
;
-- name: f_value_functions_take_their_frame
SELECT n_nationkey, n_regionkey, last_value(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS lv, first_value(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS fv, nth_value(n_nationkey, 2) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS nv, last_value(n_nationkey) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey) AS lv_default, first_value(n_name) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey DESC) AS fv_default FROM nation
;
-- name: f_decimal_mean_over_a_window
SELECT n_nationkey, avg(CAST(n_nationkey AS DECIMAL(10,2))) OVER (PARTITION BY n_regionkey) AS a, avg(CAST(n_nationkey AS DECIMAL(10,2))) OVER (PARTITION BY n_regionkey ORDER BY n_nationkey ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS moving, avg(DISTINCT CAST(n_regionkey AS DECIMAL(10,2))) AS overall FROM nation GROUP BY n_nationkey, n_regionkey
;
-- name: f_literal_of_a_wide_scale
SELECT n_nationkey, CAST(3 AS DECIMAL(38,30)) AS a FROM nation WHERE n_nationkey < 2
;
-- name: f_case_on_null
SELECT n_nationkey, CASE WHEN NULL THEN 1 ELSE 2 END AS c FROM nation WHERE n_nationkey < 3
;
-- name: f_rank_over_no_order
SELECT count(*) AS c, max(rn) AS m, min(r) AS r FROM (SELECT row_number() OVER () AS rn, rank() OVER (PARTITION BY n_regionkey) AS r FROM nation) t
;

-- name: date_plus_whole_days
-- DataFusion's analyzer writes date + 1 as a cast of seconds to a day interval, cast to a compound one
SELECT o_orderkey, o_orderdate + 1 AS next_day, o_orderdate - 30 AS month_before FROM orders WHERE o_orderkey < 20
;

-- name: round_double_places
-- 1.005 is 1.00499999999999989...: rounded to two places it is 1.0 (Spark rounds its shortest text, 1.01)
SELECT x, round(x, 2) AS r2, round(x, 1) AS r1, round(-x, 2) AS rn, round(x, 0) AS r0 FROM (VALUES (1.005e0), (2.675e0), (0.125e0), (1.45e0), (1234.5678e0), (0.285e0), (-0.5e0), (1e300), (123456789.125e0)) t(x)
;

-- name: round_double_column_places
SELECT l_orderkey, round(l_extendedprice * l_discount / 7, 2) AS r, round(avg(l_quantity * 1.0e0), 3) AS a FROM lineitem WHERE l_orderkey < 200 GROUP BY l_orderkey, l_extendedprice, l_discount ORDER BY 1, 2 LIMIT 50
;

-- name: cast_double_decimal
-- a float to a decimal rounds the float's value (1.005 to 1.00), not its shortest text
SELECT x, CAST(x AS DECIMAL(10,2)) AS d, CAST(x AS DECIMAL(5,0)) AS d0, CAST(x AS DECIMAL(20,6)) AS d6 FROM (VALUES (1.005e0), (2.5e0), (-2.5e0), (0.125e0), (-0.994e0), (12345.1234565e0), (0.0000005e0)) t(x)
;

-- name: extreme_dates
-- PySpark's conversion of a Python date fails before 1582: date literals go to Spark as text
SELECT r_regionkey, DATE '0001-01-01' AS lo, DATE '9999-12-31' AS hi, DATE '1582-10-10' AS gap FROM region WHERE r_regionkey < 2
;
