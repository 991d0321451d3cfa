//! Reading the CW Dashboard Radar page into a `domain::radar::RadarSnapshot`. The page is
//! parsed with `scraper` (html5ever, no regular expressions over markup) under explicit bounds
//! (page bytes, rows, cells per row, text per cell, items per list); the row's and cells'
//! classes decide what a row means and anything unrecognised is skipped, never guessed. An
//! expired session answers 200 with a sign-in form, so sign-in is detected by content. The
//! fetch with the server PC's Radar cookies is the radar actor's; nothing here does IO.

mod parse;

pub use parse::{parse_page, RadarPage, MAX_CELLS_PER_ROW, MAX_PAGE_BYTES, MAX_ROWS};
