-- Redelivery on demand: a partner has a DEAD or DELIVERED delivery sent again with a fresh retry
-- schedule, and each such request stays in the delivery's trail.
ALTER TABLE webhook_deliveries
    -- Attempts made before the latest redelivery: the attempt limit counts from there.
    ADD COLUMN attempts_before_redelivery integer NOT NULL DEFAULT 0;

CREATE TABLE webhook_redeliveries (
    delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    -- Only a delivery attempted since its last redelivery is redelivered, so this grows.
    attempts_before integer NOT NULL,
    requested_at timestamptz NOT NULL,
    PRIMARY KEY (delivery_id, attempts_before)
);
