-- ods-fingerprint-v1 (trino)
-- c0 = id (long: hash)
-- c1 = big (long: hash)
-- c2 = small (integer: hash)
-- c3 = ratio (double: float)
-- c4 = ratio32 (float: float)
-- c5 = amount (decimal(18,2): hash)
-- c6 = precise (decimal(38,10): hash)
-- c7 = label (string: hash)
-- c8 = email (string: hash)
-- c9 = city (string: hash)
-- c10 = active (boolean: hash)
-- c11 = born (date: hash)
-- c12 = seen_at (timestamp: hash)
-- c13 = local_at (timestamp_ntz: hash)
-- c14 = words (array: nulls)
-- c15 = counts (array: nulls)
-- c16 = place (struct: nulls)
-- c17 = attrs (map: nulls)
SELECT
  COUNT(*) AS row_count,
  COUNT(*) - COUNT("id") AS c0_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("id" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c0_hash,
  COUNT(*) - COUNT("big") AS c1_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("big" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c1_hash,
  COUNT(*) - COUNT("small") AS c2_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("small" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c2_hash,
  COUNT(*) - COUNT("ratio") AS c3_nulls,
  COALESCE(SUM(CASE WHEN is_nan("ratio") THEN 1 ELSE 0 END), 0) AS c3_nan,
  COALESCE(SUM(CASE WHEN "ratio" = infinity() THEN 1 ELSE 0 END), 0) AS c3_posinf,
  COALESCE(SUM(CASE WHEN "ratio" = -infinity() THEN 1 ELSE 0 END), 0) AS c3_neginf,
  MIN(CASE WHEN NOT (is_nan("ratio")) AND NOT ("ratio" = infinity()) AND NOT ("ratio" = -infinity()) THEN CAST("ratio" AS DOUBLE) END) AS c3_min,
  MAX(CASE WHEN NOT (is_nan("ratio")) AND NOT ("ratio" = infinity()) AND NOT ("ratio" = -infinity()) THEN CAST("ratio" AS DOUBLE) END) AS c3_max,
  SUM(CASE WHEN NOT (is_nan("ratio")) AND NOT ("ratio" = infinity()) AND NOT ("ratio" = -infinity()) THEN CAST("ratio" AS DOUBLE) END) AS c3_sum,
  COUNT(*) - COUNT("ratio32") AS c4_nulls,
  COALESCE(SUM(CASE WHEN is_nan("ratio32") THEN 1 ELSE 0 END), 0) AS c4_nan,
  COALESCE(SUM(CASE WHEN "ratio32" = infinity() THEN 1 ELSE 0 END), 0) AS c4_posinf,
  COALESCE(SUM(CASE WHEN "ratio32" = -infinity() THEN 1 ELSE 0 END), 0) AS c4_neginf,
  MIN(CASE WHEN NOT (is_nan("ratio32")) AND NOT ("ratio32" = infinity()) AND NOT ("ratio32" = -infinity()) THEN CAST("ratio32" AS DOUBLE) END) AS c4_min,
  MAX(CASE WHEN NOT (is_nan("ratio32")) AND NOT ("ratio32" = infinity()) AND NOT ("ratio32" = -infinity()) THEN CAST("ratio32" AS DOUBLE) END) AS c4_max,
  SUM(CASE WHEN NOT (is_nan("ratio32")) AND NOT ("ratio32" = infinity()) AND NOT ("ratio32" = -infinity()) THEN CAST("ratio32" AS DOUBLE) END) AS c4_sum,
  COUNT(*) - COUNT("amount") AS c5_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("amount" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c5_hash,
  COUNT(*) - COUNT("precise") AS c6_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("precise" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c6_hash,
  COUNT(*) - COUNT("label") AS c7_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8("label")))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c7_hash,
  COUNT(*) - COUNT("email") AS c8_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8("email")))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c8_hash,
  COUNT(*) - COUNT("city") AS c9_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8("city")))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c9_hash,
  COUNT(*) - COUNT("active") AS c10_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CASE WHEN "active" IS NULL THEN NULL WHEN "active" THEN 'true' ELSE 'false' END)))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c10_hash,
  COUNT(*) - COUNT("born") AS c11_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST("born" AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c11_hash,
  COUNT(*) - COUNT("seen_at") AS c12_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST((date_diff('second', TIMESTAMP '1970-01-01 00:00:00', date_trunc('second', CAST("seen_at" AT TIME ZONE 'UTC' AS TIMESTAMP(6)))) * 1000000 + CAST(substr(CAST(CAST("seen_at" AT TIME ZONE 'UTC' AS TIMESTAMP(6)) AS VARCHAR), 21, 6) AS BIGINT)) AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c12_hash,
  COUNT(*) - COUNT("local_at") AS c13_nulls,
  COALESCE(SUM(CAST(from_base(substr(lower(to_hex(md5(to_utf8(CAST((date_diff('second', TIMESTAMP '1970-01-01 00:00:00', date_trunc('second', CAST("local_at" AS TIMESTAMP(6)))) * 1000000 + CAST(substr(CAST(CAST("local_at" AS TIMESTAMP(6)) AS VARCHAR), 21, 6) AS BIGINT)) AS VARCHAR))))), 1, 15), 16) AS DECIMAL(38,0))), 0) AS c13_hash,
  COUNT(*) - COUNT("words") AS c14_nulls,
  COUNT(*) - COUNT("counts") AS c15_nulls,
  COUNT(*) - COUNT("place") AS c16_nulls,
  COUNT(*) - COUNT("attrs") AS c17_nulls
FROM delta_table
