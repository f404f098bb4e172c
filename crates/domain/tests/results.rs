//! Aggregate results: the floor, the differencing guard, quotes, languages, scope and filters.

use crate::common::lab::*;
use crate::common::*;
use futures_executor::block_on;
use pulse_domain::campaigns::models::{LaunchInput, QualityInput};
use pulse_domain::error::ErrorCode;
use pulse_domain::ids::CampaignId;
use pulse_domain::results::models::{CampaignResults, QuotesState, ResultsFilter, SentimentLabel, Suppression};
use pulse_domain::tenancy::service::KeyRequest;
use secrecy::ExposeSecret;
use serde_json::json;

#[test]
fn the_floor_hides_breakdowns_of_small_groups_and_keeps_counts() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for _ in 0..4 {
        respond(&l.w, &p, &campaign, 5, "great delivery", 60);
    }
    block_on(l.analysis.run_due()).expect("ran");
    let hidden = results_of(&l, &p, campaign.id, &[]);
    assert!(hidden.floor_applied);
    assert_eq!(hidden.methodology.suppression, Some(Suppression::GroupBelowFloor));
    assert_eq!((hidden.accepted_count, hidden.anonymity_floor), (4, 5));
    assert!(hidden.sentiment.is_empty() && hidden.themes.is_empty() && hidden.csat.is_none());
    assert!(hidden.questions.iter().all(|q| q.rating.is_none() && q.sentiment.is_empty() && q.themes.is_empty()));
    assert_eq!(hidden.questions[0].answered, 4, "counts stay");
    assert_eq!(hidden.metrics.median_duration_secs, None);

    respond(&l.w, &p, &campaign, 2, "late delivery, bad", 60);
    block_on(l.analysis.run_due()).expect("ran");
    let shown = results_of(&l, &p, campaign.id, &[]);
    assert!(!shown.floor_applied);
    let count = |label| shown.sentiment.iter().find(|c| c.label == label).map(|c| c.count);
    assert_eq!(count(SentimentLabel::Positive), Some(4));
    assert_eq!(count(SentimentLabel::Negative), Some(1));
    assert_eq!(count(SentimentLabel::Neutral), Some(0));
    let csat = shown.csat.expect("csat");
    assert_eq!((csat.satisfied, csat.rated, csat.score), (4, 5, 0.8));
    assert_eq!(shown.themes[0].theme, "delivery");
    assert_eq!(shown.themes[0].count, 5);
    assert!(shown.themes.iter().all(|t| t.count >= 2), "a phrase of one session is not a theme");
    assert_eq!(shown.inferred.dominant_sentiment, Some(SentimentLabel::Positive));
    assert!(shown.inferred.positive_themes.contains(&"great".to_owned()));
    assert_eq!(shown.quotes, vec![], "no quotes without channel:transcripts");
    assert_eq!(shown.methodology.quotes, QuotesState::NotPermitted);
}

#[test]
fn a_filter_cannot_isolate_a_small_group_by_difference() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for _ in 0..6 {
        respond(&l.w, &p, &campaign, 5, "great", 60);
    }
    respond_with(&l.w, &p, &campaign, &[("plan", "free")], &[("q1", json!(1)), ("q2", json!("bad"))], 60);
    block_on(l.analysis.run_due()).expect("ran");

    let everyone = results_of(&l, &p, campaign.id, &[]);
    assert!(!everyone.floor_applied);
    let pro = results_of(&l, &p, campaign.id, &[("attribute.plan", "pro")]);
    assert_eq!(pro.accepted_count, 6);
    assert!(pro.floor_applied, "the one free respondent would show as the difference");
    assert_eq!(pro.methodology.suppression, Some(Suppression::ComplementBelowFloor));
    assert!(pro.sentiment.is_empty());
    let free = results_of(&l, &p, campaign.id, &[("attribute.plan", "free")]);
    assert_eq!((free.accepted_count, free.methodology.suppression), (1, Some(Suppression::GroupBelowFloor)));
    let ios = results_of(&l, &p, campaign.id, &[("platform", "IOS")]);
    assert_eq!((ios.accepted_count, ios.floor_applied), (7, false), "a filter that leaves nobody out shows all");
    assert!(ios.filter.is_some());
    let nobody = results_of(&l, &p, campaign.id, &[("appVersion", "9.9")]);
    assert_eq!((nobody.accepted_count, nobody.floor_applied), (0, true));
}

#[test]
fn quotes_need_the_transcripts_scope_and_are_redacted() {
    let l = lab();
    let p = quoting_partner(&l.w);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for text in ["great service", "good food", "great", "bad and late, mail me at ada@example.com", "good"] {
        respond(&l.w, &p, &campaign, 4, text, 60);
    }
    block_on(l.analysis.run_due()).expect("ran");
    let results = results_of(&l, &p, campaign.id, &[]);
    assert_eq!(results.methodology.quotes, QuotesState::Included);
    let texts: Vec<&str> = results.quotes.iter().map(|q| q.text.as_str()).collect();
    assert_eq!(texts.len(), 3);
    assert!(texts.contains(&"bad and late, mail me at [email]"), "{texts:?}");
    assert!(!format!("{results:?}").contains("ada@example.com"));
    assert!(results.quotes.iter().all(|q| q.question_id == "q2"));
}

/// A Hindi session that rates 5 and writes `text`, analyzed: the campaign's results.
fn hindi_session_writing(text: &str) -> CampaignResults {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let input = LaunchInput {
        campaign_id: campaign.id,
        external_user_ref: None,
        language: Some("hi".into()),
        device: None,
        attributes: None,
    };
    let link = block_on(l.w.campaigns.mint_link(&p.principal, None, input)).expect("minted");
    let session = started(start(&l.w, &campaign.code, token_visit(&lt_of(&link.url))));
    assert_eq!(session.language.as_str(), "hi");
    let token = session.token.expose_secret().to_owned();
    let answers = vec![answer("q1", json!(5)), answer("q2", json!(text))];
    block_on(l.w.respondents.answer(&campaign.code, session.id, Some(&token), answers)).expect("answered");
    block_on(l.w.respondents.complete(&campaign.code, session.id, Some(&token))).expect("completed");
    block_on(l.analysis.run_due()).expect("ran");
    results_of(&l, &p, campaign.id, &[])
}

#[test]
fn languages_the_model_does_not_cover_get_no_score() {
    let results = hindi_session_writing("bahut accha");
    assert_eq!((results.metrics.scored_answers, results.metrics.unscored_answers), (0, 1));
    assert_eq!(results.methodology.languages_scored, []);
    assert_eq!(results.methodology.answers_in_other_language, 0);
}

#[test]
fn an_answer_is_scored_in_the_language_it_is_written_in() {
    let results = hindi_session_writing("lang:en great delivery");
    assert_eq!((results.metrics.scored_answers, results.metrics.unscored_answers), (1, 0));
    assert_eq!(results.methodology.languages_scored, [("en".to_owned(), 1)]);
    assert_eq!(results.methodology.answers_in_other_language, 1);
}

#[test]
fn closed_links_count_the_invited_respondent_as_responded() {
    let l = lab();
    let p = partner(&l.w, true);
    let draft = provision(&l.w, &p, brief());
    let invited = attach(&l.w, &p, draft.campaign.id, vec![row("r-1", None), row("r-2", None)]);
    let campaign = launch(&l.w, &p, draft.campaign.id).expect("launched").campaign;
    let session = started(start(&l.w, &campaign.code, invitation_visit(&nonce_of(&invited[0].invitation_url))));
    let token = session.token.expose_secret().to_owned();
    block_on(l.w.respondents.answer(&campaign.code, session.id, Some(&token), vec![answer("q1", json!(3))]))
        .expect("answered");
    assert_eq!(counts(&l.w, &p, campaign.id).responded, 0, "started is not responded");
    block_on(l.w.respondents.complete(&campaign.code, session.id, Some(&token))).expect("completed");
    let counts = counts(&l.w, &p, campaign.id);
    assert_eq!((counts.invited, counts.responded, counts.started, counts.completed), (2, 1, 1, 1));
    assert_eq!(
        code_of(start(&l.w, &campaign.code, invitation_visit(&nonce_of(&invited[0].invitation_url)))),
        ErrorCode::LaunchTokenInvalid
    );
}

#[test]
fn results_are_for_the_campaigns_workspace_and_scope_only() {
    let l = lab();
    let p = partner(&l.w, true);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    let stranger = partner(&l.w, true);
    assert_eq!(code_of(block_on(l.results.results(&stranger.principal, None, campaign.id, None))), ErrorCode::NotFound);
    assert_eq!(
        code_of(block_on(l.results.results(&p.principal, None, CampaignId::new_random(), None))),
        ErrorCode::NotFound
    );
    let request = KeyRequest {
        business_id: Some(p.business),
        scopes: vec!["channel:provision".into()],
        workspaces: vec![p.workspace],
        ..KeyRequest::default()
    };
    let issued = block_on(l.w.admin.create_key(request)).expect("key");
    let narrow = block_on(l.w.tenancy.authenticate(Some(issued.key.expose_secret()))).expect("principal");
    assert_eq!(
        code_of(block_on(l.results.results(&narrow, None, campaign.id, None))),
        ErrorCode::InsufficientPermission
    );
}

#[test]
fn filters_are_checked() {
    let parse = |pairs: &[(&str, &str)]| {
        let params: Vec<(String, String)> = pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
        ResultsFilter::parse(&params)
    };
    assert_eq!(parse(&[]).expect("none"), None);
    let filter = parse(&[("platform", "ios"), ("tag", "beta"), ("tag", "vip"), ("attribute.plan", "pro")])
        .expect("ok")
        .expect("some");
    assert_eq!(filter.tags, vec!["beta", "vip"]);
    // The form a generated client can send: `attribute=<name>:<value>`, split at the first colon.
    let both = parse(&[("attribute", "plan:pro"), ("attribute", "url:https://example.com"), ("attribute.seats", "3")])
        .expect("ok")
        .expect("some");
    let attributes: Vec<(&str, &str)> = both.attributes.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(attributes, vec![("plan", "pro"), ("seats", "3"), ("url", "https://example.com")]);
    let repeated = parse(&[("attribute", "plan:pro"), ("attribute.plan", "pro")]).expect("ok").expect("some");
    assert_eq!(repeated.attributes.len(), 1, "the same pair twice is one filter");
    for (bad, field, why) in [
        (vec![("attribute", "plan")], "attribute", "must be <name>:<value>"),
        (vec![("attribute", ":pro")], "attribute", "needs an attribute name"),
        (vec![("attribute", "plan:")], "attribute", "needs a value"),
        (vec![("attribute", "plan:pro"), ("attribute.plan", "free")], "attribute.plan", "already given another value"),
    ] {
        let message = parse(&bad).expect_err("refused").to_string();
        assert!(message.contains(field) && message.contains(why), "{message} should name {field}: {why}");
    }
    for (bad, field) in [
        (vec![("colour", "red")], "colour"),
        (vec![("platform", "")], "platform"),
        (vec![("platform", "ios"), ("platform", "android")], "platform"),
        (vec![("attribute.", "x")], "attribute."),
        (vec![("appVersion", "x".repeat(201).leak() as &str)], "appVersion"),
    ] {
        let message = parse(&bad).expect_err("refused").to_string();
        assert!(message.contains(field), "{message} should name {field}");
    }
    let tags: Vec<(&str, String)> = (0..9).map(|i| ("tag", format!("t{i}"))).collect();
    let tags: Vec<(&str, &str)> = tags.iter().map(|(k, v)| (*k, v.as_str())).collect();
    assert!(parse(&tags).is_err());
}

#[test]
fn sessions_without_a_tally_count_as_pending_until_the_worker_catches_up() {
    let l = lab();
    let p = quoting_partner(&l.w);
    let campaign = campaign_with(&l.w, &p, QualityInput::default());
    for text in ["great service", "good food", "late delivery", "bad food", "great food, good service"] {
        respond(&l.w, &p, &campaign, 4, text, 60);
    }
    block_on(l.analysis.run_due()).expect("ran");
    let tallied = results_of(&l, &p, campaign.id, &[]);
    assert!(!tallied.floor_applied && !tallied.quotes.is_empty());

    l.w.store.forget_result_tallies();
    let untallied = results_of(&l, &p, campaign.id, &[]);
    assert_eq!((untallied.metrics.pending_analysis, untallied.acceptance.analyzed), (5, 0));
    // The worker's next round records them again, with nothing requeued.
    block_on(l.analysis.run_due()).expect("ran");
    assert_eq!(results_of(&l, &p, campaign.id, &[]), tallied);
}
