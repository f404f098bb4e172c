DROP TABLE answers;
DROP TABLE sessions;
DROP TABLE spent_launch_tokens;
DROP TABLE launch_links;
DROP TABLE launch_keys;
DROP TABLE respondents;
DROP TABLE campaigns;
DROP TABLE surveys;
