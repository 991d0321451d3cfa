DROP TABLE cached_collections;
DROP TABLE cached_records;
