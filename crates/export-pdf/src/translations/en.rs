//! The report in English.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "Feedback report",
    campaign: "Campaign",
    page: "Page {page} of {pages}",
    summary: "Summary",
    about: "About this study",
    questions_asked: "Questions asked",
    analyzers: "Analyzers",
    funnel: "Response funnel",
    csat: "Satisfaction (CSAT)",
    sentiment: "Sentiment of written answers",
    per_question: "Per-question scores",
    themes: "Themes",
    leaves_out: "What this report leaves out",
    period: "Period",
    invited: "Invited",
    responded: "Responded",
    started: "Started",
    completed: "Completed",
    accepted: "Accepted",
    rejected: "Rejected",
    languages_scored: "Languages scored",
    none_yet: "none yet",
    anonymity_floor: "Anonymity floor",
    floor: counted("{n} accepted response", "{n} accepted responses"),
    floor_applied: "applied: breakdowns withheld",
    kinds: Kinds { rating: "rating", text: "text" },
    colon: ": ",
    rejections: [
        (TooFast, "too fast"),
        (LowCoverage, "too few questions answered"),
        (TooFewWords, "too few words"),
        (OverCapacity, "over the response limit"),
    ],
    of_started: "{percent} of started",
    funnel_note: "Invited and responded count the attached audience; started, completed and accepted count \
                  sessions, including open links.",
    no_rating: "No 1 to 5 rating was given.",
    csat_share: counted(
        "{percent} of {n} rating in the top two points",
        "{percent} of {n} ratings in the top two points",
    ),
    satisfied: "Satisfied (4 or 5)",
    other_ratings: "Other ratings",
    sentiments: [(Positive, "Positive"), (Neutral, "Neutral"), (Negative, "Negative")],
    not_scored: "No written answer has been scored yet: see the languages scored above.",
    withheld: counted(
        "Withheld: fewer than {n} response was accepted, so breakdowns are not shown to protect respondents.",
        "Withheld: fewer than {n} responses were accepted, so breakdowns are not shown to protect respondents.",
    ),
    answers: counted("{n} answer", "{n} answers"),
    mean: "Mean {mean} on a scale of {min} to {max}",
    question_themes: "Themes:",
    no_theme: "No theme was mentioned.",
    themes_note: "Responses that mention each theme.",
    exclusions: &[],
    date: "{day} {month} {year}",
    first_day: "1",
    months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
    not_launched: "not launched; as of {end}",
    statuses: ["draft, not launched", "collecting", "paused", "closed"],
};
