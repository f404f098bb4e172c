DROP TABLE spent_challenges;
