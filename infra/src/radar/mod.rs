//! Reading the CW Dashboard Radar page into a `domain::radar::RadarSnapshot`. The page is
//! parsed with `scraper` (html5ever, no regular expressions over markup) under explicit bounds
//! (page bytes, rows, cells per row, text per cell, items per list); the row's and cells'
//! classes decide what a row means and anything unrecognised is skipped, never guessed. An
//! expired session answers 200 with a sign-in form, so sign-in is detected by content. The
//! read itself (`fetch`) sends only the server PC's stored Radar session to the fixed address.

mod fetch;
mod parse;

pub use fetch::{
    check_session, production_source, read_page, read_session, store_session, RadarClient, RadarRead, RadarSource,
    MAX_SESSION_BYTES, RADAR_PATH, SESSION_FILE,
};
pub use parse::{parse_page, RadarPage, MAX_CELLS_PER_ROW, MAX_PAGE_BYTES, MAX_ROWS};

#[cfg(test)]
mod fetch_tests;
