DROP TABLE export_workers;
DROP TABLE download_fetches;
DROP TABLE export_files;
DROP TABLE exports;
