DROP TABLE webhook_redeliveries;
ALTER TABLE webhook_deliveries DROP COLUMN attempts_before_redelivery;
