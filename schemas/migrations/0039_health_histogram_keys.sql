-- The daily health rollup's RSSI histogram is keyed to the nearest half dB within +-255 dB (fleet/health-day.ts
-- histogramKey; docs/decisions.md#review-of-the-held-clear-and-the-rollup): a count per distinct reading let one
-- device grow its day row by a pair per check-in, rewritten whole by every batch. Rows written before (the
-- back-fill of 0033 and persist's folds since) are keyed the same way here, so every row follows one rule.
update device_health_days d set (rssi_values, rssi_counts) = (
  select coalesce(array_agg(k order by k), '{}'), coalesce(array_agg(n order by k), '{}')
    from (select floor(least(greatest(v, -255), 255) * 2 + 0.5) / 2 as k, sum(c)::integer as n
            from unnest(d.rssi_values, d.rssi_counts) u(v, c) group by 1) x)
 where exists (select 1 from unnest(d.rssi_values) v where v is distinct from floor(least(greatest(v, -255), 255) * 2 + 0.5) / 2);
