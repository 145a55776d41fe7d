"""Writes Parquet files with pyarrow for tests/parquet.rs (run only where pyarrow is installed).

usage: pyarrow_write.py IN.jsonl OUT.parquet CODEC [categorical-column ...]
Rows are read from JSON Lines; nested objects become structs and lists as pyarrow infers them,
the named columns are dictionary-encoded (pandas' categoricals), and CODEC is the compression.
"""
import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq

source, target, codec, *categorical = sys.argv[1:]
with open(source, encoding="utf-8") as f:
    rows = [json.loads(line) for line in f if line.strip()]
# from_pylist takes its columns from the first row only: give every row every key.
keys = list(dict.fromkeys(k for row in rows for k in row))
table = pa.Table.from_pylist([{k: row.get(k) for k in keys} for row in rows])
for name in categorical:
    i = table.schema.get_field_index(name)
    table = table.set_column(i, name, table.column(name).dictionary_encode())
pq.write_table(table, target, compression=codec)
