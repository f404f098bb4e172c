//! What invitations, reminders and thank-you messages say: an email (subject, text and HTML) or a
//! short SMS/WhatsApp text, in eight languages and two registers.
//!
//! The words live in one table of templates per language and register, so a translator can review
//! a table without reading code. Templates have slots filled from the facts: `{name}`, `{sender}`,
//! `{campaign}`, `{link}` (the survey link) and `{url}` (the unsubscribe page).

use crate::campaigns::models::Register;
use crate::outreach::models::MessageKind;

/// What a message is made from. Every string here may come from a partner or a person: the HTML
/// body must escape all of them.
#[derive(Clone, Copy, Debug)]
pub struct MessageFacts<'a> {
    pub kind: MessageKind,
    /// A BCP 47 tag such as "fr" or "pt-BR"; its primary subtag picks the language, any other falls back to English.
    pub language: &'a str,
    pub register: Register,
    /// The person's name, given only when the campaign greets by name and a name is known.
    pub recipient_name: Option<&'a str>,
    /// Who is asking: the workspace's (the partner's client's) name, e.g. "Acme Foods".
    pub sender: &'a str,
    /// The campaign's name.
    pub campaign: &'a str,
    /// The person's own survey link; given for invitations and reminders, None for a thank-you.
    pub link: Option<&'a str>,
    /// One-click unsubscribe page for this person (emails only; None for SMS/WhatsApp).
    pub unsubscribe: Option<&'a str>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EmailContent {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The languages messages are written in (primary subtags): en fr es de pt it nl hi.
pub const MESSAGE_LANGUAGES: [&str; 8] = ["en", "fr", "es", "de", "pt", "it", "nl", "hi"];

/// The most characters of a partner's or person's value a short text shows, so that an SMS stays
/// around 300 characters before the link whatever the names.
const SHORT_FACT_CHARS: usize = 50;

/// The email for `facts`: greeting, what is asked and by whom, the survey link (invitations and
/// reminders only: a thank-you never carries one), the sender's sign-off and the unsubscribe line.
pub fn email(facts: &MessageFacts<'_>) -> EmailContent {
    let (language, phrases) = phrases(facts.language, facts.register);
    let (subject, body) = phrases.subject_and_body(facts.kind);
    let name = known_name(facts);
    let link = survey_link(facts);

    let text_slots = [
        ("name", name.unwrap_or_default()),
        ("sender", facts.sender),
        ("campaign", facts.campaign),
        ("link", link.unwrap_or_default()),
        ("url", facts.unsubscribe.unwrap_or_default()),
    ];
    // A subject is a single header line: a line break from a fact must not start another header.
    let subject = one_line(&fill(subject, &text_slots));

    let mut text = vec![fill(greeting(phrases, name), &text_slots), fill(body, &text_slots)];
    if link.is_some() {
        text.push(fill(phrases.link_line, &text_slots));
    }
    text.push(format!("{}\n{}", phrases.sign_off, facts.sender));
    if facts.unsubscribe.is_some() {
        text.push(fill(phrases.unsubscribe, &text_slots));
    }

    let sender_html = escape_html(facts.sender);
    let unsubscribe_html = facts.unsubscribe.map(escape_html).unwrap_or_default();
    // The footer shows the unsubscribe address itself as the link: it is the one thing there to click.
    let unsubscribe_anchor = format!("<a href=\"{unsubscribe_html}\" style=\"{FOOTER_LINK}\">{unsubscribe_html}</a>");
    let html_slots = [
        ("name", escape_html(name.unwrap_or_default())),
        ("sender", sender_html.clone()),
        ("campaign", escape_html(facts.campaign)),
        ("url", unsubscribe_anchor),
    ];
    let html_slots = html_slots.each_ref().map(|(key, value)| (*key, value.as_str()));
    let mut blocks =
        vec![paragraph(&fill_html(greeting(phrases, name), &html_slots)), paragraph(&fill_html(body, &html_slots))];
    if let Some(link) = link {
        blocks.push(format!(
            "<p style=\"{BUTTON_ROW}\"><a href=\"{}\" style=\"{BUTTON}\">{}</a></p>",
            escape_html(link),
            escape_html(phrases.button)
        ));
    }
    blocks.push(paragraph(&format!("{}<br>{sender_html}", escape_html(phrases.sign_off))));
    if facts.unsubscribe.is_some() {
        blocks.push(format!("<p style=\"{FOOTER}\">{}</p>", fill_html(phrases.unsubscribe, &html_slots)));
    }
    let html = format!(
        "<!DOCTYPE html>\n<html lang=\"{language}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{title}</title>\n</head>\n\
         <body style=\"{PAGE}\">\n<div style=\"{CARD}\">\n{blocks}\n</div>\n</body>\n</html>\n",
        title = escape_html(&subject),
        blocks = blocks.join("\n"),
    );

    EmailContent { subject, text: text.join("\n\n"), html }
}

/// The body of an SMS or WhatsApp message: short (aim for <= 300 characters before the link),
/// carries the link when there is one, and ends with the opt-out hint in the language ("Reply STOP
/// to opt out." / "Répondez STOP pour ne plus recevoir de messages." etc. — the keyword STOP stays
/// the literal word STOP in every language, because the provider recognises only that).
pub fn short_text(facts: &MessageFacts<'_>) -> String {
    let (_, phrases) = phrases(facts.language, facts.register);
    let (_, body) = phrases.subject_and_body(facts.kind);
    let name = known_name(facts).map(clip);
    let sender = clip(facts.sender);
    let campaign = clip(facts.campaign);
    let slots = [("name", name.as_deref().unwrap_or_default()), ("sender", &sender), ("campaign", &campaign)];

    let mut text = format!("{}\n{}", fill(greeting(phrases, name.as_deref()), &slots), fill(body, &slots));
    if let Some(link) = survey_link(facts) {
        text.push('\n');
        text.push_str(link);
    }
    text.push('\n');
    text.push_str(phrases.stop);
    text
}

/// The phrases of one language in one register; see the module for the slots.
struct Phrases {
    /// Opens the message when the person's name is known.
    greeting_named: &'static str,
    /// Opens the message otherwise; it has no `{name}` slot.
    greeting: &'static str,
    invitation_subject: &'static str,
    invitation: &'static str,
    reminder_subject: &'static str,
    reminder: &'static str,
    thank_you_subject: &'static str,
    thank_you: &'static str,
    /// The label of the HTML button that opens the survey.
    button: &'static str,
    /// The survey link in the email's text body.
    link_line: &'static str,
    /// Closes the email, on the line above the sender's name.
    sign_off: &'static str,
    /// The email's last line.
    unsubscribe: &'static str,
    /// Ends every short text.
    stop: &'static str,
}

impl Phrases {
    fn subject_and_body(&self, kind: MessageKind) -> (&'static str, &'static str) {
        match kind {
            MessageKind::Invitation => (self.invitation_subject, self.invitation),
            MessageKind::Reminder => (self.reminder_subject, self.reminder),
            MessageKind::ThankYou => (self.thank_you_subject, self.thank_you),
        }
    }
}

/// The language a message is written in (the primary subtag of `language`, or English when Pulse
/// has no texts in it) and its phrases in `register`.
fn phrases(language: &str, register: Register) -> (&'static str, &'static Phrases) {
    let primary = language.split_once('-').map_or(language, |(primary, _)| primary).to_ascii_lowercase();
    let (code, formal, informal) = match primary.as_str() {
        "fr" => ("fr", &FR_FORMAL, &FR_INFORMAL),
        "es" => ("es", &ES_FORMAL, &ES_INFORMAL),
        "de" => ("de", &DE_FORMAL, &DE_INFORMAL),
        "pt" => ("pt", &PT_FORMAL, &PT_INFORMAL),
        "it" => ("it", &IT_FORMAL, &IT_INFORMAL),
        "nl" => ("nl", &NL_FORMAL, &NL_INFORMAL),
        "hi" => ("hi", &HI_FORMAL, &HI_INFORMAL),
        _ => ("en", &EN_FORMAL, &EN_INFORMAL),
    };
    match register {
        Register::Formal => (code, formal),
        Register::Informal => (code, informal),
    }
}

/// The name to greet by; a blank one is no name.
fn known_name<'a>(facts: &MessageFacts<'a>) -> Option<&'a str> {
    facts.recipient_name.map(str::trim).filter(|name| !name.is_empty())
}

/// The survey link the message carries: a thank-you has nothing left to answer.
fn survey_link<'a>(facts: &MessageFacts<'a>) -> Option<&'a str> {
    match facts.kind {
        MessageKind::Invitation | MessageKind::Reminder => facts.link,
        MessageKind::ThankYou => None,
    }
}

fn greeting(phrases: &Phrases, name: Option<&str>) -> &'static str {
    if name.is_some() { phrases.greeting_named } else { phrases.greeting }
}

/// `template` with each `{key}` of `slots` replaced by its value, in one left-to-right pass: a value
/// is never read again, so a partner's "{name}" stays as written. Unknown `{...}` stay as they are.
fn fill(template: &str, slots: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let slot = after.find('}').and_then(|close| {
            let value = slots.iter().find(|(key, _)| *key == &after[..close])?.1;
            Some((close, value))
        });
        match slot {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `fill` for HTML: the template's own words are escaped; `slots` must hold escaped text or markup.
fn fill_html(template: &str, slots: &[(&str, &str)]) -> String {
    fill(&escape_html(template), slots)
}

fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `text` with control characters (line breaks, tabs) turned into spaces.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect()
}

/// A value for a short text: on one line and cut to `SHORT_FACT_CHARS`, an ellipsis marking the cut.
fn clip(value: &str) -> String {
    let value = one_line(value);
    if value.chars().count() <= SHORT_FACT_CHARS {
        return value;
    }
    let cut: String = value.chars().take(SHORT_FACT_CHARS - 1).collect();
    format!("{}…", cut.trim_end())
}

fn paragraph(inner: &str) -> String {
    format!("<p style=\"{PARAGRAPH}\">{inner}</p>")
}

// Inline styles only: mail clients drop style sheets and external resources. The greys and the
// button's blue keep a contrast ratio above 4.5:1 on white.
const PAGE: &str = "margin:0;padding:24px 12px;background-color:#f3f4f6";
const CARD: &str = "max-width:560px;margin:0 auto;padding:32px 24px;background-color:#ffffff;border-radius:8px;\
                    font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:#111827";
const PARAGRAPH: &str = "margin:0 0 16px";
const BUTTON_ROW: &str = "margin:24px 0";
const BUTTON: &str = "display:inline-block;padding:12px 24px;background-color:#1d4ed8;color:#ffffff;\
                      font-weight:bold;text-decoration:none;border-radius:6px";
const FOOTER: &str = "margin:32px 0 0;font-size:13px;line-height:1.4;color:#6b7280";
const FOOTER_LINK: &str = "color:#6b7280;word-break:break-all";

// English: no pronoun to change, so the informal register is a friendlier tone.

static EN_FORMAL: Phrases = Phrases {
    greeting_named: "Hello {name},",
    greeting: "Hello,",
    invitation_subject: "{sender} would like your feedback",
    invitation: "{sender} would like to hear about your experience in a short survey: “{campaign}”. It takes only a few minutes.",
    reminder_subject: "A reminder from {sender}: your feedback",
    reminder: "A gentle reminder: {sender} would still value your feedback in the survey “{campaign}”. It takes only a few minutes.",
    thank_you_subject: "Thank you for your feedback",
    thank_you: "Thank you for taking part in the survey “{campaign}”. Your feedback is valuable to {sender}.",
    button: "Take the survey",
    link_line: "Take the survey: {link}",
    sign_off: "Kind regards,",
    unsubscribe: "To stop receiving messages about surveys from {sender}, open: {url}",
    stop: "Reply STOP to opt out.",
};

static EN_INFORMAL: Phrases = Phrases {
    greeting_named: "Hi {name},",
    greeting: "Hi,",
    invitation_subject: "{sender} would love your feedback",
    invitation: "{sender} would love to hear what you think in a quick survey: “{campaign}”. It only takes a few minutes.",
    reminder_subject: "A quick reminder from {sender}: your feedback",
    reminder: "Just a quick reminder: {sender} would still love to hear what you think in “{campaign}”. It only takes a few minutes.",
    thank_you_subject: "Thanks for your feedback!",
    thank_you: "Thanks for taking part in “{campaign}”! {sender} really appreciates you sharing your thoughts.",
    button: "Start the survey",
    link_line: "Start the survey: {link}",
    sign_off: "Best wishes,",
    unsubscribe: "To stop getting messages about surveys from {sender}, open: {url}",
    stop: "Reply STOP to opt out.",
};

// French: vous and tu. "de {sender}" would need an elision before a vowel ("d’Acme"), so the sender
// is never after "de". Regular spaces before the high punctuation keep the templates readable.

static FR_FORMAL: Phrases = Phrases {
    greeting_named: "Bonjour {name},",
    greeting: "Bonjour,",
    invitation_subject: "{sender} souhaite connaître votre avis",
    invitation: "{sender} vous invite à donner votre avis dans un court questionnaire\u{a0}: «\u{a0}{campaign}\u{a0}». Cela ne prend que quelques minutes.",
    reminder_subject: "Rappel\u{a0}: {sender} aimerait connaître votre avis",
    reminder: "Pour rappel, {sender} aimerait encore recueillir votre avis dans le questionnaire «\u{a0}{campaign}\u{a0}». Cela ne prend que quelques minutes.",
    thank_you_subject: "Merci pour votre avis",
    thank_you: "Merci d’avoir répondu au questionnaire «\u{a0}{campaign}\u{a0}». Votre avis est précieux pour {sender}.",
    button: "Répondre au questionnaire",
    link_line: "Répondre au questionnaire\u{a0}: {link}",
    sign_off: "Cordialement,",
    unsubscribe: "Pour ne plus recevoir de messages sur les questionnaires proposés par {sender}, ouvrez cette page\u{a0}: {url}",
    stop: "Répondez STOP pour ne plus recevoir de messages.",
};

static FR_INFORMAL: Phrases = Phrases {
    greeting_named: "Bonjour {name},",
    greeting: "Bonjour,",
    invitation_subject: "{sender} aimerait avoir ton avis",
    invitation: "{sender} aimerait connaître ton avis dans un court questionnaire\u{a0}: «\u{a0}{campaign}\u{a0}». Ça ne prend que quelques minutes.",
    reminder_subject: "Petit rappel\u{a0}: {sender} aimerait avoir ton avis",
    reminder: "Petit rappel\u{a0}: {sender} aimerait encore avoir ton avis sur «\u{a0}{campaign}\u{a0}». Ça ne prend que quelques minutes.",
    thank_you_subject: "Merci pour ton avis\u{a0}!",
    thank_you: "Merci d’avoir répondu au questionnaire «\u{a0}{campaign}\u{a0}»\u{a0}! Ton avis compte beaucoup pour {sender}.",
    button: "Répondre au questionnaire",
    link_line: "Répondre au questionnaire\u{a0}: {link}",
    sign_off: "À bientôt,",
    unsubscribe: "Pour ne plus recevoir de messages sur les questionnaires proposés par {sender}, ouvre cette page\u{a0}: {url}",
    stop: "Réponds STOP pour ne plus recevoir de messages.",
};

// Spanish: usted and tú. "Estimado/a" would need the person's gender, so both greet with "Hola".

static ES_FORMAL: Phrases = Phrases {
    greeting_named: "Hola, {name}:",
    greeting: "Hola:",
    invitation_subject: "{sender} desea conocer su opinión",
    invitation: "{sender} desea conocer su opinión en una breve encuesta: «{campaign}». Solo le llevará unos minutos.",
    reminder_subject: "Recordatorio de {sender}: su opinión",
    reminder: "Un breve recordatorio: {sender} aún desea conocer su opinión sobre «{campaign}». Solo le llevará unos minutos.",
    thank_you_subject: "Gracias por su opinión",
    thank_you: "Gracias por responder a la encuesta «{campaign}». Su opinión es muy valiosa para {sender}.",
    button: "Responder a la encuesta",
    link_line: "Responder a la encuesta: {link}",
    sign_off: "Saludos cordiales,",
    unsubscribe: "Para dejar de recibir mensajes sobre encuestas de {sender}, abra esta página: {url}",
    stop: "Responda STOP para no recibir más mensajes.",
};

static ES_INFORMAL: Phrases = Phrases {
    greeting_named: "¡Hola, {name}!",
    greeting: "¡Hola!",
    invitation_subject: "{sender} quiere saber tu opinión",
    invitation: "{sender} quiere saber qué opinas en una breve encuesta: «{campaign}». Solo te llevará unos minutos.",
    reminder_subject: "Un recordatorio de {sender}: tu opinión",
    reminder: "Un recordatorio rápido: {sender} aún quiere saber qué opinas sobre «{campaign}». Solo te llevará unos minutos.",
    thank_you_subject: "¡Gracias por tu opinión!",
    thank_you: "¡Gracias por responder a la encuesta «{campaign}»! Tu opinión es muy valiosa para {sender}.",
    button: "Responder a la encuesta",
    link_line: "Responder a la encuesta: {link}",
    sign_off: "Un saludo,",
    unsubscribe: "Para dejar de recibir mensajes sobre encuestas de {sender}, abre esta página: {url}",
    stop: "Responde STOP para no recibir más mensajes.",
};

// German: Sie and du. The line after a greeting starts in lower case, so every body opens with the
// sender's name; German closings take no comma.

static DE_FORMAL: Phrases = Phrases {
    greeting_named: "Guten Tag {name},",
    greeting: "Guten Tag,",
    invitation_subject: "{sender} bittet um Ihre Meinung",
    invitation: "{sender} möchte gern Ihre Meinung hören und lädt Sie zu einer kurzen Umfrage ein: „{campaign}“. Das dauert nur wenige Minuten.",
    reminder_subject: "Eine Erinnerung von {sender}: Ihre Meinung",
    reminder: "{sender} möchte Sie freundlich an die Umfrage „{campaign}“ erinnern. Ihre Meinung ist wichtig, und es dauert nur wenige Minuten.",
    thank_you_subject: "Vielen Dank für Ihre Meinung",
    thank_you: "{sender} dankt Ihnen herzlich für Ihre Teilnahme an der Umfrage „{campaign}“. Ihre Antworten helfen sehr.",
    button: "Zur Umfrage",
    link_line: "Zur Umfrage: {link}",
    sign_off: "Mit freundlichen Grüßen",
    unsubscribe: "Wenn Sie keine Nachrichten zu Umfragen von {sender} mehr erhalten möchten, öffnen Sie: {url}",
    stop: "Antworten Sie STOP, um keine Nachrichten mehr zu erhalten.",
};

static DE_INFORMAL: Phrases = Phrases {
    greeting_named: "Hallo {name},",
    greeting: "Hallo,",
    invitation_subject: "{sender} möchte deine Meinung hören",
    invitation: "{sender} möchte gern deine Meinung hören und lädt dich zu einer kurzen Umfrage ein: „{campaign}“. Das dauert nur ein paar Minuten.",
    reminder_subject: "Kurze Erinnerung von {sender}: deine Meinung",
    reminder: "{sender} möchte dich kurz an die Umfrage „{campaign}“ erinnern. Deine Meinung zählt, und es dauert nur ein paar Minuten.",
    thank_you_subject: "Danke für deine Meinung!",
    thank_you: "{sender} bedankt sich herzlich, dass du bei der Umfrage „{campaign}“ mitgemacht hast. Deine Antworten helfen sehr.",
    button: "Zur Umfrage",
    link_line: "Zur Umfrage: {link}",
    sign_off: "Viele Grüße",
    unsubscribe: "Wenn du keine Nachrichten zu Umfragen von {sender} mehr erhalten möchtest, öffne: {url}",
    stop: "Antworte STOP, um keine Nachrichten mehr zu erhalten.",
};

// Portuguese, for Brazil and Portugal alike: both registers use the third-person forms ("a sua",
// "abra") that read well on either side, since "tu" sounds regional in Brazil and "o senhor" stiff;
// the informal register is a warmer tone. "Questionário" is the word both countries use.

static PT_FORMAL: Phrases = Phrases {
    greeting_named: "Olá, {name},",
    greeting: "Olá,",
    invitation_subject: "{sender} gostaria de saber a sua opinião",
    invitation: "{sender} gostaria de conhecer a sua opinião sobre “{campaign}”. Responder ao questionário leva apenas alguns minutos.",
    reminder_subject: "Lembrete de {sender}: a sua opinião",
    reminder: "Um breve lembrete: {sender} ainda gostaria de conhecer a sua opinião sobre “{campaign}”. Responder leva apenas alguns minutos.",
    thank_you_subject: "Obrigado pela sua opinião",
    thank_you: "Obrigado por responder ao questionário “{campaign}”. A sua opinião é muito importante para {sender}.",
    button: "Responder ao questionário",
    link_line: "Responder ao questionário: {link}",
    sign_off: "Atenciosamente,",
    unsubscribe: "Para deixar de receber mensagens sobre questionários de {sender}, abra esta página: {url}",
    stop: "Responda STOP para deixar de receber mensagens.",
};

static PT_INFORMAL: Phrases = Phrases {
    greeting_named: "Olá, {name}!",
    greeting: "Olá!",
    invitation_subject: "{sender} quer saber a sua opinião",
    invitation: "{sender} quer saber a sua opinião num questionário rápido: “{campaign}”. São só alguns minutos!",
    reminder_subject: "Um lembrete de {sender}: a sua opinião",
    reminder: "Só um lembrete: {sender} ainda quer saber a sua opinião sobre “{campaign}”. São só alguns minutos!",
    thank_you_subject: "Obrigado pela sua opinião!",
    thank_you: "Obrigado por responder ao questionário “{campaign}”! A sua opinião faz toda a diferença para {sender}.",
    button: "Responder ao questionário",
    link_line: "Responder ao questionário: {link}",
    sign_off: "Um abraço,",
    unsubscribe: "Para deixar de receber mensagens sobre questionários de {sender}, abra esta página: {url}",
    stop: "Responda STOP para deixar de receber mensagens.",
};

// Italian: Lei (in the modern lower-case style) and tu.

static IT_FORMAL: Phrases = Phrases {
    greeting_named: "Buongiorno {name},",
    greeting: "Buongiorno,",
    invitation_subject: "{sender} vorrebbe conoscere la sua opinione",
    invitation: "{sender} vorrebbe conoscere la sua opinione con un breve questionario: «{campaign}». Bastano pochi minuti.",
    reminder_subject: "Un promemoria da {sender}: la sua opinione",
    reminder: "Un breve promemoria: {sender} desidera ancora conoscere la sua opinione su «{campaign}». Bastano pochi minuti.",
    thank_you_subject: "Grazie per la sua opinione",
    thank_you: "Grazie per aver risposto al questionario «{campaign}». La sua opinione è preziosa per {sender}.",
    button: "Risponda al questionario",
    link_line: "Risponda al questionario: {link}",
    sign_off: "Cordiali saluti,",
    unsubscribe: "Per non ricevere più messaggi sui questionari di {sender}, apra questa pagina: {url}",
    stop: "Risponda STOP per non ricevere più messaggi.",
};

static IT_INFORMAL: Phrases = Phrases {
    greeting_named: "Ciao {name},",
    greeting: "Ciao,",
    invitation_subject: "{sender} vorrebbe sapere cosa ne pensi",
    invitation: "{sender} vorrebbe conoscere la tua opinione con un breve questionario: «{campaign}». Bastano pochi minuti!",
    reminder_subject: "Un promemoria da {sender}: la tua opinione",
    reminder: "Un piccolo promemoria: {sender} vorrebbe ancora sapere cosa ne pensi di «{campaign}». Bastano pochi minuti!",
    thank_you_subject: "Grazie per la tua opinione!",
    thank_you: "Grazie per aver risposto al questionario «{campaign}»! La tua opinione è preziosa per {sender}.",
    button: "Rispondi al questionario",
    link_line: "Rispondi al questionario: {link}",
    sign_off: "A presto,",
    unsubscribe: "Per non ricevere più messaggi sui questionari di {sender}, apri questa pagina: {url}",
    stop: "Rispondi STOP per non ricevere più messaggi.",
};

// Dutch: u and je.

static NL_FORMAL: Phrases = Phrases {
    greeting_named: "Beste {name},",
    greeting: "Goedendag,",
    invitation_subject: "{sender} hoort graag uw mening",
    invitation: "{sender} hoort graag uw mening in een korte vragenlijst: “{campaign}”. Het invullen duurt maar een paar minuten.",
    reminder_subject: "Herinnering van {sender}: uw mening",
    reminder: "Een vriendelijke herinnering: {sender} hoort nog steeds graag uw mening over “{campaign}”. Het invullen duurt maar een paar minuten.",
    thank_you_subject: "Bedankt voor uw mening",
    thank_you: "Hartelijk dank voor het invullen van de vragenlijst “{campaign}”. Uw mening is waardevol voor {sender}.",
    button: "Naar de vragenlijst",
    link_line: "Naar de vragenlijst: {link}",
    sign_off: "Met vriendelijke groet,",
    unsubscribe: "Wilt u geen berichten meer ontvangen over vragenlijsten van {sender}? Open dan: {url}",
    stop: "Antwoord STOP om u af te melden.",
};

static NL_INFORMAL: Phrases = Phrases {
    greeting_named: "Hoi {name},",
    greeting: "Hoi,",
    invitation_subject: "{sender} hoort graag je mening",
    invitation: "{sender} is benieuwd naar je mening en nodigt je uit voor een korte vragenlijst: “{campaign}”. Het duurt maar een paar minuten.",
    reminder_subject: "Even een herinnering van {sender}: je mening",
    reminder: "Even een herinnering: {sender} is nog steeds benieuwd naar je mening over “{campaign}”. Het duurt maar een paar minuten.",
    thank_you_subject: "Bedankt voor je mening!",
    thank_you: "Bedankt voor het invullen van de vragenlijst “{campaign}”! Je mening helpt {sender} echt verder.",
    button: "Naar de vragenlijst",
    link_line: "Naar de vragenlijst: {link}",
    sign_off: "Groetjes,",
    unsubscribe: "Wil je geen berichten meer ontvangen over vragenlijsten van {sender}? Open dan: {url}",
    stop: "Antwoord STOP om je af te melden.",
};

// Hindi: आप and तुम. A verb agreeing with the sender would need its grammatical gender, so the
// sender only appears in constructions that have none ("{sender} की ओर से", "{sender} के लिए").

static HI_FORMAL: Phrases = Phrases {
    greeting_named: "नमस्ते {name} जी,",
    greeting: "नमस्ते,",
    invitation_subject: "{sender} की ओर से आपकी राय का अनुरोध",
    invitation: "{sender} की ओर से आपको एक छोटे सर्वेक्षण में भाग लेने का निमंत्रण है: “{campaign}”। इसमें केवल कुछ मिनट लगेंगे।",
    reminder_subject: "{sender} की ओर से अनुस्मारक: आपकी राय",
    reminder: "आपकी राय अब भी {sender} के लिए महत्वपूर्ण है। कृपया सर्वेक्षण “{campaign}” में भाग लें; इसमें केवल कुछ मिनट लगेंगे।",
    thank_you_subject: "आपकी राय के लिए धन्यवाद",
    thank_you: "सर्वेक्षण “{campaign}” में भाग लेने के लिए धन्यवाद। आपकी राय {sender} के लिए बहुत मूल्यवान है।",
    button: "सर्वेक्षण शुरू करें",
    link_line: "सर्वेक्षण शुरू करें: {link}",
    sign_off: "सादर,",
    unsubscribe: "{sender} से सर्वेक्षणों के बारे में संदेश प्राप्त करना बंद करने के लिए यह पेज खोलें: {url}",
    stop: "संदेश बंद करने के लिए STOP लिखकर जवाब दें।",
};

static HI_INFORMAL: Phrases = Phrases {
    greeting_named: "नमस्ते {name},",
    greeting: "नमस्ते,",
    invitation_subject: "{sender} को तुम्हारी राय का इंतज़ार है",
    invitation: "{sender} की ओर से तुम्हें एक छोटे सर्वे में हिस्सा लेने का न्योता है: “{campaign}”। इसमें बस कुछ मिनट लगेंगे।",
    reminder_subject: "{sender} की ओर से एक छोटा-सा रिमाइंडर: तुम्हारी राय",
    reminder: "तुम्हारी राय अब भी {sender} के लिए मायने रखती है। सर्वे “{campaign}” भर दो; इसमें बस कुछ मिनट लगेंगे।",
    thank_you_subject: "तुम्हारी राय के लिए शुक्रिया!",
    thank_you: "सर्वे “{campaign}” में हिस्सा लेने के लिए शुक्रिया! तुम्हारी राय {sender} के लिए बहुत मायने रखती है।",
    button: "सर्वे शुरू करो",
    link_line: "सर्वे शुरू करो: {link}",
    sign_off: "शुभकामनाओं सहित,",
    unsubscribe: "{sender} से सर्वे के बारे में संदेश पाना बंद करने के लिए यह पेज खोलो: {url}",
    stop: "संदेश बंद करने के लिए STOP लिखकर जवाब दो।",
};

#[cfg(test)]
mod tests {
    use super::*;

    const LINK: &str = "https://pulse.example/s/Ab12/Xy89?ref=mail&step=1";
    const UNSUBSCRIBE: &str = "https://pulse.example/u/Qr34";
    const REGISTERS: [Register; 2] = [Register::Formal, Register::Informal];

    fn facts(kind: MessageKind, language: &str, register: Register) -> MessageFacts<'_> {
        MessageFacts {
            kind,
            language,
            register,
            recipient_name: Some("Asha"),
            sender: "Acme Foods",
            campaign: "Delivery check-in",
            link: (kind != MessageKind::ThankYou).then_some(LINK),
            unsubscribe: Some(UNSUBSCRIBE),
        }
    }

    /// Every combination of language, register and kind, with its facts.
    fn every_message() -> Vec<MessageFacts<'static>> {
        MESSAGE_LANGUAGES
            .into_iter()
            .flat_map(|language| REGISTERS.into_iter().map(move |register| (language, register)))
            .flat_map(|(language, register)| {
                MessageKind::ALL.into_iter().map(move |kind| facts(kind, language, register))
            })
            .collect()
    }

    /// The first line of the text body.
    fn greeting_line(facts: &MessageFacts<'_>) -> String {
        email(facts).text.lines().next().unwrap_or_default().to_owned()
    }

    #[test]
    fn every_language_register_and_kind_has_all_its_parts_and_the_link_only_where_asked() {
        let escaped_link = escape_html(LINK);
        for facts in every_message() {
            let mail = email(&facts);
            let short = short_text(&facts);
            let which = format!("{} {:?} {:?}", facts.language, facts.register, facts.kind);
            for part in [&mail.subject, &mail.text, &mail.html, &short] {
                assert!(!part.trim().is_empty(), "{which}");
                assert!(!part.contains('{') && !part.contains('}'), "{which}: {part}");
            }
            assert!(mail.subject.contains("Acme Foods") || facts.kind == MessageKind::ThankYou, "{which}");
            assert!(mail.text.contains("Acme Foods") && short.contains("Acme Foods"), "{which}");
            assert!(mail.text.contains("Delivery check-in") && short.contains("Delivery check-in"), "{which}");
            let carries_link = facts.kind != MessageKind::ThankYou;
            assert_eq!(mail.text.contains(LINK), carries_link, "{which}");
            assert_eq!(mail.html.contains(&format!("href=\"{escaped_link}\"")), carries_link, "{which}");
            assert_eq!(short.contains(LINK), carries_link, "{which}");
            assert!(!mail.text.contains("pulse.example/s/") || carries_link, "{which}");
            assert!(mail.text.ends_with(&format!(": {UNSUBSCRIBE}")), "{which}");
            assert!(mail.html.contains(&format!("href=\"{UNSUBSCRIBE}\"")), "{which}");
        }
    }

    #[test]
    fn a_thank_you_never_carries_a_link_even_when_given_one() {
        let facts = MessageFacts { link: Some(LINK), ..facts(MessageKind::ThankYou, "en", Register::Formal) };
        assert!(!email(&facts).text.contains(LINK));
        assert!(!email(&facts).html.contains("pulse.example/s/"));
        assert!(!short_text(&facts).contains(LINK));
    }

    #[test]
    fn a_missing_link_or_unsubscribe_page_is_left_out() {
        for language in MESSAGE_LANGUAGES {
            for register in REGISTERS {
                let facts = MessageFacts {
                    link: None,
                    unsubscribe: None,
                    ..facts(MessageKind::Invitation, language, register)
                };
                let mail = email(&facts);
                assert!(!mail.text.contains("https://") && !mail.html.contains("href="), "{language}");
                assert!(mail.text.ends_with("\nAcme Foods"), "{language}: {}", mail.text);
                assert!(!short_text(&facts).contains("https://"), "{language}");
            }
        }
    }

    #[test]
    fn a_short_text_ends_with_the_opt_out_hint_and_its_literal_stop() {
        for facts in every_message() {
            let short = short_text(&facts);
            let (_, phrases) = phrases(facts.language, facts.register);
            assert!(short.ends_with(phrases.stop), "{short}");
            assert!(phrases.stop.contains("STOP"), "{}", facts.language);
        }
        let english = short_text(&facts(MessageKind::Invitation, "en", Register::Formal));
        assert!(english.ends_with("\nReply STOP to opt out."));
        let french = short_text(&facts(MessageKind::Invitation, "fr", Register::Formal));
        assert!(french.ends_with("\nRépondez STOP pour ne plus recevoir de messages."));
    }

    #[test]
    fn a_short_text_stays_short_before_its_link_whatever_the_names() {
        let long = "Wxyz ".repeat(60);
        for facts in every_message() {
            let facts = MessageFacts { recipient_name: Some(long.as_str()), sender: &long, campaign: &long, ..facts };
            let short = short_text(&facts);
            // The message itself: what comes before the link, or before the opt-out hint without one.
            let (_, phrases) = phrases(facts.language, facts.register);
            let message = short.strip_suffix(phrases.stop).expect("a short text ends with its hint");
            let before_link = message.split(LINK).next().unwrap_or_default();
            assert!(before_link.chars().count() <= 300, "{} chars: {before_link}", before_link.chars().count());
            assert!(short.contains('…'));
        }
    }

    #[test]
    fn the_greeting_names_the_person_only_when_a_name_is_given() {
        for facts in every_message() {
            assert!(greeting_line(&facts).contains("Asha"), "{}", facts.language);
            assert!(short_text(&facts).contains("Asha"), "{}", facts.language);
            for name in [None, Some(""), Some("  ")] {
                let unnamed = MessageFacts { recipient_name: name, ..facts };
                let line = greeting_line(&unnamed);
                assert!(!line.contains('{') && !line.contains("None") && !line.contains("  "), "{line}");
                assert!(!email(&unnamed).html.contains("Asha") && !short_text(&unnamed).contains("Asha"));
            }
        }
        assert_eq!(greeting_line(&facts(MessageKind::Invitation, "en", Register::Formal)), "Hello Asha,");
        let unnamed = MessageFacts { recipient_name: None, ..facts(MessageKind::Invitation, "fr", Register::Formal) };
        assert_eq!(greeting_line(&unnamed), "Bonjour,");
    }

    #[test]
    fn every_fact_is_escaped_in_html_and_left_as_is_in_text() {
        let hostile = r#"<script>alert("x")</script> & Co"#;
        let escaped = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co";
        for kind in MessageKind::ALL {
            let facts = MessageFacts {
                recipient_name: Some(hostile),
                sender: hostile,
                campaign: hostile,
                link: Some("https://pulse.example/s/a?b=1&c=\"2\"'"),
                unsubscribe: Some("https://pulse.example/u/a?b=<1>"),
                ..facts(kind, "en", Register::Formal)
            };
            let mail = email(&facts);
            assert!(!mail.html.contains("<script") && !mail.html.contains("alert(\""), "{}", mail.html);
            assert!(mail.html.contains(escaped));
            assert!(mail.text.contains(hostile) && short_text(&facts).contains(hostile));
            assert!(mail.subject.contains(hostile) || kind == MessageKind::ThankYou);
            assert!(mail.html.contains("href=\"https://pulse.example/u/a?b=&lt;1&gt;\""));
            if kind != MessageKind::ThankYou {
                assert!(mail.html.contains("href=\"https://pulse.example/s/a?b=1&amp;c=&quot;2&quot;&#39;\""));
            }
        }
    }

    #[test]
    fn a_placeholder_inside_a_fact_is_printed_as_written() {
        let facts = MessageFacts {
            sender: "{name} & {campaign} Ltd",
            campaign: "Survey {sender}",
            ..facts(MessageKind::Invitation, "en", Register::Formal)
        };
        let mail = email(&facts);
        assert!(mail.subject.starts_with("{name} & {campaign} Ltd "));
        assert!(mail.text.contains("{name} & {campaign} Ltd would like") && mail.text.contains("“Survey {sender}”"));
        assert!(mail.html.contains("{name} &amp; {campaign} Ltd would like"));
        assert!(short_text(&facts).contains("Hello Asha,\n{name} & {campaign} Ltd would like"));
        assert_eq!(fill("{a}{b}{", &[("a", "{b}"), ("b", "2")]), "{b}2{");
        assert_eq!(fill("{unknown} {a}", &[("a", "1")]), "{unknown} 1");
    }

    #[test]
    fn the_primary_subtag_picks_the_language_and_anything_else_is_english() {
        let cases = [("pt-BR", "pt"), ("PT-pt", "pt"), ("fr-CA", "fr"), ("hi-IN", "hi"), ("xx", "en"), ("", "en")];
        for (tag, expected) in cases {
            let mail = email(&facts(MessageKind::Invitation, tag, Register::Formal));
            assert!(mail.html.starts_with(&format!("<!DOCTYPE html>\n<html lang=\"{expected}\">")), "{tag}");
        }
        let brazilian = email(&facts(MessageKind::Invitation, "pt-BR", Register::Formal));
        assert!(brazilian.text.starts_with("Olá, Asha,"));
        let unknown = email(&facts(MessageKind::Invitation, "xx", Register::Formal));
        assert_eq!(unknown, email(&facts(MessageKind::Invitation, "en", Register::Formal)));
        for language in MESSAGE_LANGUAGES {
            assert_eq!(phrases(language, Register::Formal).0, language);
        }
    }

    #[test]
    fn the_html_is_a_small_self_contained_document() {
        for facts in every_message() {
            let html = email(&facts).html;
            assert!(html.contains("<meta charset=\"utf-8\">") && html.contains("<title>"));
            assert!(html.trim_end().ends_with("</html>"));
            for outside in ["<script", "<img", "<link", "src=", "url(", "@import"] {
                assert!(!html.contains(outside), "{outside}");
            }
            assert!(html.contains(&format!("<p style=\"{FOOTER}\">")));
        }
    }

    /// Each message's words in the user-visible parts, lower-cased, links left out.
    fn words(facts: &MessageFacts<'_>) -> Vec<String> {
        let mail = email(facts);
        [mail.subject, mail.text, short_text(facts)]
            .iter()
            .map(|part| part.replace(LINK, " ").replace(UNSUBSCRIBE, " ").to_lowercase())
            .flat_map(|part| part.split(|c: char| !c.is_alphanumeric()).map(str::to_owned).collect::<Vec<_>>())
            .collect()
    }

    #[test]
    fn french_quotes_and_colons_never_break_from_their_words() {
        for register in REGISTERS {
            let mail = email(&facts(MessageKind::Invitation, "fr", register));
            assert!(mail.text.contains("«\u{a0}Delivery check-in\u{a0}»"), "{}", mail.text);
            assert!(!mail.text.contains(" :") && !mail.text.contains("« "), "{}", mail.text);
        }
    }

    #[test]
    fn each_message_keeps_to_its_register() {
        // (language, words a formal message never uses, words an informal one never uses)
        let cases: [(&str, &[&str], &[&str]); 6] = [
            (
                "fr",
                &["tu", "te", "t", "ton", "ta", "tes", "toi", "réponds", "ouvre"],
                &["vous", "votre", "vos", "répondez"],
            ),
            (
                "de",
                &["du", "dich", "dir", "dein", "deine", "deinen", "deiner"],
                &["sie", "ihr", "ihre", "ihren", "ihnen"],
            ),
            (
                "es",
                &["tú", "tu", "tus", "te", "ti", "abre", "responde"],
                &["usted", "su", "sus", "le", "abra", "responda"],
            ),
            (
                "it",
                &["tu", "ti", "tuo", "tua", "tuoi", "tue", "apri", "rispondi"],
                &["lei", "sua", "suo", "apra", "risponda"],
            ),
            ("nl", &["je", "jij", "jou", "jouw"], &["u", "uw", "wilt"]),
            // Portuguese uses the third-person forms in both registers.
            ("pt", &["tu", "te", "teu", "tua", "abre", "responde"], &["tu", "te", "teu", "tua", "abre", "responde"]),
        ];
        for (language, not_formal, not_informal) in cases {
            for kind in MessageKind::ALL {
                let formal = words(&facts(kind, language, Register::Formal));
                let informal = words(&facts(kind, language, Register::Informal));
                for word in not_formal {
                    assert!(!formal.iter().any(|w| w == word), "{language} formal {kind:?}: {word}");
                }
                for word in not_informal {
                    assert!(!informal.iter().any(|w| w == word), "{language} informal {kind:?}: {word}");
                }
            }
        }
        for kind in MessageKind::ALL {
            let formal = words(&facts(kind, "de", Register::Formal));
            let informal = words(&facts(kind, "de", Register::Informal));
            assert!(formal.iter().any(|w| w == "sie" || w == "ihre"), "{kind:?}");
            assert!(informal.iter().any(|w| w == "du" || w == "deine"), "{kind:?}");
            let formal = words(&facts(kind, "fr", Register::Formal));
            let informal = words(&facts(kind, "fr", Register::Informal));
            assert!(formal.iter().any(|w| w == "vous" || w == "votre"), "{kind:?}");
            assert!(informal.iter().any(|w| w == "tu" || w == "ton"), "{kind:?}");

            // Devanagari vowel signs are not alphanumeric, so Hindi is checked on the whole text.
            let formal = email(&facts(kind, "hi", Register::Formal)).text;
            let informal = email(&facts(kind, "hi", Register::Informal)).text;
            assert!(formal.contains("आप") && !formal.contains("तुम"), "{kind:?}");
            assert!(informal.contains("तुम") && !informal.contains("आप"), "{kind:?}");
        }
    }
}
