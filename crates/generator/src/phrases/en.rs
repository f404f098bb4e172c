//! English. Aspects are noun phrases that follow a preposition ("about our pricing"); frames never
//! start with the aspect, so no capitalisation is needed.

use super::{Language, Wording};

pub(super) const ENGLISH: Language = Language {
    code: "en",
    aspects: [
        "our service",
        "our staff",
        "our speed and responsiveness",
        "our pricing",
        "our communication",
        "the quality of our products",
        "our customer support",
        "our delivery",
        "our website",
        "our availability",
    ],
    formal: Wording {
        title: ["Feedback survey", "Customer survey", "Your opinion"],
        csat: [
            "Overall, how satisfied are you with our service?",
            "Overall, how would you rate your experience with us?",
            "All things considered, what score would you give us?",
        ],
        ratings: [
            "How likely are you to recommend us to a friend or colleague?",
            "How easy was it to get what you needed from us?",
            "How would you rate the friendliness and professionalism of our staff?",
            "How would you rate the value for money we offer?",
            "How would you rate our speed and responsiveness?",
            "How likely are you to choose us again?",
        ],
        standalones: [
            "What is the main reason for your rating?",
            "If you could change one thing about us, what would it be?",
            "What do you appreciate most about us?",
        ],
        closing: "Is there anything else you would like to tell us?",
        frames: [
            "What did you like most about {aspect}?",
            "What should we improve about {aspect}?",
            "How did {aspect} compare with your expectations?",
            "Please describe a recent experience with {aspect}.",
            "Was anything about {aspect} unclear or frustrating? Please tell us more.",
            "What one change to {aspect} would make the biggest difference for you?",
            "What do we do particularly well when it comes to {aspect}?",
            "What, if anything, disappointed you about {aspect}?",
        ],
    },
    informal: Wording {
        title: ["Quick feedback", "A quick survey", "What do you think?"],
        csat: [
            "All in all, how happy are you with our service?",
            "How would you rate your experience with us overall?",
            "If you had to score us, how many stars would we get?",
        ],
        ratings: [
            "How likely are you to recommend us to a friend?",
            "How easy did we make things for you?",
            "How friendly and helpful was our team?",
            "How fair do our prices feel for what you get?",
            "How quickly did we get back to you?",
            "How likely are you to come back to us?",
        ],
        standalones: [
            "What's the main reason for your rating?",
            "If you could change one thing about us, what would it be?",
            "What do you love most about us?",
        ],
        closing: "Anything else you'd like to tell us?",
        frames: [
            "What did you love most about {aspect}?",
            "What could we do better with {aspect}?",
            "Did {aspect} live up to what you hoped for? Tell us why.",
            "Got a story about {aspect}? We'd love to hear it.",
            "Was anything about {aspect} confusing or annoying?",
            "If you could change one thing about {aspect}, what would it be?",
            "What are we getting right with {aspect}?",
            "Did anything about {aspect} let you down?",
        ],
    },
};
