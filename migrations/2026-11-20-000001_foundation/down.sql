DROP TABLE quota_windows;
DROP TABLE idempotency_keys;
DROP TABLE api_key_workspaces;
DROP TABLE api_keys;
DROP TABLE service_accounts;
DROP TABLE workspaces;
DROP TABLE businesses;
