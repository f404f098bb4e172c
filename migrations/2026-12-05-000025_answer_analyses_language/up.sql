-- The language an answer was read in, identified from its text, and whether it is another than
-- its session's: results name the languages scored and count the answers read in another one.
-- Rows analysed before this have no language; a nullable column and a constant default change
-- only the catalogue, so the table is not rewritten.
ALTER TABLE answer_analyses
    ADD COLUMN language text,
    ADD COLUMN other_language boolean NOT NULL DEFAULT false;
