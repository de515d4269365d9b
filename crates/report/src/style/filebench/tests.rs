//! Tests of filebench's layout.
