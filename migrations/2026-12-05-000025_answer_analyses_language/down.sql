ALTER TABLE answer_analyses DROP COLUMN language, DROP COLUMN other_language;
