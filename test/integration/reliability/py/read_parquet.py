# Reads a Parquet file with pyarrow (a reader that is not faultline's) and prints its schema, row groups and
# rows as JSON: timestamps as ISO 8601 UTC with milliseconds, like the API's.
import json
import sys

import pyarrow.parquet as pq

# read_table, not ParquetFile.read: pyarrow 18's ParquetFile.read fails on a file with no row groups (an empty
# export), which read_table reads as an empty table.
f = pq.ParquetFile(sys.argv[1])
table = pq.read_table(sys.argv[1])

def value(v):
    if hasattr(v, 'isoformat'):
        return v.astimezone(__import__('datetime').timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.') + f'{v.microsecond // 1000:03d}Z'
    return v

print(json.dumps({
    'columns': [{'name': field.name, 'type': str(field.type)} for field in table.schema],
    'rowGroups': f.metadata.num_row_groups,
    'rows': [{k: value(v) for k, v in row.items()} for row in table.to_pylist()],
}))
