DROP TABLE call_recordings;
