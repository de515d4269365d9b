//! fio's value syntax: sizes and `kb_base`, times with a default unit,
//! booleans, percentages, ranges, per-direction lists and arithmetic in
//! parentheses (fio HOWTO "Parameter types").
