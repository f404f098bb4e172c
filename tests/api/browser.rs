//! The respondent page in headless Chromium, driven over WebDriver: what a person does with an
//! app's link, from consent to the thank-you screen, then checked through the partner API.
//!
//! Needs `/usr/bin/chromium` and `/usr/bin/chromedriver` (Debian's `chromium` and
//! `chromium-driver`; `.ci/run` installs them). Each step leaves a screenshot under
//! `target/test-artifacts/browser/<test>/`.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use futures_util::FutureExt as _;
use serde_json::{Value, json};

use crate::helpers::campaigns::{CAMPAIGN_SCOPES, code_of, id_of};
use crate::helpers::{TestApp, captured_logs, envelope, free_port, spawn_app, spawn_app_with};
use crate::outreach::{MailServer, eventually, outreach_app};
use crate::receiver::Receiver;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How long a screen may take to appear; generous for a loaded CI machine, never slept.
const WAIT: Duration = Duration::from_secs(20);

/// ChromeDriver on a loopback port, and the browser profile it uses. Dropping it stops the driver
/// and removes the profile, whether the test passed or not.
struct Driver {
    child: Child,
    port: u16,
    profile: PathBuf,
}

impl Drop for Driver {
    fn drop(&mut self) {
        // Errors here only mean the process or directory is gone already.
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Driver {
    async fn start(artifacts: &Path) -> Self {
        for binary in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                Path::new(binary).exists(),
                "{binary} is missing: the browser tests need Debian's chromium and chromium-driver \
                 (`apt-get install chromium chromium-driver`; .ci/run installs them)"
            );
        }
        static PROFILES: AtomicUsize = AtomicUsize::new(0);
        let profile = std::env::temp_dir().join(format!(
            "pulse-browser-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&profile).expect("a browser profile directory");
        // A port that was free a moment ago; chromedriver binds it right away.
        let port = free_port();
        let log = std::fs::File::create(artifacts.join("chromedriver.log")).expect("chromedriver log");
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(log.try_clone().expect("log handle"))
            .stderr(log)
            .spawn()
            .expect("start chromedriver");
        let mut driver = Self { child, port, profile };
        driver.wait_until_ready(artifacts).await;
        driver
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Polls `/status` until chromedriver answers ready, failing with its log when it exits first.
    async fn wait_until_ready(&mut self, artifacts: &Path) {
        let client = reqwest::Client::new();
        let deadline = Instant::now() + WAIT;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                let log = std::fs::read_to_string(artifacts.join("chromedriver.log")).unwrap_or_default();
                panic!("chromedriver exited ({status}) before answering:\n{log}");
            }
            let ready = match client.get(format!("{}/status", self.url())).send().await {
                Ok(response) => response.json::<Value>().await.is_ok_and(|b| b["value"]["ready"] == json!(true)),
                Err(_) => false,
            };
            if ready {
                return;
            }
            assert!(Instant::now() < deadline, "chromedriver did not answer on port {} within {WAIT:?}", self.port);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// A browser session; `javascript: false` turns scripts off, as a person may have.
    async fn session(&self, javascript: bool) -> Client {
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            // A phone-sized window: the page is built mobile first.
            "--window-size=412,915",
            // Screens fade in unless the person asks for less motion, and WebDriver reads no text
            // from an element still fading in: the tests ask for less motion, as some people do.
            "--force-prefers-reduced-motion",
        ];
        let mut args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        args.push(format!("--user-data-dir={}", self.profile.display()));
        let mut capabilities = serde_json::Map::new();
        capabilities.insert("browserName".to_owned(), json!("chrome"));
        let mut options = json!({"binary": CHROMIUM, "args": args});
        if !javascript {
            options["prefs"] = json!({"profile.managed_default_content_settings.javascript": 2});
        }
        capabilities.insert("goog:chromeOptions".to_owned(), options);
        capabilities.insert("goog:loggingPrefs".to_owned(), json!({"browser": "ALL"}));
        ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(capabilities)
            .connect(&self.url())
            .await
            .expect("a Chromium session")
    }
}

/// A Chromium session of one test, numbering its screenshots.
struct Browser {
    client: Client,
    driver: Driver,
    artifacts: PathBuf,
    step: AtomicU32,
}

impl Browser {
    async fn open(test: &str) -> Self {
        Self::open_with(test, true).await
    }

    async fn open_with(test: &str, javascript: bool) -> Self {
        let artifacts =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/test-artifacts/browser")).join(test);
        // Screenshots of an earlier run would pass for this one's.
        let _ = std::fs::remove_dir_all(&artifacts);
        std::fs::create_dir_all(&artifacts).expect("the artifacts directory");
        let driver = Driver::start(&artifacts).await;
        let client = driver.session(javascript).await;
        Self { client, driver, artifacts, step: AtomicU32::new(0) }
    }

    /// Ends the session and the driver, then fails the test if the scenario did (with a last
    /// screenshot of where it stood).
    async fn close(self, outcome: std::thread::Result<()>) {
        if outcome.is_err() {
            self.screenshot("failed").await;
        }
        let closed = self.client.clone().close().await;
        drop(self.driver);
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
        closed.expect("close the browser");
    }

    async fn screenshot(&self, step: &str) {
        let n = self.step.fetch_add(1, Ordering::Relaxed) + 1;
        let png = self.client.screenshot().await.expect("a screenshot");
        std::fs::write(self.artifacts.join(format!("{n:02}-{step}.png")), png).expect("write the screenshot");
    }

    /// Waits for the element matching `css` to be there.
    async fn wait_for(&self, css: &str) -> Element {
        self.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
            .unwrap_or_else(|e| panic!("waiting for `{css}`: {e}"))
    }

    async fn testid(&self, id: &str) -> Element {
        self.wait_for(&format!("[data-testid=\"{id}\"]")).await
    }

    async fn script(&self, script: &str) -> Value {
        self.client.execute(script, Vec::new()).await.unwrap_or_else(|e| panic!("`{script}`: {e}"))
    }

    async fn text(&self, element: &Element) -> String {
        element.text().await.expect("text")
    }

    /// Everything the page shows as text.
    async fn page_text(&self) -> String {
        self.script("return document.body.innerText;").await.as_str().expect("text").to_owned()
    }

    /// Waits until the page's fonts have loaded, after a layout that makes the browser ask for
    /// the ones the text on screen needs; returns the page's font faces (`family`, `unicodeRange`,
    /// `weight`, `status`) and whether the Devanagari text renders with loaded faces only.
    async fn loaded_fonts(&self) -> Value {
        let script = r#"
            const done = arguments[arguments.length - 1];
            void document.body.offsetHeight;
            document.fonts.ready.then(() => done({
                faces: Array.from(document.fonts, (f) => ({
                    family: f.family.replaceAll('"', ""), unicodeRange: f.unicodeRange, weight: f.weight, status: f.status,
                })),
                devanagari: document.fonts.check('16px "Pulse Sans"', "हिन्दी"),
                family: getComputedStyle(document.querySelector("h1")).fontFamily,
            }));
        "#;
        self.client.execute_async(script, Vec::new()).await.expect("the fonts")
    }

    /// The URLs of everything the page fetched.
    async fn fetched(&self) -> Vec<String> {
        let fetched = self.script("return performance.getEntriesByType('resource').map(e => e.name);").await;
        fetched.as_array().expect("resource names").iter().map(|u| u.as_str().expect("a URL").to_owned()).collect()
    }

    /// The browser's console lines, read from chromedriver (`goog:loggingPrefs`).
    async fn console(&self) -> Vec<Value> {
        let session = self.client.session_id().await.expect("session id").expect("a session");
        let response = reqwest::Client::new()
            .post(format!("{}/session/{session}/se/log", self.driver.url()))
            .json(&json!({"type": "browser"}))
            .send()
            .await
            .expect("the browser log");
        let body: Value = response.json().await.expect("json");
        body["value"].as_array().cloned().unwrap_or_else(|| panic!("log entries in {body}"))
    }

    /// Everything the page fetched came from the test server: no third-party request at all.
    async fn assert_same_origin(&self, app: &TestApp) {
        let fetched = self.fetched().await;
        assert!(!fetched.is_empty());
        for url in fetched {
            assert!(url.starts_with(&format!("{}/", app.address)), "a request left the origin: {url}");
        }
        let problems: Vec<Value> = self
            .console()
            .await
            .into_iter()
            .filter(|e| e["level"] == json!("SEVERE") || e["level"] == json!("WARNING"))
            .collect();
        assert!(problems.is_empty(), "the console has warnings or errors (a refused script or style?): {problems:?}");
    }
}

/// A minted link as served by the test server: helpers build links on `survey_url`, which in
/// tests is not the port the app listens on.
fn on_test_server(app: &TestApp, minted: &str) -> reqwest::Url {
    let minted = reqwest::Url::parse(minted).expect("a link is a URL");
    let mut url = reqwest::Url::parse(&app.url(minted.path())).expect("the test server URL");
    url.set_query(minted.query());
    url
}

#[tokio::test]
async fn a_respondent_opens_the_apps_link_and_answers_every_question() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let registered = app
        .registered(
            &json!({"campaignCode": code, "appId": "com.acme.shop", "platform": "android", "appVersion": "5.2.0"}),
        )
        .await;
    let access_token = registered["accessToken"].as_str().expect("access token").to_owned();
    let minted = app.mint_link(&partner.key.key, &json!({"campaignId": id, "language": "en"})).await;
    assert_eq!(minted.status(), 201);
    let minted: Value = minted.json().await.expect("json");
    let mut url = on_test_server(&app, minted["url"].as_str().expect("url"));
    let launch_token = url.query_pairs().find(|(k, _)| k == "lt").map(|(_, v)| v.into_owned()).expect("lt");
    url.query_pairs_mut().append_pair("inst", registered["installId"].as_str().expect("install id"));
    let without_fragment = url.to_string();
    url.set_fragment(Some(&format!("dt={access_token}")));

    let browser = Browser::open("a_respondent_opens_the_apps_link_and_answers_every_question").await;
    let outcome =
        AssertUnwindSafe(answer_every_question(&app, &browser, url.as_str(), &without_fragment)).catch_unwind().await;
    browser.close(outcome).await;

    let read: Value = app.get_campaign(&partner.key.key, id).await.json().await.expect("json");
    assert_eq!(read["counts"]["completed"], json!(1), "{}", read["counts"]);
    let devices: Value = app.list_devices(&partner.key.key, &[]).await.json().await.expect("json");
    let device = devices["items"]
        .as_array()
        .and_then(|items| items.iter().find(|d| d["deviceId"] == registered["deviceId"]))
        .unwrap_or_else(|| panic!("the device in {devices}"));
    assert_eq!(device["feedbackCount"], json!(1), "the page sent the device token: {device}");
    let installs: Value = app.list_installs(&partner.key.key, id, &[]).await.json().await.expect("json");
    assert_eq!(installs["items"][0]["feedbackCount"], json!(1), "{installs}");
    let spent: Value = app.access(code, &[("lt", &launch_token)]).await.json().await.expect("json");
    assert_eq!(
        (&spent["state"], &spent["refusal"]["code"], &spent["answered"]),
        (&json!("INVALID"), &json!("LAUNCH_TOKEN_INVALID"), &json!(true)),
        "the page spent the launch token on a finished session"
    );
    assert!(!captured_logs().contains(&access_token), "the device token reached a log line");

    // The analysis worker counts the session; one respondent is below the floor.
    let results = app.analyzed_results(&partner.key.key, id, 1).await;
    assert_eq!((&results["acceptedCount"], &results["floorApplied"]), (&json!(1), &json!(true)));
    assert_eq!(results["questions"][0]["answered"], json!(1));
    assert_eq!(results["metrics"]["scoredAnswers"].as_u64().map(|n| n >= 1), Some(true), "{}", results["metrics"]);
}

async fn answer_every_question(app: &TestApp, browser: &Browser, url: &str, without_fragment: &str) {
    browser.client.goto(url).await.expect("open the link");
    let consent = browser.testid("consent-button").await;
    browser.screenshot("consent").await;
    let href = browser.script("return window.location.href;").await;
    assert_eq!(href, json!(without_fragment), "the fragment is gone, the path and query stay");
    assert_eq!(browser.script("return document.documentElement.lang;").await, json!("en"));
    assert_eq!(browser.text(&consent).await, "I agree, start");
    consent.click().await.expect("consent");

    let first = browser.wait_for("[data-testid=screen-question][data-question-index=\"1\"]").await;
    let total: usize =
        first.attr("data-question-total").await.expect("attribute").and_then(|t| t.parse().ok()).expect("a total");
    assert!(total >= 2, "a rating and a text question at least");
    let mut seen = Vec::new();
    for n in 1..=total {
        let screen = browser.wait_for(&format!("[data-testid=screen-question][data-question-index=\"{n}\"]")).await;
        let progress = browser.testid("progress-text").await;
        assert_eq!(browser.text(&progress).await, format!("Question {n} of {total}"));
        let bar = browser.testid("progress-bar").await;
        // The questions before this one are answered; this one is not yet.
        assert_eq!(bar.attr("aria-valuenow").await.expect("attribute"), Some((n - 1).to_string()));
        assert_eq!(bar.attr("aria-valuemax").await.expect("attribute"), Some(total.to_string()));
        let focused = browser.script("return document.activeElement.id;").await;
        assert_eq!(focused, json!("question-text"), "focus moves to the new question");
        browser.screenshot(&format!("question-{n}")).await;

        let kind = screen.attr("data-question-type").await.expect("attribute").expect("a type");
        let required = screen.attr("data-required").await.expect("attribute") == Some("true".to_owned());
        if required && !seen.contains(&kind) {
            // A required question insists, politely and accessibly.
            browser.testid("next-button").await.click().await.expect("next without an answer");
            let error = browser.wait_for("[data-testid=question-error]:not(:empty)").await;
            assert_eq!(error.attr("role").await.expect("attribute").as_deref(), Some("alert"));
            browser.screenshot(&format!("question-{n}-required")).await;
        }
        match kind.as_str() {
            "rating" => {
                let options =
                    browser.client.find_all(Locator::Css("[data-testid^=rating-option-]")).await.expect("options");
                options.last().expect("a scale").click().await.expect("the highest rating");
            }
            "text" => {
                let answer = browser.testid("text-answer").await;
                answer.send_keys("Quick, friendly and delightful. Thank you!").await.expect("type");
                let counter = browser.testid("text-counter").await;
                assert_eq!(browser.text(&counter).await, "42 of 4000 characters");
            }
            other => panic!("a question of type {other}"),
        }
        seen.push(kind);
        browser.screenshot(&format!("question-{n}-answered")).await;
        browser.testid("next-button").await.click().await.expect("next");
    }
    assert!(seen.iter().any(|k| k == "rating") && seen.iter().any(|k| k == "text"), "{seen:?}");

    let finish = browser.testid("screen-finish").await;
    browser.screenshot("finish").await;
    let heading = finish.find(Locator::Css("h1")).await.expect("a heading");
    assert_eq!(browser.text(&heading).await, "Thank you!");
    assert_eq!(browser.script("return document.activeElement.tagName;").await, json!("H1"));
    browser.assert_same_origin(app).await;
}

#[tokio::test]
async fn a_signed_only_campaign_opened_without_a_token_says_to_open_it_from_the_app() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let (id, code) = (id_of(&campaign), code_of(&campaign));
    let builder = app.studio_token(partner.business, &["campaign:view", "campaign:build"]).await;
    let response = app.set_launch_access(&builder, id, &json!({"requireSigned": true})).await;
    assert_eq!(response.status(), 200);

    let browser = Browser::open("a_signed_only_campaign_opened_without_a_token_says_to_open_it_from_the_app").await;
    let url = app.url(&format!("/p/{code}?lang=fr"));
    let outcome = AssertUnwindSafe(open_from_the_app(&app, &browser, &url)).catch_unwind().await;
    browser.close(outcome).await;
    assert_eq!(app.count_rows("sessions").await, 0);
}

async fn open_from_the_app(app: &TestApp, browser: &Browser, url: &str) {
    browser.client.goto(url).await.expect("open the link");
    let screen = browser.testid("screen-open-from-app").await;
    browser.screenshot("open-from-the-app").await;
    let heading = screen.find(Locator::Css("h1")).await.expect("a heading");
    assert_eq!(browser.text(&heading).await, "Ouvrez à nouveau ce questionnaire depuis l’application");
    assert_eq!(browser.script("return document.documentElement.lang;").await, json!("fr"));
    let consent = browser.client.find_all(Locator::Css("[data-testid=consent-button]")).await.expect("find");
    assert!(consent.is_empty(), "no consent is offered");
    browser.assert_same_origin(app).await;
}

#[tokio::test]
async fn an_invitation_link_sends_its_nonce_to_start() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.provisioned(&partner.key.key).await;
    let id = id_of(&campaign);
    let rows = json!({"rows": [{"externalRef": "r1"}]});
    let attached: Value = app.attach_respondents(&partner.key.key, id, &rows).await.json().await.expect("json");
    let invitation = attached["rows"][0]["invitationUrl"].as_str().expect("invitation url").to_owned();
    assert_eq!(app.launch_campaign(&partner.key.key, id).await.status(), 200);

    let browser = Browser::open("an_invitation_link_sends_its_nonce_to_start").await;
    let url = on_test_server(&app, &invitation);
    assert!(url.path().starts_with("/s/"), "{url}");
    let outcome = AssertUnwindSafe(start_from_an_invitation(&browser, url.as_str())).catch_unwind().await;
    browser.close(outcome).await;

    let again: Value = app.attach_respondents(&partner.key.key, id, &rows).await.json().await.expect("json");
    assert_eq!(again["rows"][0]["responded"], json!(true), "the page started with the invitation");
}

async fn start_from_an_invitation(browser: &Browser, url: &str) {
    browser.client.goto(url).await.expect("open the link");
    browser.testid("consent-button").await.click().await.expect("consent");
    browser.wait_for("[data-testid=screen-question][data-question-index=\"1\"]").await;
    browser.screenshot("first-question").await;
}

/// The issue's walkthrough, automated: ten people answer through the page with happy and unhappy
/// words; with four the floor hides the breakdown, with ten the results read as the answers do.
#[tokio::test]
async fn ten_people_answer_through_the_page_and_the_results_read_as_their_words_do() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let campaign = app.live_campaign(&partner.key.key).await;
    let id = id_of(&campaign);
    let browser = Browser::open("ten_people_answer_through_the_page_and_the_results_read_as_their_words_do").await;
    let outcome = AssertUnwindSafe(async {
        for (person, answers) in crate::results::TEN.iter().enumerate() {
            let minted = app.mint_link(&partner.key.key, &json!({"campaignId": id})).await;
            assert_eq!(minted.status(), 201);
            let minted: Value = minted.json().await.expect("json");
            answer_as(&browser, on_test_server(&app, minted["url"].as_str().expect("url")).as_str(), person, *answers)
                .await;
            if person == 3 {
                let four = app.analyzed_results(&partner.key.key, id, 4).await;
                assert_eq!((&four["acceptedCount"], &four["floorApplied"]), (&json!(4), &json!(true)));
                assert_eq!(
                    (&four["sentiment"], &four["themes"], &four["csat"]),
                    (&json!([]), &json!([]), &Value::Null)
                );
            }
        }
    })
    .catch_unwind()
    .await;
    browser.close(outcome).await;

    let results = app.analyzed_results(&partner.key.key, id, 10).await;
    assert_eq!((&results["acceptedCount"], &results["floorApplied"]), (&json!(10), &json!(false)));
    let count = |label: &str| {
        results["sentiment"]
            .as_array()
            .expect("sentiment")
            .iter()
            .find(|c| c["label"] == label)
            .map(|c| c["count"].clone())
    };
    assert_eq!((count("POSITIVE"), count("NEGATIVE")), (Some(json!(7)), Some(json!(3))));
    assert_eq!(results["csat"], json!({"score": 0.7, "satisfied": 7, "rated": 10}));
    let themes: Vec<&str> =
        results["themes"].as_array().expect("themes").iter().filter_map(|t| t["theme"].as_str()).collect();
    assert!(themes.iter().any(|t| t.contains("late")) && themes.iter().any(|t| t.contains("driver")), "{themes:?}");
}

/// One person: consent, the rating, the two open answers, finish.
async fn answer_as(browser: &Browser, url: &str, person: usize, answers: (i64, &str, &str)) {
    browser.client.goto(url).await.expect("open the link");
    answer_opened(browser, person, answers).await;
}

/// The same on a page already open.
async fn answer_opened(browser: &Browser, person: usize, (rating, why, improve): (i64, &str, &str)) {
    browser.testid("consent-button").await.click().await.expect("consent");
    browser.wait_for("[data-testid=screen-question][data-question-index=\"1\"]").await;
    browser.testid(&format!("rating-option-{rating}")).await.click().await.expect("rate");
    browser.testid("next-button").await.click().await.expect("next");
    for (n, text) in [(2, why), (3, improve)] {
        browser.wait_for(&format!("[data-testid=screen-question][data-question-index=\"{n}\"]")).await;
        browser.testid("text-answer").await.send_keys(text).await.expect("type");
        browser.testid("next-button").await.click().await.expect("next");
    }
    browser.testid("screen-finish").await;
    browser.screenshot(&format!("person-{:02}-finished", person + 1)).await;
}

/// An invitation as a person gets it: the email arrives at a real SMTP server, its link opens the
/// page in the browser, the person answers, and a thank-you email follows.
#[tokio::test]
async fn an_emailed_invitation_is_answered_in_the_browser_and_thanked() {
    let mail = MailServer::start();
    let provider = Receiver::start().await;
    let app = outreach_app(&mail, &provider).await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let brief = json!({
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["en"]}},
        "delivery": {"channels": ["EMAIL"], "greetByName": true},
    });
    let campaign = app.provision(key, &brief).await.json::<Value>().await.expect("json")["campaign"].clone();
    let row = json!({"rows": [{"externalRef": "p1", "name": "Asha", "email": "asha@example.com"}]});
    assert_eq!(app.attach_respondents(key, id_of(&campaign), &row).await.status(), 200);
    assert_eq!(app.launch_campaign(key, id_of(&campaign)).await.status(), 200);
    let invitation = eventually("the invitation", || mail.messages().into_iter().next()).await;
    let path = invitation.survey_path().expect("the invitation carries a link");

    let browser = Browser::open("an_emailed_invitation_is_answered_in_the_browser_and_thanked").await;
    let answers = (5, "The driver was friendly and quick.", "Nothing, thanks.");
    let outcome = AssertUnwindSafe(answer_as(&browser, &app.url(&path), 0, answers)).catch_unwind().await;
    browser.close(outcome).await;

    let thanks = eventually("the thank-you", || Some(mail.messages()).filter(|m| m.len() == 2)).await;
    assert!(thanks.iter().any(|m| m.subject.starts_with("Thank you") && m.survey_path().is_none()), "{thanks:?}");
}

/// A short English survey, open to anyone with its code.
fn open_survey(quality: Value) -> Value {
    json!({
        "brief": {"intentText": "How was your last delivery with us?", "constraints": {"questionCount": 3, "languages": ["en"]}},
        "quality": quality,
    })
}

/// An open campaign that asks every start for a solved challenge: the page solves the access
/// check's in its worker while the person reads the consent screen, and starts with it.
#[tokio::test]
async fn an_open_campaign_asking_for_a_challenge_is_answered_with_it_solved_in_a_worker() {
    let app = spawn_app().await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let (id, code) = launched(&app, key, &open_survey(json!({"requireChallenge": true}))).await;
    let access: Value = app.access(&code, &[]).await.json().await.expect("json");
    assert_eq!(access["challenge"]["parameters"]["data"]["code"], json!(code), "{access}");
    // Nothing starts without a solution, so the page's session shows it solved one.
    let (status, refusal, _) = envelope(app.start(&code, &json!({"consentGiven": true})).await).await;
    assert_eq!((status, refusal.as_str()), (403, "CHALLENGE_REQUIRED"));

    let test = "an_open_campaign_asking_for_a_challenge_is_answered_with_it_solved_in_a_worker";
    let browser = Browser::open(test).await;
    let url = app.url(&format!("/p/{code}"));
    let outcome = AssertUnwindSafe(async {
        answer_as(&browser, &url, 0, (5, "The driver was friendly and quick.", "Nothing, thanks.")).await;
        report_solve_time(&browser, test).await;
        browser.assert_same_origin(&app).await;
    })
    .catch_unwind()
    .await;
    browser.close(outcome).await;

    let read: Value = app.get_campaign(key, &id).await.json().await.expect("json");
    assert_eq!(read["counts"]["completed"], json!(1), "{}", read["counts"]);
    assert_eq!(app.count_rows("spent_challenges").await, 1, "the page's session spent its solution");
}

/// The open starts from one network pass the hourly rate after the page checked access, which
/// then had no challenge: start refuses the page's first try, and the page solves the challenge of
/// a fresh access check and starts with it.
#[tokio::test]
async fn a_challenge_needed_only_after_the_page_loaded_is_solved_and_start_tried_again() {
    let app = spawn_app_with(|settings| settings.challenges.network_starts_per_hour = Some(1)).await;
    let partner = app.campaign_partner().await;
    let key = &partner.key.key;
    let (id, code) = launched(&app, key, &open_survey(json!({}))).await;

    let test = "a_challenge_needed_only_after_the_page_loaded_is_solved_and_start_tried_again";
    let browser = Browser::open(test).await;
    let url = app.url(&format!("/p/{code}"));
    let outcome = AssertUnwindSafe(async {
        browser.client.goto(&url).await.expect("open the link");
        browser.testid("consent-button").await;
        let access: Value = app.access(&code, &[]).await.json().await.expect("json");
        assert_eq!(access["challenge"], Value::Null, "the first open start needs none: {access}");
        // Someone else on the same network starts first: the page's start is one too many.
        app.started(&code, &json!({})).await;
        answer_opened(&browser, 0, (4, "On time and well packed.", "Nothing, thanks.")).await;
        report_solve_time(&browser, test).await;
    })
    .catch_unwind()
    .await;
    browser.close(outcome).await;

    let read: Value = app.get_campaign(key, &id).await.json().await.expect("json");
    assert_eq!(read["counts"]["completed"], json!(1), "{}", read["counts"]);
    assert_eq!(app.count_rows("sessions").await, 2, "the other start's and the page's");
    assert_eq!(app.count_rows("spent_challenges").await, 1, "the page's session spent its solution");
}

/// Prints how long the page's worker took to solve its challenge, which the page notes on the
/// document element (nothing on screen changes): timings are for the log, never asserted.
#[allow(clippy::print_stderr)]
async fn report_solve_time(browser: &Browser, test: &str) {
    let noted = browser.script("return document.documentElement.dataset.challengeMs ?? null;").await;
    let ms: u64 = noted.as_str().and_then(|ms| ms.parse().ok()).unwrap_or_else(|| panic!("a solve time: {noted}"));
    eprintln!("{test}: Chromium solved the challenge in {ms} ms");
}

/// A partner whose workspace is called `name`, as a person sees it on the consent screen.
async fn partner_named(app: &TestApp, name: &str) -> String {
    let business = app.create_business().await;
    let key = app.create_key(Some(business), &CAMPAIGN_SCOPES).await;
    let response = app.create_org(&key.key, &json!({"externalRef": "shop-1", "name": name})).await;
    assert_eq!(response.status(), 201);
    let body: Value = response.json().await.expect("json");
    app.approve_workspace(body["workspace"]["id"].as_str().expect("id").parse().expect("a uuid")).await;
    key.key
}

/// Provisions `body` and launches it: the campaign's id and code.
async fn launched(app: &TestApp, key: &str, body: &Value) -> (String, String) {
    let provisioned = app.provision(key, body).await;
    let status = provisioned.status();
    let provisioned: Value = provisioned.json().await.expect("json");
    assert_eq!(status, 201, "{provisioned}");
    let launched = app.launch_campaign(key, id_of(&provisioned["campaign"])).await;
    assert_eq!(launched.status(), 200);
    let launched: Value = launched.json().await.expect("json");
    (id_of(&launched).to_owned(), code_of(&launched).to_owned())
}

/// Provisions `body`, launches it and mints a link in `language`: the campaign's code and the
/// link on the test server.
async fn launched_link(app: &TestApp, key: &str, body: &Value, language: &str) -> (String, reqwest::Url) {
    let (id, code) = launched(app, key, body).await;
    let minted = app.mint_link(key, &json!({"campaignId": id, "language": language})).await;
    assert_eq!(minted.status(), 201);
    let minted: Value = minted.json().await.expect("json");
    (code, on_test_server(app, minted["url"].as_str().expect("url")))
}

/// The words of a text, in lower case (apostrophes and hyphens separate words).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

#[tokio::test]
async fn the_consent_screen_says_who_asks_and_a_finished_link_thanks_on_reopening() {
    let app = spawn_app().await;
    let key = partner_named(&app, "Acme Bakery").await;
    let body = json!({
        "name": "Spring check-in",
        "privacyNoticeUrl": "https://acme.example/privacy",
        "brief": {"intentText": "How was your last visit to our bakery?", "constraints": {"questionCount": 4, "languages": ["en"]}},
    });
    let (code, url) = launched_link(&app, &key, &body, "en").await;
    let launch_token = url.query_pairs().find(|(k, _)| k == "lt").map(|(_, v)| v.into_owned()).expect("lt");
    let access: Value = app.access(&code, &[("lt", &launch_token)]).await.json().await.expect("json");
    assert_eq!(access["campaign"]["questionCount"], json!(4), "{access}");
    let minutes = access["campaign"]["estimatedMinutes"].as_u64().expect("an estimate");

    let browser = Browser::open("the_consent_screen_says_who_asks_and_a_finished_link_thanks_on_reopening").await;
    let outcome =
        AssertUnwindSafe(consent_progress_and_thanks(&app, &browser, url.as_str(), minutes)).catch_unwind().await;
    browser.close(outcome).await;
    let again: Value = app.access(&code, &[("lt", &launch_token)]).await.json().await.expect("json");
    assert_eq!((&again["state"], &again["answered"]), (&json!("INVALID"), &json!(true)), "{again}");
}

async fn consent_progress_and_thanks(app: &TestApp, browser: &Browser, url: &str, minutes: u64) {
    browser.client.goto(url).await.expect("open the link");
    let consent = browser.testid("screen-consent").await;
    let heading = consent.find(Locator::Css("h1")).await.expect("a heading");
    assert_eq!(browser.text(&heading).await, "Spring check-in", "the campaign's name");
    let asked_by = browser.testid("consent-asked-by").await;
    assert_eq!(browser.text(&asked_by).await, "Acme Bakery would like your feedback.");
    let length = browser.testid("consent-length").await;
    // An estimate under a minute reads "about 1 minute".
    let minutes = minutes.max(1);
    let unit = if minutes == 1 { "minute" } else { "minutes" };
    assert_eq!(browser.text(&length).await, format!("4 questions, about {minutes} {unit}"));
    let privacy = browser.testid("privacy-link").await;
    assert_eq!(privacy.attr("href").await.expect("href").as_deref(), Some("https://acme.example/privacy"));
    assert_eq!(privacy.attr("target").await.expect("target").as_deref(), Some("_blank"));
    assert_eq!(privacy.attr("rel").await.expect("rel").as_deref(), Some("noopener noreferrer"));
    assert!(browser.text(&privacy).await.starts_with("Read the privacy notice"));
    browser.screenshot("consent").await;
    browser.testid("consent-button").await.click().await.expect("consent");

    let progress = |n: usize| async move {
        let screen = browser.wait_for(&format!("[data-testid=screen-question][data-question-index=\"{n}\"]")).await;
        let bar = browser.testid("progress-bar").await;
        let now = bar.attr("aria-valuenow").await.expect("attribute").expect("a value");
        let width = browser.script("return document.querySelector('.progress-fill').style.width;").await;
        (screen, now, width)
    };
    for n in 1..=4 {
        let (screen, now, width) = progress(n).await;
        // On question n, the n - 1 before it are answered and this one is not.
        assert_eq!(now, (n - 1).to_string(), "question {n}");
        assert_eq!(width, json!(format!("{}%", 25 * (n - 1))), "question {n}");
        assert_eq!(browser.text(&browser.testid("progress-text").await).await, format!("Question {n} of 4"));
        browser.screenshot(&format!("question-{n}")).await;
        match screen.attr("data-question-type").await.expect("attribute").as_deref() {
            Some("rating") => browser.testid("rating-option-4").await.click().await.expect("rate"),
            _ => browser.testid("text-answer").await.send_keys("Warm bread and a kind welcome.").await.expect("type"),
        }
        browser.testid("next-button").await.click().await.expect("next");
        if n == 2 {
            // Back to the second: both answered questions still count, and going on sends nothing new.
            let (_, now, _) = progress(3).await;
            assert_eq!(now, "2");
            browser.testid("back-button").await.click().await.expect("back");
            let (_, now, _) = progress(2).await;
            assert_eq!(now, "2", "an answered question counts when it is on screen again");
            browser.testid("next-button").await.click().await.expect("next");
        }
    }
    browser.testid("screen-finish").await;
    browser.screenshot("finish").await;

    // The same link again: the survey was answered, so the person is thanked, not sent to an app.
    browser.client.goto(url).await.expect("open the link again");
    let answered = browser.testid("screen-answered").await;
    let heading = answered.find(Locator::Css("h1")).await.expect("a heading");
    assert_eq!(browser.text(&heading).await, "You have already answered");
    assert!(browser.page_text().await.contains("Thank you!"));
    let consent = browser.client.find_all(Locator::Css("[data-testid=consent-button]")).await.expect("find");
    assert!(consent.is_empty(), "no consent is offered");
    browser.screenshot("reopened").await;
    browser.assert_same_origin(app).await;
}

#[tokio::test]
async fn a_casual_french_campaign_says_tu_in_its_questions_and_its_page() {
    one_register(
        "a_casual_french_campaign_says_tu_in_its_questions_and_its_page",
        "casual and friendly",
        Register::Informal,
    )
    .await;
}

#[tokio::test]
async fn a_formal_french_campaign_says_vous_in_its_questions_and_its_page() {
    one_register("a_formal_french_campaign_says_vous_in_its_questions_and_its_page", "professional", Register::Formal)
        .await;
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Register {
    Formal,
    Informal,
}

impl Register {
    /// A word the register uses in French, and the words of the other register.
    fn french(self) -> (&'static [&'static str], &'static [&'static str]) {
        match self {
            Register::Formal => (&["vous", "votre", "vos"], &["tu", "toi", "ton", "ta", "tes"]),
            Register::Informal => (&["tu", "ton", "ta", "tes"], &["vous", "votre", "vos", "veuillez"]),
        }
    }
}

async fn one_register(test: &str, tone: &str, register: Register) {
    let app = spawn_app().await;
    let key = partner_named(&app, "Boulangerie Léa").await;
    let body = json!({"brief": {
        "intentText": "Comment s'est passée votre dernière visite ?",
        "constraints": {"questionCount": 4, "languages": ["fr"], "tone": tone},
    }});
    let (code, url) = launched_link(&app, &key, &body, "fr").await;
    let lt = url.query_pairs().find(|(k, _)| k == "lt").map(|(_, v)| v.into_owned()).expect("lt");
    let access: Value = app.access(&code, &[("lt", &lt)]).await.json().await.expect("json");
    let expected = if register == Register::Formal { "FORMAL" } else { "INFORMAL" };
    assert_eq!(access["campaign"]["register"], json!(expected), "{access}");

    let browser = Browser::open(test).await;
    let outcome = AssertUnwindSafe(in_one_register(&app, &browser, url.as_str(), register)).catch_unwind().await;
    browser.close(outcome).await;
}

/// Every screen from consent to thanks speaks in `register`: the page's own words and the questions.
async fn in_one_register(app: &TestApp, browser: &Browser, url: &str, register: Register) {
    let (uses, never) = register.french();
    let mut said = Vec::new();
    let check = |screen: String, text: String| {
        let words = words(&text);
        let wrong: Vec<&String> = words.iter().filter(|w| never.contains(&w.as_str())).collect();
        assert!(wrong.is_empty(), "{register:?} {screen} says {wrong:?}:\n{text}");
        words
    };
    browser.client.goto(url).await.expect("open the link");
    browser.testid("screen-consent").await;
    assert_eq!(browser.script("return document.documentElement.lang;").await, json!("fr"));
    said.extend(check("consent".into(), browser.page_text().await));
    let asked_by = browser.text(&browser.testid("consent-asked-by").await).await;
    let expected = if register == Register::Formal { "votre" } else { "ton" };
    assert_eq!(asked_by, format!("Boulangerie Léa aimerait connaître {expected} avis."));
    browser.screenshot("consent").await;
    browser.testid("consent-button").await.click().await.expect("consent");

    let first = browser.wait_for("[data-testid=screen-question][data-question-index=\"1\"]").await;
    let total: usize =
        first.attr("data-question-total").await.expect("attribute").and_then(|t| t.parse().ok()).expect("a total");
    for n in 1..=total {
        let screen = browser.wait_for(&format!("[data-testid=screen-question][data-question-index=\"{n}\"]")).await;
        if n == 1 {
            // The first question is required: its error is the page's own words too.
            browser.testid("next-button").await.click().await.expect("next without an answer");
            browser.wait_for("[data-testid=question-error]:not(:empty)").await;
        }
        said.extend(check(format!("question {n}"), browser.page_text().await));
        browser.screenshot(&format!("question-{n}")).await;
        match screen.attr("data-question-type").await.expect("attribute").as_deref() {
            Some("rating") => browser.testid("rating-option-5").await.click().await.expect("rate"),
            _ => browser.testid("text-answer").await.send_keys("Le pain était excellent.").await.expect("type"),
        }
        browser.testid("next-button").await.click().await.expect("next");
    }
    browser.testid("screen-finish").await;
    said.extend(check("finish".into(), browser.page_text().await));
    browser.screenshot("finish").await;
    assert!(said.iter().any(|w| uses.contains(&w.as_str())), "{register:?} never says {uses:?}: {said:?}");
    // A French page needs no Devanagari font, and its browser does not fetch one.
    let fetched = browser.fetched().await;
    assert!(fetched.iter().any(|u| u.contains("/assets/noto-sans-latin-")), "{fetched:?}");
    assert!(!fetched.iter().any(|u| u.contains("devanagari")), "{fetched:?}");
    browser.assert_same_origin(app).await;
}

#[tokio::test]
async fn a_hindi_page_shows_devanagari_in_its_own_font() {
    let app = spawn_app().await;
    let key = partner_named(&app, "Acme Bakery").await;
    let body = json!({"brief": {
        "intentText": "How was your last visit?",
        "constraints": {"questionCount": 3, "languages": ["hi"]},
    }});
    let (_, url) = launched_link(&app, &key, &body, "hi").await;
    let browser = Browser::open("a_hindi_page_shows_devanagari_in_its_own_font").await;
    let outcome = AssertUnwindSafe(in_hindi(&app, &browser, url.as_str())).catch_unwind().await;
    browser.close(outcome).await;
}

async fn in_hindi(app: &TestApp, browser: &Browser, url: &str) {
    browser.client.goto(url).await.expect("open the link");
    browser.testid("screen-consent").await;
    assert_eq!(browser.script("return document.documentElement.lang;").await, json!("hi"));
    assert!(browser.page_text().await.contains("मैं सहमत हूँ"), "the page's own words are Hindi");
    assert_devanagari_face_loaded(browser, "consent").await;
    browser.screenshot("consent").await;
    browser.testid("consent-button").await.click().await.expect("consent");
    browser.wait_for("[data-testid=screen-question][data-question-index=\"1\"]").await;
    assert_devanagari_face_loaded(browser, "question").await;
    browser.screenshot("question-1").await;
    let fetched = browser.fetched().await;
    assert!(fetched.iter().any(|u| u.contains("/assets/noto-sans-devanagari-400-")), "{fetched:?}");
    browser.assert_same_origin(app).await;
}

/// The machine has no Devanagari font of its own: Hindi renders only if the page's face loaded.
async fn assert_devanagari_face_loaded(browser: &Browser, screen: &str) {
    let fonts = browser.loaded_fonts().await;
    assert_eq!(fonts["devanagari"], json!(true), "{screen}: {fonts}");
    assert!(fonts["family"].as_str().is_some_and(|f| f.starts_with("\"Pulse Sans\"")), "{screen}: {fonts}");
    let faces = fonts["faces"].as_array().expect("faces");
    for weight in ["400", "600"] {
        let face = faces
            .iter()
            .find(|f| {
                f["family"] == "Pulse Sans"
                    && f["weight"] == weight
                    && f["unicodeRange"].as_str().is_some_and(|r| r.to_uppercase().contains("U+900-97F"))
            })
            .unwrap_or_else(|| panic!("{screen}: a Devanagari face of weight {weight} in {fonts}"));
        assert_eq!(face["status"], json!("loaded"), "{screen}: {face}");
    }
}

#[tokio::test]
async fn with_javascript_off_the_page_says_it_needs_javascript() {
    let app = spawn_app().await;
    let browser = Browser::open_with("with_javascript_off_the_page_says_it_needs_javascript", false).await;
    let url = app.url("/p/q3Xb8LmT2aZk?lang=hi");
    let outcome = AssertUnwindSafe(async {
        browser.client.goto(&url).await.expect("open the link");
        let screen = browser.testid("screen-no-script").await;
        let heading = screen.find(Locator::Css("h1")).await.expect("a heading");
        assert_eq!(browser.text(&heading).await, "This survey needs JavaScript");
        let text = browser.text(&screen).await;
        assert!(text.contains("इस सर्वे के लिए JavaScript ज़रूरी है"), "{text}");
        assert!(text.contains("Activez JavaScript"), "{text}");
        let body = browser.text(&browser.wait_for("body").await).await;
        assert!(!body.contains("Loading"), "no endless loading: {body}");
        browser.screenshot("no-script").await;
    })
    .catch_unwind()
    .await;
    browser.close(outcome).await;
}

/// Six people in French: three pleased with fast delivery and friendly couriers, three let down by
/// late, cold meals and an unreachable support.
const FRENCH: [(i64, &str, &str); 6] = [
    (5, "Livraison rapide et livreur très aimable.", "Service parfait, merci beaucoup."),
    (5, "Livraison rapide, repas délicieux.", "Rien à changer, je suis ravi."),
    (4, "Livreur très aimable et commande complète.", "Service parfait, continuez ainsi."),
    (1, "Commande en retard et repas froid.", "Le service client ne répond jamais, très déçu."),
    (2, "Commande en retard, encore une fois.", "Service client injoignable, c'est nul."),
    (1, "Repas froid et commande incomplète.", "Très déçu par le service client."),
];

/// The same story in Hindi, typed in Devanagari by some and in Latin letters by others.
const HINDI: [(i64, &str, &str); 6] = [
    (5, "स्वादिष्ट खाना और जल्दी डिलीवरी।", "सेवा शानदार है, धन्यवाद।"),
    (5, "स्वादिष्ट खाना, जल्दी डिलीवरी, बहुत अच्छा लगा।", "शानदार सेवा।"),
    (4, "khana bahut accha tha, delivery jaldi hui", "service badhiya hai, shukriya"),
    (1, "खाना ठंडा था और डिलीवरी में बहुत देर हुई।", "ग्राहक सेवा बेकार है।"),
    (2, "डिलीवरी में देर हुई, खाना ठंडा था।", "ग्राहक सेवा ने जवाब नहीं दिया, बहुत बुरा अनुभव।"),
    (1, "khana thanda aur bekar tha, delivery late", "customer service bilkul bekar hai"),
];

#[tokio::test]
async fn a_french_campaign_answered_through_the_page_is_read_and_reported_in_french() {
    read_and_reported_in(
        "a_french_campaign_answered_through_the_page_is_read_and_reported_in_french",
        "fr",
        &FRENCH,
        "Synthèse",
    )
    .await;
}

#[tokio::test]
async fn a_hindi_campaign_answered_through_the_page_is_read_and_reported_in_hindi() {
    read_and_reported_in(
        "a_hindi_campaign_answered_through_the_page_is_read_and_reported_in_hindi",
        "hi",
        &HINDI,
        "सारांश",
    )
    .await;
}

/// People answer a campaign in `language` through the page; the results show sentiment both ways
/// and themes leaning each way, every answer scored in that language, and the PDF report (its
/// first page drawn beside the screenshots) has its headings in it.
async fn read_and_reported_in(test: &str, language: &str, people: &[(i64, &str, &str)], heading: &str) {
    let app = spawn_app().await;
    let partner = app.export_partner().await;
    let key = &partner.key.key;
    let brief = json!({"brief": {"intentText": "How was your last delivery with us?",
        "constraints": {"questionCount": 3, "languages": [language]}}});
    let provisioned = app.provision(key, &brief).await;
    assert_eq!(provisioned.status(), 201);
    let provisioned: Value = provisioned.json().await.expect("json");
    let id = id_of(&provisioned["campaign"]).to_owned();
    assert_eq!(app.launch_campaign(key, &id).await.status(), 200);
    let browser = Browser::open(test).await;
    let outcome = AssertUnwindSafe(async {
        for (person, answers) in people.iter().enumerate() {
            let minted = app.mint_link(key, &json!({"campaignId": id, "language": language})).await;
            assert_eq!(minted.status(), 201);
            let minted: Value = minted.json().await.expect("json");
            answer_as(&browser, on_test_server(&app, minted["url"].as_str().expect("url")).as_str(), person, *answers)
                .await;
        }
    })
    .catch_unwind()
    .await;
    browser.close(outcome).await;
    let id = id.as_str();
    let results = app.analyzed_results(key, id, people.len() as u64).await;
    let count = |label: &str| {
        results["sentiment"]
            .as_array()
            .expect("sentiment")
            .iter()
            .find(|c| c["label"] == label)
            .map(|c| c["count"].clone())
    };
    assert!(count("POSITIVE").is_some_and(|n| n.as_u64() >= Some(2)), "{results:#}");
    assert!(count("NEGATIVE").is_some_and(|n| n.as_u64() >= Some(2)), "{results:#}");
    let leaning = |side: &str| results["inferred"][side].as_array().map_or(0, Vec::len);
    assert!(leaning("positiveThemes") > 0 && leaning("negativeThemes") > 0, "{:#}", results["inferred"]);
    assert_eq!(
        results["methodology"]["languagesScored"],
        json!([{"language": language, "answers": 2 * people.len()}]),
        "{:#}",
        results["methodology"]
    );

    let queued = app.queued_export(key, id, &json!({"format": "pdf"})).await;
    let ready = app.ready_export(key, queued["id"].as_str().expect("id")).await;
    let bytes = app.download(ready["download"]["url"].as_str().expect("url")).await.bytes().await.expect("the file");
    let artifacts =
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/test-artifacts/browser")).join(test);
    let pdf = artifacts.join("report.pdf");
    std::fs::write(&pdf, &bytes).expect("written");
    let text = Command::new("pdftotext").arg(&pdf).arg("-").output().expect("pdftotext runs (poppler-utils)");
    let report = String::from_utf8(text.stdout).expect("utf-8");
    assert!(report.contains(heading), "the report's headings are in {language}:\n{report}");
    let drawn = Command::new("pdftoppm")
        .args(["-png", "-r", "60", "-f", "1", "-l", "2"])
        .arg(&pdf)
        .arg(artifacts.join("report"))
        .status()
        .expect("pdftoppm runs (poppler-utils)");
    assert!(drawn.success());
}
