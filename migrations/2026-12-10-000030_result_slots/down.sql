DROP TRIGGER result_sessions_slotted_deleted ON result_sessions;
DROP TRIGGER result_sessions_slotted_inserted ON result_sessions;
DROP FUNCTION slot_result_sessions();
DROP FUNCTION result_trend_metric(text);
DROP TABLE result_slot_counts;
DROP TRIGGER result_sessions_slotted ON result_sessions;
DROP FUNCTION result_sessions_slot();
ALTER TABLE result_sessions DROP COLUMN completed_slot;
