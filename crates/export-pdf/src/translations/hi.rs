//! The report in Hindi.

use pulse_domain::analysis::models::Rejection::{LowCoverage, OverCapacity, TooFast, TooFewWords};
use pulse_domain::results::models::SentimentLabel::{Negative, Neutral, Positive};

use super::{CROSS, INDEX, SIGNATURES};
use crate::words::{Kinds, Words, counted};

pub(super) const WORDS: Words = Words {
    report: "फ़ीडबैक रिपोर्ट",
    campaign: "अभियान",
    page: "कुल {pages} में से पृष्ठ {page}",
    summary: "सारांश",
    about: "इस अध्ययन के बारे में",
    questions_asked: "पूछे गए प्रश्न",
    analyzers: "विश्लेषण मॉडल",
    funnel: "प्रतिक्रिया फ़नल",
    csat: "संतुष्टि (CSAT)",
    sentiment: "लिखित उत्तरों की भावना",
    per_question: "प्रश्नवार परिणाम",
    themes: "विषय",
    leaves_out: "इस रिपोर्ट में क्या शामिल नहीं है",
    period: "अवधि",
    invited: "आमंत्रित",
    responded: "उत्तर दिया",
    started: "शुरू किया",
    completed: "पूरा किया",
    accepted: "स्वीकृत",
    rejected: "अस्वीकृत",
    languages_scored: "विश्लेषित भाषाएँ",
    none_yet: "अभी तक कोई नहीं",
    anonymity_floor: "अनामिता सीमा",
    floor: counted("{n} स्वीकृत प्रतिक्रिया", "{n} स्वीकृत प्रतिक्रियाएँ"),
    floor_applied: "लागू: विस्तृत आँकड़े नहीं दिखाए गए",
    kinds: Kinds { rating: "रेटिंग", text: "लिखित उत्तर" },
    colon: ": ",
    rejections: [
        (TooFast, "बहुत तेज़"),
        (LowCoverage, "बहुत कम प्रश्नों के उत्तर"),
        (TooFewWords, "बहुत कम शब्द"),
        (OverCapacity, "प्रतिक्रिया सीमा से अधिक"),
    ],
    of_started: "शुरू करने वालों का {percent}",
    funnel_note: "आमंत्रित और उत्तर देने वालों की गिनती संलग्न ऑडियंस से होती है; शुरू किए गए, पूरे किए गए और \
                  स्वीकृत सत्रों की गिनती में खुले लिंक भी शामिल हैं।",
    no_rating: "1 से 5 तक की कोई रेटिंग नहीं दी गई।",
    csat_share: counted(
        "{n} रेटिंग में से {percent} पैमाने के दो उच्चतम अंकों में",
        "{n} रेटिंगों में से {percent} पैमाने के दो उच्चतम अंकों में",
    ),
    satisfied: "संतुष्ट (4 या 5)",
    other_ratings: "अन्य रेटिंग",
    nps: "नेट प्रमोटर स्कोर (NPS)",
    nps_score: counted("{score}, {n} रेटिंग के आधार पर", "{score}, {n} रेटिंगों के आधार पर"),
    promoters: "प्रमोटर (9 या 10)",
    passives: "पैसिव (7 या 8)",
    detractors: "डिट्रैक्टर (0 से 6)",
    nps_note: "स्कोर प्रमोटरों के प्रतिशत में से डिट्रैक्टरों का प्रतिशत घटाकर निकाला जाता है, -100 से +100 तक।",
    sentiments: [(Positive, "सकारात्मक"), (Neutral, "तटस्थ"), (Negative, "नकारात्मक")],
    not_scored: "अभी तक किसी लिखित उत्तर का विश्लेषण नहीं हुआ है: ऊपर दी गई विश्लेषित भाषाएँ देखें।",
    withheld: counted(
        "नहीं दिखाया गया: {n} से कम प्रतिक्रिया स्वीकार की गई, इसलिए उत्तरदाताओं की सुरक्षा के लिए विस्तृत आँकड़े \
         नहीं दिखाए गए हैं।",
        "नहीं दिखाया गया: {n} से कम प्रतिक्रियाएँ स्वीकार की गईं, इसलिए उत्तरदाताओं की सुरक्षा के लिए विस्तृत \
         आँकड़े नहीं दिखाए गए हैं।",
    ),
    answers: counted("{n} उत्तर", "{n} उत्तर"),
    mean: "औसत {mean}, {min} से {max} के पैमाने पर",
    question_themes: "विषय:",
    no_theme: "किसी विषय का उल्लेख नहीं हुआ।",
    themes_note: "प्रत्येक विषय का उल्लेख करने वाली प्रतिक्रियाएँ।",
    exclusions: &[
        (SIGNATURES, "व्यक्तिगत उत्तर-पैटर्न से किसी उत्तरदाता की पहचान हो सकती है; केवल समेकित आँकड़े निर्यात किए जाते हैं।"),
        (CROSS, "अभियानों के बीच या ऐप उपयोगकर्ताओं से उत्तरों को जोड़ना समेकित निर्यात का हिस्सा नहीं है।"),
        (INDEX, "संयुक्त सूचकांक की गणना नहीं की जाती; इसके घटक “इस अध्ययन के बारे में” खंड में अलग से दिए गए हैं।"),
    ],
    date: "{day} {month} {year}",
    first_day: "1",
    months: ["जनवरी", "फ़रवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई", "अगस्त", "सितंबर", "अक्तूबर", "नवंबर", "दिसंबर"],
    not_launched: "शुरू नहीं हुआ; {end} की स्थिति",
    statuses: ["ड्राफ़्ट, शुरू नहीं हुआ", "संग्रह जारी", "रोका गया", "बंद"],
};
