// /device-records/get-table-columns: column metadata of the tables the read interface serves
// (docs/decisions.md: `{table, column, type, nullable}`), from the live catalogue so it follows migrations.
// Internal columns (audit copies, soft-delete and ingest bookkeeping) are not part of the interface.
import type { ReadEndpoint } from './endpoint.js';

export const SERVED_TABLES = ['device_information', 'device_records', 'event_records', 'dm1_event_records', 'device_currents'] as const;
const INTERNAL_COLUMNS = ['deleted_at', 'created_at', 'updated_at', 'source_message_id', 'ReportedOngoingFault', 'ReportedEventTimestamp', 'TimestampShifted', 'dnp3QueueAddress', 'OrganizationSince'];

export const tableColumns: ReadEndpoint = {
  path: '/get-table-columns',
  summary: 'Database column metadata',
  description: `Columns of ${SERVED_TABLES.join(', ')} as {table, column, type, nullable}, in table and column order.`,
  params: { accepts: [], sortable: {}, filterable: {} },
  schema: 'TableColumn', shape: 'list',
  async run({ pool }) {
    const { rows } = await pool.query<{ table: string; column: string; type: string; nullable: boolean }>(`
      select c.table_name as "table", c.column_name as "column", c.data_type as "type", (c.is_nullable = 'YES') as nullable
        from information_schema.columns c
       where c.table_schema = current_schema() and c.table_name = any($1::text[]) and not (c.column_name = any($2::text[]))
       order by array_position($1::text[], c.table_name::text), c.ordinal_position`, [SERVED_TABLES, INTERNAL_COLUMNS]);
    return { data: rows };
  },
};
