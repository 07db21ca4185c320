"""Run folders that leave verstehen: Inspect logs, CSV/Parquet tables, pandas data frames
(`verstehen export`, `records_frame`, `to_frame`). inspect_ai, pandas and pyarrow are optional
extras, imported only by the functions that need them."""
