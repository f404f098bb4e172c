// The respondent page. Plain JavaScript, served as written: no build step, no framework, no
// third-party request. It reads the campaign code, the link's nonce and the tokens in the browser
// and talks to the public routes on its own origin.
(() => {
  "use strict";

  // An app hands over its device token in the fragment (#dt=), which browsers never send to a
  // server. Read it before anything else, keep it in this closure only, and take it out of the
  // address bar so it is not bookmarked, shared or kept in the history.
  const deviceToken = new URLSearchParams(location.hash.slice(1)).get("dt") || null;
  if (location.href.includes("#")) {
    history.replaceState(history.state, "", location.pathname + location.search);
  }

  const API = "/api/v1/public/pulse/";
  // The worker that solves challenges; the service writes in its versioned path when serving this.
  const SOLVER = "{{solver}}";
  const MAX_TEXT = 4000;
  const TOKEN = "[A-Za-z0-9_-]{1,64}";
  const LINK = new RegExp(`^/(?:p/(${TOKEN})|s/(${TOKEN})/(${TOKEN}))$`);
  const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

  // The page's own words, per language and register; questions come from the service in the
  // session's language and the campaign's register, and the page keeps to that register too:
  // `formal` (Sie, usted, vous, आप, Lei, u; Portuguese: você, standard) and `informal` (du, tú, tu,
  // तुम, tu, je; Portuguese: você, colloquial). English has one register, `any`. Hindi avoids
  // verbs that agree with the reader's gender. The Rust tests check that every language and
  // register has every key, and that each register keeps to its own pronouns.
  const STRINGS = {
    en: {
      any: {
        docTitle: "Feedback",
        loading: "Loading…",
        notFoundTitle: "This survey does not exist",
        notFoundBody: "Check the link you opened. If it came from an app, open the survey from the app again.",
        openAppTitle: "Open this survey from the app again",
        openAppMissing: "This survey can only be opened from the app that offers it. Go back to the app and open the survey from there.",
        openAppInvalid: "This link was already used or has expired. Open the survey again from the app, or ask for a new link.",
        answeredTitle: "You have already answered",
        answeredBody: "Thank you! Your feedback has reached us. There is nothing more to do: you can close this page.",
        consentTitle: "Share your feedback",
        askedBy: "{name} would like your feedback.",
        consentIntro: "This short survey asks about your experience.",
        length: "{questions}, about {minutes}",
        questionsOne: "{n} question",
        questionsOther: "{n} questions",
        minutesOne: "{n} minute",
        minutesOther: "{n} minutes",
        consentPrivacy: "Your answers are stored securely and used only to improve the service. You can skip optional questions and stop at any time.",
        privacyLink: "Read the privacy notice",
        newTab: "(opens in a new tab)",
        consentButton: "I agree, start",
        consentNeeded: "Please agree to start the survey.",
        startError: "The survey could not be started. Check your connection and try again.",
        closedTitle: "This survey is closed",
        closedBody: "It is not collecting answers at the moment. Thank you for your interest.",
        invitationTitle: "This survey needs your personal link",
        invitationBody: "Open the survey with the link you received, or from the app.",
        laterTitle: "Please try again later",
        laterBody: "The survey is not taking answers right now. Try again in a little while.",
        progress: "Question {n} of {total}",
        progressAnswered: "{n} of {total} answered",
        required: "Required",
        optional: "Optional",
        lowest: "lowest",
        highest: "highest",
        counter: "{n} of {max} characters",
        next: "Next",
        finish: "Finish",
        back: "Back",
        skip: "Skip",
        answerRequired: "Please answer this question to continue.",
        saveError: "Your answer could not be sent. Check your connection and try again.",
        busyError: "Too many attempts. Wait a moment, then try again.",
        endedTitle: "This survey session has ended",
        endedBody: "Open the survey again from the app or from your link.",
        thanksTitle: "Thank you!",
        thanksBody: "Your feedback has been sent. You can close this page now.",
        errorTitle: "Something went wrong",
        errorBody: "Check your connection and try again.",
        retry: "Try again",
      },
    },
    de: {
      formal: {
        docTitle: "Ihre Meinung",
        loading: "Wird geladen …",
        notFoundTitle: "Diese Umfrage gibt es nicht",
        notFoundBody: "Prüfen Sie den Link, den Sie geöffnet haben. Wenn er aus einer App kam, öffnen Sie die Umfrage erneut aus der App.",
        openAppTitle: "Öffnen Sie diese Umfrage erneut aus der App",
        openAppMissing: "Diese Umfrage lässt sich nur aus der App öffnen, die sie anbietet. Gehen Sie zurück in die App und öffnen Sie die Umfrage dort.",
        openAppInvalid: "Dieser Link wurde bereits verwendet oder ist abgelaufen. Öffnen Sie die Umfrage erneut aus der App oder bitten Sie um einen neuen Link.",
        answeredTitle: "Sie haben bereits geantwortet",
        answeredBody: "Vielen Dank! Ihr Feedback ist bei uns angekommen. Sie müssen nichts weiter tun und können diese Seite schließen.",
        consentTitle: "Ihre Meinung ist gefragt",
        askedBy: "{name} bittet Sie um Ihre Meinung.",
        consentIntro: "Diese kurze Umfrage fragt nach Ihren Erfahrungen.",
        length: "{questions}, etwa {minutes}",
        questionsOne: "{n} Frage",
        questionsOther: "{n} Fragen",
        minutesOne: "{n} Minute",
        minutesOther: "{n} Minuten",
        consentPrivacy: "Ihre Antworten werden sicher gespeichert und nur zur Verbesserung des Angebots verwendet. Optionale Fragen können Sie überspringen, und Sie können jederzeit aufhören.",
        privacyLink: "Datenschutzhinweise lesen",
        newTab: "(öffnet sich in einem neuen Tab)",
        consentButton: "Ich stimme zu, los geht’s",
        consentNeeded: "Bitte stimmen Sie zu, um die Umfrage zu beginnen.",
        startError: "Die Umfrage konnte nicht gestartet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
        closedTitle: "Diese Umfrage ist geschlossen",
        closedBody: "Derzeit werden keine Antworten angenommen. Vielen Dank für Ihr Interesse.",
        invitationTitle: "Für diese Umfrage brauchen Sie Ihren persönlichen Link",
        invitationBody: "Öffnen Sie die Umfrage über den Link, den Sie erhalten haben, oder aus der App.",
        laterTitle: "Bitte versuchen Sie es später erneut",
        laterBody: "Die Umfrage nimmt gerade keine Antworten entgegen. Versuchen Sie es in Kürze noch einmal.",
        progress: "Frage {n} von {total}",
        progressAnswered: "{n} von {total} beantwortet",
        required: "Pflichtfrage",
        optional: "Optional",
        lowest: "niedrigster Wert",
        highest: "höchster Wert",
        counter: "{n} von {max} Zeichen",
        next: "Weiter",
        finish: "Abschließen",
        back: "Zurück",
        skip: "Überspringen",
        answerRequired: "Bitte beantworten Sie diese Frage, um fortzufahren.",
        saveError: "Ihre Antwort konnte nicht gesendet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
        busyError: "Zu viele Versuche. Warten Sie einen Moment und versuchen Sie es dann erneut.",
        endedTitle: "Diese Umfragesitzung ist beendet",
        endedBody: "Öffnen Sie die Umfrage erneut aus der App oder über Ihren Link.",
        thanksTitle: "Vielen Dank!",
        thanksBody: "Ihr Feedback wurde gesendet. Sie können diese Seite jetzt schließen.",
        errorTitle: "Etwas ist schiefgelaufen",
        errorBody: "Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
        retry: "Erneut versuchen",
      },
      informal: {
        docTitle: "Deine Meinung",
        loading: "Wird geladen …",
        notFoundTitle: "Diese Umfrage gibt es nicht",
        notFoundBody: "Prüf den Link, den du geöffnet hast. Wenn er aus einer App kam, öffne die Umfrage noch mal aus der App.",
        openAppTitle: "Öffne diese Umfrage noch mal aus der App",
        openAppMissing: "Diese Umfrage lässt sich nur aus der App öffnen, die sie anbietet. Geh zurück in die App und öffne die Umfrage dort.",
        openAppInvalid: "Dieser Link wurde schon benutzt oder ist abgelaufen. Öffne die Umfrage noch mal aus der App oder frag nach einem neuen Link.",
        answeredTitle: "Du hast schon geantwortet",
        answeredBody: "Danke! Dein Feedback ist bei uns angekommen. Du musst nichts weiter tun und kannst diese Seite schließen.",
        consentTitle: "Deine Meinung ist gefragt",
        askedBy: "{name} möchte wissen, was du denkst.",
        consentIntro: "Diese kurze Umfrage fragt nach deinen Erfahrungen.",
        length: "{questions}, etwa {minutes}",
        questionsOne: "{n} Frage",
        questionsOther: "{n} Fragen",
        minutesOne: "{n} Minute",
        minutesOther: "{n} Minuten",
        consentPrivacy: "Deine Antworten werden sicher gespeichert und nur zur Verbesserung des Angebots verwendet. Optionale Fragen kannst du überspringen, und du kannst jederzeit aufhören.",
        privacyLink: "Datenschutzhinweise lesen",
        newTab: "(öffnet sich in einem neuen Tab)",
        consentButton: "Ich stimme zu, los geht’s",
        consentNeeded: "Bitte stimm zu, um die Umfrage zu beginnen.",
        startError: "Die Umfrage konnte nicht gestartet werden. Prüf deine Verbindung und versuch es noch mal.",
        closedTitle: "Diese Umfrage ist geschlossen",
        closedBody: "Derzeit werden keine Antworten angenommen. Danke für dein Interesse.",
        invitationTitle: "Für diese Umfrage brauchst du deinen persönlichen Link",
        invitationBody: "Öffne die Umfrage über den Link, den du bekommen hast, oder aus der App.",
        laterTitle: "Bitte versuch es später noch mal",
        laterBody: "Die Umfrage nimmt gerade keine Antworten entgegen. Versuch es in Kürze noch mal.",
        progress: "Frage {n} von {total}",
        progressAnswered: "{n} von {total} beantwortet",
        required: "Pflichtfrage",
        optional: "Optional",
        lowest: "niedrigster Wert",
        highest: "höchster Wert",
        counter: "{n} von {max} Zeichen",
        next: "Weiter",
        finish: "Abschließen",
        back: "Zurück",
        skip: "Überspringen",
        answerRequired: "Bitte beantworte diese Frage, um weiterzumachen.",
        saveError: "Deine Antwort konnte nicht gesendet werden. Prüf deine Verbindung und versuch es noch mal.",
        busyError: "Zu viele Versuche. Warte einen Moment und versuch es dann noch mal.",
        endedTitle: "Diese Umfragesitzung ist beendet",
        endedBody: "Öffne die Umfrage noch mal aus der App oder über deinen Link.",
        thanksTitle: "Danke!",
        thanksBody: "Dein Feedback wurde gesendet. Du kannst diese Seite jetzt schließen.",
        errorTitle: "Etwas ist schiefgelaufen",
        errorBody: "Prüf deine Verbindung und versuch es noch mal.",
        retry: "Noch mal versuchen",
      },
    },
    es: {
      formal: {
        docTitle: "Su opinión",
        loading: "Cargando…",
        notFoundTitle: "Esta encuesta no existe",
        notFoundBody: "Compruebe el enlace que ha abierto. Si procedía de una aplicación, vuelva a abrir la encuesta desde la aplicación.",
        openAppTitle: "Vuelva a abrir esta encuesta desde la aplicación",
        openAppMissing: "Esta encuesta solo se puede abrir desde la aplicación que la ofrece. Vuelva a la aplicación y abra la encuesta desde allí.",
        openAppInvalid: "Este enlace ya se ha usado o ha caducado. Vuelva a abrir la encuesta desde la aplicación o solicite un enlace nuevo.",
        answeredTitle: "Ya ha respondido",
        answeredBody: "¡Gracias! Hemos recibido su opinión. No tiene que hacer nada más: ya puede cerrar esta página.",
        consentTitle: "Denos su opinión",
        askedBy: "{name} quiere conocer su opinión.",
        consentIntro: "Esta breve encuesta le pregunta por su experiencia.",
        length: "{questions}, aproximadamente {minutes}",
        questionsOne: "{n} pregunta",
        questionsOther: "{n} preguntas",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minutos",
        consentPrivacy: "Sus respuestas se guardan de forma segura y solo se usan para mejorar el servicio. Puede omitir las preguntas opcionales y parar cuando quiera.",
        privacyLink: "Consulte el aviso de privacidad",
        newTab: "(se abre en una pestaña nueva)",
        consentButton: "Acepto, empezar",
        consentNeeded: "Acepte para empezar la encuesta.",
        startError: "No se pudo iniciar la encuesta. Compruebe su conexión e inténtelo de nuevo.",
        closedTitle: "Esta encuesta está cerrada",
        closedBody: "En este momento no acepta respuestas. Gracias por su interés.",
        invitationTitle: "Esta encuesta necesita su enlace personal",
        invitationBody: "Abra la encuesta con el enlace que recibió o desde la aplicación.",
        laterTitle: "Inténtelo más tarde",
        laterBody: "La encuesta no acepta respuestas ahora mismo. Inténtelo de nuevo dentro de un rato.",
        progress: "Pregunta {n} de {total}",
        progressAnswered: "{n} de {total} respondidas",
        required: "Obligatoria",
        optional: "Opcional",
        lowest: "mínimo",
        highest: "máximo",
        counter: "{n} de {max} caracteres",
        next: "Siguiente",
        finish: "Terminar",
        back: "Atrás",
        skip: "Omitir",
        answerRequired: "Responda a esta pregunta para continuar.",
        saveError: "No se pudo enviar su respuesta. Compruebe su conexión e inténtelo de nuevo.",
        busyError: "Demasiados intentos. Espere un momento e inténtelo de nuevo.",
        endedTitle: "Esta sesión de la encuesta ha terminado",
        endedBody: "Vuelva a abrir la encuesta desde la aplicación o desde su enlace.",
        thanksTitle: "¡Gracias!",
        thanksBody: "Su opinión se ha enviado. Ya puede cerrar esta página.",
        errorTitle: "Algo ha salido mal",
        errorBody: "Compruebe su conexión e inténtelo de nuevo.",
        retry: "Reintentar",
      },
      informal: {
        docTitle: "Tu opinión",
        loading: "Cargando…",
        notFoundTitle: "Esta encuesta no existe",
        notFoundBody: "Comprueba el enlace que has abierto. Si venía de una aplicación, vuelve a abrir la encuesta desde la aplicación.",
        openAppTitle: "Vuelve a abrir esta encuesta desde la aplicación",
        openAppMissing: "Esta encuesta solo se puede abrir desde la aplicación que la ofrece. Vuelve a la aplicación y abre la encuesta desde allí.",
        openAppInvalid: "Este enlace ya se ha usado o ha caducado. Vuelve a abrir la encuesta desde la aplicación o pide un enlace nuevo.",
        answeredTitle: "Ya has respondido",
        answeredBody: "¡Gracias! Hemos recibido tu opinión. No tienes que hacer nada más: ya puedes cerrar esta página.",
        consentTitle: "Danos tu opinión",
        askedBy: "{name} quiere saber qué opinas.",
        consentIntro: "Esta breve encuesta te pregunta por tu experiencia.",
        length: "{questions}, aproximadamente {minutes}",
        questionsOne: "{n} pregunta",
        questionsOther: "{n} preguntas",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minutos",
        consentPrivacy: "Tus respuestas se guardan de forma segura y solo se usan para mejorar el servicio. Puedes saltarte las preguntas opcionales y parar cuando quieras.",
        privacyLink: "Consulta el aviso de privacidad",
        newTab: "(se abre en una pestaña nueva)",
        consentButton: "Acepto, empezar",
        consentNeeded: "Acepta para empezar la encuesta.",
        startError: "No se pudo iniciar la encuesta. Comprueba tu conexión e inténtalo de nuevo.",
        closedTitle: "Esta encuesta está cerrada",
        closedBody: "En este momento no acepta respuestas. Gracias por tu interés.",
        invitationTitle: "Esta encuesta necesita tu enlace personal",
        invitationBody: "Abre la encuesta con el enlace que recibiste o desde la aplicación.",
        laterTitle: "Inténtalo más tarde",
        laterBody: "La encuesta no acepta respuestas ahora mismo. Inténtalo de nuevo dentro de un rato.",
        progress: "Pregunta {n} de {total}",
        progressAnswered: "{n} de {total} respondidas",
        required: "Obligatoria",
        optional: "Opcional",
        lowest: "mínimo",
        highest: "máximo",
        counter: "{n} de {max} caracteres",
        next: "Siguiente",
        finish: "Terminar",
        back: "Atrás",
        skip: "Saltar",
        answerRequired: "Responde a esta pregunta para continuar.",
        saveError: "No se pudo enviar tu respuesta. Comprueba tu conexión e inténtalo de nuevo.",
        busyError: "Demasiados intentos. Espera un momento e inténtalo de nuevo.",
        endedTitle: "Esta sesión de la encuesta ha terminado",
        endedBody: "Vuelve a abrir la encuesta desde la aplicación o desde tu enlace.",
        thanksTitle: "¡Gracias!",
        thanksBody: "Tu opinión se ha enviado. Ya puedes cerrar esta página.",
        errorTitle: "Algo ha salido mal",
        errorBody: "Comprueba tu conexión e inténtalo de nuevo.",
        retry: "Reintentar",
      },
    },
    fr: {
      formal: {
        docTitle: "Votre avis",
        loading: "Chargement…",
        notFoundTitle: "Ce questionnaire n’existe pas",
        notFoundBody: "Vérifiez le lien que vous avez ouvert. S’il provient d’une application, ouvrez à nouveau le questionnaire depuis l’application.",
        openAppTitle: "Ouvrez à nouveau ce questionnaire depuis l’application",
        openAppMissing: "Ce questionnaire ne peut être ouvert que depuis l’application qui le propose. Revenez dans l’application et ouvrez-le depuis celle-ci.",
        openAppInvalid: "Ce lien a déjà été utilisé ou a expiré. Ouvrez à nouveau le questionnaire depuis l’application, ou demandez un nouveau lien.",
        answeredTitle: "Vous avez déjà répondu",
        answeredBody: "Merci\u00a0! Nous avons bien reçu votre avis. Vous n’avez rien d’autre à faire\u00a0: vous pouvez fermer cette page.",
        consentTitle: "Donnez votre avis",
        askedBy: "{name} aimerait connaître votre avis.",
        consentIntro: "Ce court questionnaire porte sur votre expérience.",
        length: "{questions}, environ {minutes}",
        questionsOne: "{n}\u00a0question",
        questionsOther: "{n}\u00a0questions",
        minutesOne: "{n}\u00a0minute",
        minutesOther: "{n}\u00a0minutes",
        consentPrivacy: "Vos réponses sont conservées en toute sécurité et servent uniquement à améliorer le service. Vous pouvez passer les questions facultatives et arrêter à tout moment.",
        privacyLink: "Lire la politique de confidentialité",
        newTab: "(s’ouvre dans un nouvel onglet)",
        consentButton: "J’accepte, commencer",
        consentNeeded: "Veuillez accepter pour commencer le questionnaire.",
        startError: "Le questionnaire n’a pas pu démarrer. Vérifiez votre connexion et réessayez.",
        closedTitle: "Ce questionnaire est fermé",
        closedBody: "Il ne recueille pas de réponses pour le moment. Merci de votre intérêt.",
        invitationTitle: "Ce questionnaire nécessite votre lien personnel",
        invitationBody: "Ouvrez le questionnaire avec le lien que vous avez reçu, ou depuis l’application.",
        laterTitle: "Veuillez réessayer plus tard",
        laterBody: "Le questionnaire n’accepte pas de réponses pour l’instant. Réessayez dans un moment.",
        progress: "Question {n} sur {total}",
        progressAnswered: "Réponses\u00a0: {n} sur {total}",
        required: "Obligatoire",
        optional: "Facultative",
        lowest: "le plus bas",
        highest: "le plus haut",
        counter: "{n} caractères sur {max}",
        next: "Suivant",
        finish: "Terminer",
        back: "Retour",
        skip: "Passer",
        answerRequired: "Veuillez répondre à cette question pour continuer.",
        saveError: "Votre réponse n’a pas pu être envoyée. Vérifiez votre connexion et réessayez.",
        busyError: "Trop de tentatives. Patientez un instant, puis réessayez.",
        endedTitle: "Cette session du questionnaire est terminée",
        endedBody: "Ouvrez à nouveau le questionnaire depuis l’application ou depuis votre lien.",
        thanksTitle: "Merci\u00a0!",
        thanksBody: "Votre avis a été envoyé. Vous pouvez maintenant fermer cette page.",
        errorTitle: "Un problème est survenu",
        errorBody: "Vérifiez votre connexion et réessayez.",
        retry: "Réessayer",
      },
      informal: {
        docTitle: "Ton avis",
        loading: "Chargement…",
        notFoundTitle: "Ce questionnaire n’existe pas",
        notFoundBody: "Vérifie le lien que tu as ouvert. S’il provient d’une application, ouvre à nouveau le questionnaire depuis l’application.",
        openAppTitle: "Ouvre à nouveau ce questionnaire depuis l’application",
        openAppMissing: "Ce questionnaire ne peut être ouvert que depuis l’application qui le propose. Reviens dans l’application et ouvre-le depuis celle-ci.",
        openAppInvalid: "Ce lien a déjà été utilisé ou a expiré. Ouvre à nouveau le questionnaire depuis l’application, ou demande un nouveau lien.",
        answeredTitle: "Tu as déjà répondu",
        answeredBody: "Merci\u00a0! Nous avons bien reçu ton avis. Tu n’as rien d’autre à faire\u00a0: tu peux fermer cette page.",
        consentTitle: "Donne ton avis",
        askedBy: "{name} aimerait connaître ton avis.",
        consentIntro: "Ce court questionnaire porte sur ton expérience.",
        length: "{questions}, environ {minutes}",
        questionsOne: "{n}\u00a0question",
        questionsOther: "{n}\u00a0questions",
        minutesOne: "{n}\u00a0minute",
        minutesOther: "{n}\u00a0minutes",
        consentPrivacy: "Tes réponses sont conservées en toute sécurité et servent uniquement à améliorer le service. Tu peux passer les questions facultatives et arrêter à tout moment.",
        privacyLink: "Lire la politique de confidentialité",
        newTab: "(s’ouvre dans un nouvel onglet)",
        consentButton: "J’accepte, commencer",
        consentNeeded: "Accepte pour commencer le questionnaire.",
        startError: "Le questionnaire n’a pas pu démarrer. Vérifie ta connexion et réessaie.",
        closedTitle: "Ce questionnaire est fermé",
        closedBody: "Il ne recueille pas de réponses pour le moment. Merci de ton intérêt.",
        invitationTitle: "Ce questionnaire nécessite ton lien personnel",
        invitationBody: "Ouvre le questionnaire avec le lien que tu as reçu, ou depuis l’application.",
        laterTitle: "Réessaie plus tard",
        laterBody: "Le questionnaire n’accepte pas de réponses pour l’instant. Réessaie dans un moment.",
        progress: "Question {n} sur {total}",
        progressAnswered: "Réponses\u00a0: {n} sur {total}",
        required: "Obligatoire",
        optional: "Facultative",
        lowest: "le plus bas",
        highest: "le plus haut",
        counter: "{n} caractères sur {max}",
        next: "Suivant",
        finish: "Terminer",
        back: "Retour",
        skip: "Passer",
        answerRequired: "Réponds à cette question pour continuer.",
        saveError: "Ta réponse n’a pas pu être envoyée. Vérifie ta connexion et réessaie.",
        busyError: "Trop de tentatives. Patiente un instant, puis réessaie.",
        endedTitle: "Cette session du questionnaire est terminée",
        endedBody: "Ouvre à nouveau le questionnaire depuis l’application ou depuis ton lien.",
        thanksTitle: "Merci\u00a0!",
        thanksBody: "Ton avis a été envoyé. Tu peux maintenant fermer cette page.",
        errorTitle: "Un problème est survenu",
        errorBody: "Vérifie ta connexion et réessaie.",
        retry: "Réessayer",
      },
    },
    hi: {
      formal: {
        docTitle: "आपकी राय",
        loading: "लोड हो रहा है…",
        notFoundTitle: "यह सर्वे मौजूद नहीं है",
        notFoundBody: "आपने जो लिंक खोला है, उसे जाँचें। अगर यह किसी ऐप से आया था, तो सर्वे को ऐप से फिर से खोलें।",
        openAppTitle: "इस सर्वे को ऐप से फिर से खोलें",
        openAppMissing: "यह सर्वे केवल उसी ऐप से खोला जा सकता है जो इसे पेश करता है। ऐप पर वापस जाएँ और सर्वे वहीं से खोलें।",
        openAppInvalid: "यह लिंक पहले ही इस्तेमाल हो चुका है या इसकी अवधि समाप्त हो गई है। सर्वे को ऐप से फिर से खोलें, या नया लिंक माँगें।",
        answeredTitle: "आपका जवाब पहले ही मिल चुका है",
        answeredBody: "धन्यवाद! आपकी राय हम तक पहुँच गई है। अब कुछ और करने की ज़रूरत नहीं है, यह पेज बंद किया जा सकता है।",
        consentTitle: "अपनी राय बताएँ",
        askedBy: "यह सर्वे {name} की ओर से है।",
        consentIntro: "यह छोटा सर्वे आपके अनुभव के बारे में है।",
        length: "{questions}, लगभग {minutes}",
        questionsOne: "{n} सवाल",
        questionsOther: "{n} सवाल",
        minutesOne: "{n} मिनट",
        minutesOther: "{n} मिनट",
        consentPrivacy: "आपके जवाब सुरक्षित रूप से रखे जाते हैं और केवल सेवा को बेहतर बनाने के लिए इस्तेमाल होते हैं। वैकल्पिक सवाल छोड़ना और कभी भी रुकना आपकी मर्ज़ी है।",
        privacyLink: "गोपनीयता सूचना पढ़ें",
        newTab: "(नए टैब में खुलता है)",
        consentButton: "मैं सहमत हूँ, शुरू करें",
        consentNeeded: "सर्वे शुरू करने के लिए कृपया सहमति दें।",
        startError: "सर्वे शुरू नहीं हो सका। अपना कनेक्शन जाँचें और फिर से कोशिश करें।",
        closedTitle: "यह सर्वे बंद है",
        closedBody: "यह अभी जवाब नहीं ले रहा है। आपकी रुचि के लिए धन्यवाद।",
        invitationTitle: "इस सर्वे के लिए आपके निजी लिंक की ज़रूरत है",
        invitationBody: "सर्वे को उस लिंक से खोलें जो आपको मिला है, या ऐप से।",
        laterTitle: "कृपया बाद में फिर से कोशिश करें",
        laterBody: "सर्वे अभी जवाब नहीं ले रहा है। थोड़ी देर बाद फिर से कोशिश करें।",
        progress: "{total} में से सवाल {n}",
        progressAnswered: "जवाब: {total} में से {n}",
        required: "ज़रूरी",
        optional: "वैकल्पिक",
        lowest: "सबसे कम",
        highest: "सबसे ज़्यादा",
        counter: "{max} में से {n} अक्षर",
        next: "आगे",
        finish: "पूरा करें",
        back: "पीछे",
        skip: "छोड़ें",
        answerRequired: "आगे बढ़ने के लिए कृपया इस सवाल का जवाब दें।",
        saveError: "आपका जवाब भेजा नहीं जा सका। अपना कनेक्शन जाँचें और फिर से कोशिश करें।",
        busyError: "बहुत ज़्यादा कोशिशें हो गईं। थोड़ा रुकें, फिर से कोशिश करें।",
        endedTitle: "सर्वे का यह सत्र समाप्त हो गया है",
        endedBody: "सर्वे को ऐप से या अपने लिंक से फिर से खोलें।",
        thanksTitle: "धन्यवाद!",
        thanksBody: "आपकी राय भेज दी गई है। अब यह पेज बंद किया जा सकता है।",
        errorTitle: "कुछ गड़बड़ हो गई",
        errorBody: "अपना कनेक्शन जाँचें और फिर से कोशिश करें।",
        retry: "फिर से कोशिश करें",
      },
      informal: {
        docTitle: "तुम्हारी राय",
        loading: "लोड हो रहा है…",
        notFoundTitle: "यह सर्वे मौजूद नहीं है",
        notFoundBody: "तुमने जो लिंक खोला है, उसे जाँचो। अगर यह किसी ऐप से आया था, तो सर्वे को ऐप से फिर से खोलो।",
        openAppTitle: "इस सर्वे को ऐप से फिर से खोलो",
        openAppMissing: "यह सर्वे केवल उसी ऐप से खोला जा सकता है जो इसे पेश करता है। ऐप पर वापस जाओ और सर्वे वहीं से खोलो।",
        openAppInvalid: "यह लिंक पहले ही इस्तेमाल हो चुका है या इसकी अवधि समाप्त हो गई है। सर्वे को ऐप से फिर से खोलो, या नया लिंक माँगो।",
        answeredTitle: "तुम्हारा जवाब पहले ही मिल चुका है",
        answeredBody: "धन्यवाद! तुम्हारी राय हम तक पहुँच गई है। अब कुछ और करने की ज़रूरत नहीं है, यह पेज बंद किया जा सकता है।",
        consentTitle: "अपनी राय बताओ",
        askedBy: "यह सर्वे {name} की ओर से है।",
        consentIntro: "यह छोटा सर्वे तुम्हारे अनुभव के बारे में है।",
        length: "{questions}, लगभग {minutes}",
        questionsOne: "{n} सवाल",
        questionsOther: "{n} सवाल",
        minutesOne: "{n} मिनट",
        minutesOther: "{n} मिनट",
        consentPrivacy: "तुम्हारे जवाब सुरक्षित रूप से रखे जाते हैं और केवल सेवा को बेहतर बनाने के लिए इस्तेमाल होते हैं। वैकल्पिक सवाल छोड़ना और कभी भी रुकना तुम्हारी मर्ज़ी है।",
        privacyLink: "गोपनीयता सूचना पढ़ो",
        newTab: "(नए टैब में खुलता है)",
        consentButton: "मैं सहमत हूँ, शुरू करें",
        consentNeeded: "सर्वे शुरू करने के लिए सहमति दो।",
        startError: "सर्वे शुरू नहीं हो सका। अपना कनेक्शन जाँचो और फिर से कोशिश करो।",
        closedTitle: "यह सर्वे बंद है",
        closedBody: "यह अभी जवाब नहीं ले रहा है। तुम्हारी रुचि के लिए धन्यवाद।",
        invitationTitle: "इस सर्वे के लिए तुम्हारे निजी लिंक की ज़रूरत है",
        invitationBody: "सर्वे को उस लिंक से खोलो जो तुम्हें मिला है, या ऐप से।",
        laterTitle: "बाद में फिर से कोशिश करो",
        laterBody: "सर्वे अभी जवाब नहीं ले रहा है। थोड़ी देर बाद फिर से कोशिश करो।",
        progress: "{total} में से सवाल {n}",
        progressAnswered: "जवाब: {total} में से {n}",
        required: "ज़रूरी",
        optional: "वैकल्पिक",
        lowest: "सबसे कम",
        highest: "सबसे ज़्यादा",
        counter: "{max} में से {n} अक्षर",
        next: "आगे",
        finish: "पूरा करो",
        back: "पीछे",
        skip: "छोड़ो",
        answerRequired: "आगे बढ़ने के लिए इस सवाल का जवाब दो।",
        saveError: "तुम्हारा जवाब भेजा नहीं जा सका। अपना कनेक्शन जाँचो और फिर से कोशिश करो।",
        busyError: "बहुत ज़्यादा कोशिशें हो गईं। थोड़ा रुको, फिर से कोशिश करो।",
        endedTitle: "सर्वे का यह सत्र समाप्त हो गया है",
        endedBody: "सर्वे को ऐप से या अपने लिंक से फिर से खोलो।",
        thanksTitle: "धन्यवाद!",
        thanksBody: "तुम्हारी राय भेज दी गई है। अब यह पेज बंद किया जा सकता है।",
        errorTitle: "कुछ गड़बड़ हो गई",
        errorBody: "अपना कनेक्शन जाँचो और फिर से कोशिश करो।",
        retry: "फिर से कोशिश करो",
      },
    },
    it: {
      formal: {
        docTitle: "La Sua opinione",
        loading: "Caricamento…",
        notFoundTitle: "Questo sondaggio non esiste",
        notFoundBody: "Controlli il link che ha aperto. Se proveniva da un’app, apra di nuovo il sondaggio dall’app.",
        openAppTitle: "Apra di nuovo questo sondaggio dall’app",
        openAppMissing: "Questo sondaggio si può aprire solo dall’app che lo propone. Torni nell’app e apra il sondaggio da lì.",
        openAppInvalid: "Questo link è già stato usato o è scaduto. Apra di nuovo il sondaggio dall’app o chieda un nuovo link.",
        answeredTitle: "Ha già risposto",
        answeredBody: "Grazie! Abbiamo ricevuto la Sua opinione. Non deve fare altro: può chiudere questa pagina.",
        consentTitle: "Ci dica cosa ne pensa",
        askedBy: "{name} desidera conoscere la Sua opinione.",
        consentIntro: "Questo breve sondaggio riguarda la Sua esperienza.",
        length: "{questions}, circa {minutes}",
        questionsOne: "{n} domanda",
        questionsOther: "{n} domande",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minuti",
        consentPrivacy: "Le Sue risposte sono conservate in modo sicuro e usate solo per migliorare il servizio. Può saltare le domande facoltative e interrompere in qualsiasi momento.",
        privacyLink: "Legga l’informativa sulla privacy",
        newTab: "(si apre in una nuova scheda)",
        consentButton: "Accetto, iniziamo",
        consentNeeded: "Accetti per iniziare il sondaggio.",
        startError: "Non è stato possibile avviare il sondaggio. Controlli la connessione e riprovi.",
        closedTitle: "Questo sondaggio è chiuso",
        closedBody: "Al momento non raccoglie risposte. La ringraziamo per l’interesse.",
        invitationTitle: "Per questo sondaggio serve il Suo link personale",
        invitationBody: "Apra il sondaggio con il link che ha ricevuto, oppure dall’app.",
        laterTitle: "Riprovi più tardi",
        laterBody: "Il sondaggio non accetta risposte in questo momento. Riprovi tra poco.",
        progress: "Domanda {n} di {total}",
        progressAnswered: "Risposte: {n} di {total}",
        required: "Obbligatoria",
        optional: "Facoltativa",
        lowest: "minimo",
        highest: "massimo",
        counter: "{n} di {max} caratteri",
        next: "Avanti",
        finish: "Concludi",
        back: "Indietro",
        skip: "Salta",
        answerRequired: "Risponda a questa domanda per continuare.",
        saveError: "Non è stato possibile inviare la risposta. Controlli la connessione e riprovi.",
        busyError: "Troppi tentativi. Attenda un momento, poi riprovi.",
        endedTitle: "Questa sessione del sondaggio è terminata",
        endedBody: "Apra di nuovo il sondaggio dall’app o dal Suo link.",
        thanksTitle: "Grazie!",
        thanksBody: "La Sua opinione è stata inviata. Ora può chiudere questa pagina.",
        errorTitle: "Qualcosa è andato storto",
        errorBody: "Controlli la connessione e riprovi.",
        retry: "Riprova",
      },
      informal: {
        docTitle: "La tua opinione",
        loading: "Caricamento…",
        notFoundTitle: "Questo sondaggio non esiste",
        notFoundBody: "Controlla il link che hai aperto. Se proveniva da un’app, apri di nuovo il sondaggio dall’app.",
        openAppTitle: "Apri di nuovo questo sondaggio dall’app",
        openAppMissing: "Questo sondaggio si può aprire solo dall’app che lo propone. Torna nell’app e apri il sondaggio da lì.",
        openAppInvalid: "Questo link è già stato usato o è scaduto. Apri di nuovo il sondaggio dall’app o chiedi un nuovo link.",
        answeredTitle: "Hai già risposto",
        answeredBody: "Grazie! Abbiamo ricevuto la tua opinione. Non devi fare altro: puoi chiudere questa pagina.",
        consentTitle: "Dicci cosa ne pensi",
        askedBy: "{name} vorrebbe sapere cosa ne pensi.",
        consentIntro: "Questo breve sondaggio riguarda la tua esperienza.",
        length: "{questions}, circa {minutes}",
        questionsOne: "{n} domanda",
        questionsOther: "{n} domande",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minuti",
        consentPrivacy: "Le tue risposte sono conservate in modo sicuro e usate solo per migliorare il servizio. Puoi saltare le domande facoltative e fermarti in qualsiasi momento.",
        privacyLink: "Leggi l’informativa sulla privacy",
        newTab: "(si apre in una nuova scheda)",
        consentButton: "Accetto, iniziamo",
        consentNeeded: "Accetta per iniziare il sondaggio.",
        startError: "Non è stato possibile avviare il sondaggio. Controlla la connessione e riprova.",
        closedTitle: "Questo sondaggio è chiuso",
        closedBody: "Al momento non raccoglie risposte. Grazie per l’interesse.",
        invitationTitle: "Per questo sondaggio serve il tuo link personale",
        invitationBody: "Apri il sondaggio con il link che hai ricevuto, oppure dall’app.",
        laterTitle: "Riprova più tardi",
        laterBody: "Il sondaggio non accetta risposte in questo momento. Riprova tra poco.",
        progress: "Domanda {n} di {total}",
        progressAnswered: "Risposte: {n} di {total}",
        required: "Obbligatoria",
        optional: "Facoltativa",
        lowest: "minimo",
        highest: "massimo",
        counter: "{n} di {max} caratteri",
        next: "Avanti",
        finish: "Termina",
        back: "Indietro",
        skip: "Salta",
        answerRequired: "Rispondi a questa domanda per continuare.",
        saveError: "Non è stato possibile inviare la risposta. Controlla la connessione e riprova.",
        busyError: "Troppi tentativi. Attendi un momento, poi riprova.",
        endedTitle: "Questa sessione del sondaggio è terminata",
        endedBody: "Apri di nuovo il sondaggio dall’app o dal tuo link.",
        thanksTitle: "Grazie!",
        thanksBody: "La tua opinione è stata inviata. Ora puoi chiudere questa pagina.",
        errorTitle: "Qualcosa è andato storto",
        errorBody: "Controlla la connessione e riprova.",
        retry: "Riprova",
      },
    },
    nl: {
      formal: {
        docTitle: "Uw mening",
        loading: "Laden…",
        notFoundTitle: "Deze enquête bestaat niet",
        notFoundBody: "Controleer de link die u hebt geopend. Kwam die uit een app, open de enquête dan opnieuw vanuit de app.",
        openAppTitle: "Open deze enquête opnieuw vanuit de app",
        openAppMissing: "Deze enquête kan alleen worden geopend vanuit de app die haar aanbiedt. Ga terug naar de app en open de enquête daar.",
        openAppInvalid: "Deze link is al gebruikt of verlopen. Open de enquête opnieuw vanuit de app, of vraag om een nieuwe link.",
        answeredTitle: "U hebt al geantwoord",
        answeredBody: "Bedankt! We hebben uw mening ontvangen. U hoeft verder niets te doen en kunt deze pagina sluiten.",
        consentTitle: "Geef uw mening",
        askedBy: "{name} hoort graag uw mening.",
        consentIntro: "Deze korte enquête gaat over uw ervaring.",
        length: "{questions}, ongeveer {minutes}",
        questionsOne: "{n} vraag",
        questionsOther: "{n} vragen",
        minutesOne: "{n} minuut",
        minutesOther: "{n} minuten",
        consentPrivacy: "Uw antwoorden worden veilig bewaard en alleen gebruikt om de dienst te verbeteren. U kunt optionele vragen overslaan en op elk moment stoppen.",
        privacyLink: "Lees de privacyverklaring",
        newTab: "(opent in een nieuw tabblad)",
        consentButton: "Ik ga akkoord, beginnen",
        consentNeeded: "Ga akkoord om de enquête te beginnen.",
        startError: "De enquête kon niet worden gestart. Controleer uw verbinding en probeer het opnieuw.",
        closedTitle: "Deze enquête is gesloten",
        closedBody: "Er worden op dit moment geen antwoorden verzameld. Bedankt voor uw interesse.",
        invitationTitle: "Voor deze enquête hebt u uw persoonlijke link nodig",
        invitationBody: "Open de enquête met de link die u hebt ontvangen, of vanuit de app.",
        laterTitle: "Probeer het later opnieuw",
        laterBody: "De enquête neemt op dit moment geen antwoorden aan. Probeer het over een tijdje opnieuw.",
        progress: "Vraag {n} van {total}",
        progressAnswered: "{n} van {total} beantwoord",
        required: "Verplicht",
        optional: "Optioneel",
        lowest: "laagste",
        highest: "hoogste",
        counter: "{n} van {max} tekens",
        next: "Volgende",
        finish: "Afronden",
        back: "Terug",
        skip: "Overslaan",
        answerRequired: "Beantwoord deze vraag om verder te gaan.",
        saveError: "Uw antwoord kon niet worden verzonden. Controleer uw verbinding en probeer het opnieuw.",
        busyError: "Te veel pogingen. Wacht even en probeer het dan opnieuw.",
        endedTitle: "Deze enquêtesessie is afgelopen",
        endedBody: "Open de enquête opnieuw vanuit de app of via uw link.",
        thanksTitle: "Bedankt!",
        thanksBody: "Uw feedback is verzonden. U kunt deze pagina nu sluiten.",
        errorTitle: "Er ging iets mis",
        errorBody: "Controleer uw verbinding en probeer het opnieuw.",
        retry: "Opnieuw proberen",
      },
      informal: {
        docTitle: "Je mening",
        loading: "Laden…",
        notFoundTitle: "Deze enquête bestaat niet",
        notFoundBody: "Controleer de link die je hebt geopend. Kwam die uit een app, open de enquête dan opnieuw vanuit de app.",
        openAppTitle: "Open deze enquête opnieuw vanuit de app",
        openAppMissing: "Deze enquête kan alleen worden geopend vanuit de app die haar aanbiedt. Ga terug naar de app en open de enquête daar.",
        openAppInvalid: "Deze link is al gebruikt of verlopen. Open de enquête opnieuw vanuit de app, of vraag om een nieuwe link.",
        answeredTitle: "Je hebt al geantwoord",
        answeredBody: "Bedankt! We hebben je mening ontvangen. Je hoeft verder niets te doen en kunt deze pagina sluiten.",
        consentTitle: "Geef je mening",
        askedBy: "{name} is benieuwd naar je mening.",
        consentIntro: "Deze korte enquête gaat over je ervaring.",
        length: "{questions}, ongeveer {minutes}",
        questionsOne: "{n} vraag",
        questionsOther: "{n} vragen",
        minutesOne: "{n} minuut",
        minutesOther: "{n} minuten",
        consentPrivacy: "Je antwoorden worden veilig bewaard en alleen gebruikt om de dienst te verbeteren. Je kunt optionele vragen overslaan en op elk moment stoppen.",
        privacyLink: "Lees de privacyverklaring",
        newTab: "(opent in een nieuw tabblad)",
        consentButton: "Ik ga akkoord, beginnen",
        consentNeeded: "Ga akkoord om de enquête te beginnen.",
        startError: "De enquête kon niet worden gestart. Controleer je verbinding en probeer het opnieuw.",
        closedTitle: "Deze enquête is gesloten",
        closedBody: "Er worden op dit moment geen antwoorden verzameld. Bedankt voor je interesse.",
        invitationTitle: "Voor deze enquête heb je je persoonlijke link nodig",
        invitationBody: "Open de enquête met de link die je hebt ontvangen, of vanuit de app.",
        laterTitle: "Probeer het later opnieuw",
        laterBody: "De enquête neemt op dit moment geen antwoorden aan. Probeer het over een tijdje opnieuw.",
        progress: "Vraag {n} van {total}",
        progressAnswered: "{n} van {total} beantwoord",
        required: "Verplicht",
        optional: "Optioneel",
        lowest: "laagste",
        highest: "hoogste",
        counter: "{n} van {max} tekens",
        next: "Volgende",
        finish: "Afronden",
        back: "Terug",
        skip: "Overslaan",
        answerRequired: "Beantwoord deze vraag om verder te gaan.",
        saveError: "Je antwoord kon niet worden verzonden. Controleer je verbinding en probeer het opnieuw.",
        busyError: "Te veel pogingen. Wacht even en probeer het dan opnieuw.",
        endedTitle: "Deze enquêtesessie is afgelopen",
        endedBody: "Open de enquête opnieuw vanuit de app of via je link.",
        thanksTitle: "Bedankt!",
        thanksBody: "Je feedback is verzonden. Je kunt deze pagina nu sluiten.",
        errorTitle: "Er ging iets mis",
        errorBody: "Controleer je verbinding en probeer het opnieuw.",
        retry: "Opnieuw proberen",
      },
    },
    pt: {
      formal: {
        docTitle: "Sua opinião",
        loading: "Carregando…",
        notFoundTitle: "Esta pesquisa não existe",
        notFoundBody: "Verifique o link que você abriu. Se ele veio de um aplicativo, abra a pesquisa novamente pelo aplicativo.",
        openAppTitle: "Abra esta pesquisa novamente pelo aplicativo",
        openAppMissing: "Esta pesquisa só pode ser aberta pelo aplicativo que a oferece. Volte ao aplicativo e abra a pesquisa por lá.",
        openAppInvalid: "Este link já foi usado ou expirou. Abra a pesquisa novamente pelo aplicativo ou peça um novo link.",
        answeredTitle: "Você já respondeu",
        answeredBody: "Obrigado! Recebemos sua opinião. Não é preciso fazer mais nada: você já pode fechar esta página.",
        consentTitle: "Dê sua opinião",
        askedBy: "{name} quer saber sua opinião.",
        consentIntro: "Esta pesquisa rápida é sobre a sua experiência.",
        length: "{questions}, cerca de {minutes}",
        questionsOne: "{n} pergunta",
        questionsOther: "{n} perguntas",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minutos",
        consentPrivacy: "Suas respostas são guardadas com segurança e usadas apenas para melhorar o serviço. Você pode pular as perguntas opcionais e parar a qualquer momento.",
        privacyLink: "Leia o aviso de privacidade",
        newTab: "(abre em uma nova aba)",
        consentButton: "Concordo, começar",
        consentNeeded: "Concorde para começar a pesquisa.",
        startError: "Não foi possível iniciar a pesquisa. Verifique sua conexão e tente novamente.",
        closedTitle: "Esta pesquisa está encerrada",
        closedBody: "Ela não está recebendo respostas no momento. Obrigado pelo interesse.",
        invitationTitle: "Esta pesquisa precisa do seu link pessoal",
        invitationBody: "Abra a pesquisa com o link que você recebeu ou pelo aplicativo.",
        laterTitle: "Tente novamente mais tarde",
        laterBody: "A pesquisa não está recebendo respostas agora. Tente novamente daqui a pouco.",
        progress: "Pergunta {n} de {total}",
        progressAnswered: "{n} de {total} respondidas",
        required: "Obrigatória",
        optional: "Opcional",
        lowest: "mínimo",
        highest: "máximo",
        counter: "{n} de {max} caracteres",
        next: "Próxima",
        finish: "Concluir",
        back: "Voltar",
        skip: "Pular",
        answerRequired: "Responda a esta pergunta para continuar.",
        saveError: "Não foi possível enviar sua resposta. Verifique sua conexão e tente novamente.",
        busyError: "Tentativas demais. Aguarde um momento e tente novamente.",
        endedTitle: "Esta sessão da pesquisa terminou",
        endedBody: "Abra a pesquisa novamente pelo aplicativo ou pelo seu link.",
        thanksTitle: "Obrigado!",
        thanksBody: "Sua opinião foi enviada. Você já pode fechar esta página.",
        errorTitle: "Algo deu errado",
        errorBody: "Verifique sua conexão e tente novamente.",
        retry: "Tentar novamente",
      },
      informal: {
        docTitle: "Sua opinião",
        loading: "Carregando…",
        notFoundTitle: "Essa pesquisa não existe",
        notFoundBody: "Confere o link que você abriu. Se ele veio de um app, abre a pesquisa de novo pelo app.",
        openAppTitle: "Abre essa pesquisa de novo pelo app",
        openAppMissing: "Essa pesquisa só abre pelo próprio app. Volta pro app e abre a pesquisa por lá.",
        openAppInvalid: "Esse link já foi usado ou expirou. Abre a pesquisa de novo pelo app ou pede um link novo.",
        answeredTitle: "Você já respondeu",
        answeredBody: "Valeu! A gente já recebeu sua opinião. Não precisa fazer mais nada: pode fechar esta página.",
        consentTitle: "Conta pra gente o que você achou",
        askedBy: "{name} quer saber o que você acha.",
        consentIntro: "É uma pesquisa rapidinha sobre a sua experiência.",
        length: "{questions}, mais ou menos {minutes}",
        questionsOne: "{n} pergunta",
        questionsOther: "{n} perguntas",
        minutesOne: "{n} minuto",
        minutesOther: "{n} minutos",
        consentPrivacy: "Suas respostas ficam guardadas com segurança e só servem pra melhorar o serviço. Você pode pular as perguntas opcionais e parar quando quiser.",
        privacyLink: "Dá uma olhada no aviso de privacidade",
        newTab: "(abre numa aba nova)",
        consentButton: "Concordo, vamos lá",
        consentNeeded: "Você precisa concordar pra começar a pesquisa.",
        startError: "Não deu pra iniciar a pesquisa. Confere sua conexão e tenta de novo.",
        closedTitle: "Essa pesquisa já fechou",
        closedBody: "Ela não está recebendo respostas agora. Valeu pelo interesse!",
        invitationTitle: "Essa pesquisa precisa do seu link pessoal",
        invitationBody: "Abre a pesquisa pelo link que você recebeu ou pelo app.",
        laterTitle: "Tenta de novo mais tarde",
        laterBody: "A pesquisa não está recebendo respostas agora. Tenta de novo daqui a pouco.",
        progress: "Pergunta {n} de {total}",
        progressAnswered: "{n} de {total} respondidas",
        required: "Obrigatória",
        optional: "Opcional",
        lowest: "mínimo",
        highest: "máximo",
        counter: "{n} de {max} caracteres",
        next: "Próxima",
        finish: "Concluir",
        back: "Voltar",
        skip: "Pular",
        answerRequired: "Responde essa pergunta pra continuar.",
        saveError: "Não deu pra enviar sua resposta. Confere sua conexão e tenta de novo.",
        busyError: "Muitas tentativas. Espera um pouquinho e tenta de novo.",
        endedTitle: "Essa sessão da pesquisa acabou",
        endedBody: "Abre a pesquisa de novo pelo app ou pelo seu link.",
        thanksTitle: "Valeu!",
        thanksBody: "Sua opinião foi enviada. Já pode fechar esta página.",
        errorTitle: "Algo deu errado",
        errorBody: "Confere sua conexão e tenta de novo.",
        retry: "Tentar de novo",
      },
    },
  };

  const path = location.pathname.match(LINK);
  const query = new URLSearchParams(location.search);
  const visit = {
    code: path ? path[1] ?? path[2] : null,
    invitation: path?.[3] ?? null,
    launchToken: query.get("lt") || null,
    language: query.get("lang") || null,
    installId: query.get("inst") || null,
  };
  // With a launch token or an invitation, start honours this key: a retry after a lost answer
  // gets the same session back instead of "already used".
  const startKey = randomKey();

  let strings = STRINGS.en.any;
  let uiLanguage = "en";
  // The language the questions are written in, when it is not the UI's.
  let contentLanguage = null;
  let accessLanguage = null;
  // What the access check says of the campaign (null when it says nothing), and the register of
  // its questions, which the page's own words follow: formal until the campaign says otherwise.
  let campaign = null;
  let register = "formal";
  // The access check's challenge being solved in the worker: resolves to the `altcha` start
  // sends, null without one.
  let solving = null;
  let session = null;
  let current = 0;
  let busy = false;
  // What the respondent entered per question id, and what the service has been sent.
  const drafts = new Map();
  const sent = new Map();

  function randomKey() {
    const bytes = crypto.getRandomValues(new Uint8Array(16));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  function primary(tag) {
    return tag.split("-")[0].toLowerCase();
  }

  // UI strings follow the primary subtag (pt-BR → pt); English when there are none.
  function useLanguage(given) {
    const tag = typeof given === "string" ? given.replaceAll("_", "-") : "";
    const valid = LANGUAGE_TAG.test(tag);
    const ui = valid && Object.hasOwn(STRINGS, primary(tag)) ? primary(tag) : "en";
    strings = STRINGS[ui][register] ?? STRINGS[ui].any;
    uiLanguage = ui;
    document.documentElement.lang = valid && primary(tag) === ui ? tag : ui;
    contentLanguage = valid && primary(tag) !== ui ? tag : null;
    document.title = t("docTitle");
  }

  function t(key, values) {
    const text = strings[key] ?? STRINGS.en.any[key];
    return values ? text.replace(/\{(\w+)\}/g, (_, name) => String(values[name])) : text;
  }

  // "{n} question(s)" and the like: the key's One or Other form, by the UI language's plural rule.
  function count(key, n) {
    const form = new Intl.PluralRules(uiLanguage).select(n) === "one" ? "One" : "Other";
    return t(`${key}${form}`, { n });
  }

  // Builds an element; children are nodes or text (never parsed as HTML).
  function el(tag, attributes, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes ?? {})) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === "function") node.addEventListener(name.replace(/^on/, ""), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    node.append(...children.filter((child) => child !== null && child !== undefined && child !== false));
    return node;
  }

  function announce(text) {
    document.getElementById("announcer").textContent = text;
  }

  // Replaces the screen and moves focus to its heading, so screen readers start there.
  function mount(screen) {
    document.getElementById("app").replaceChildren(screen);
    screen.querySelector("h1").focus();
  }

  function show(id, title, ...content) {
    const heading = el("h1", { tabindex: "-1", id: "screen-title" }, title);
    mount(el("section", { class: "screen", "data-testid": `screen-${id}`, "aria-labelledby": "screen-title" }, heading, ...content));
  }

  function message(id, titleKey, ...bodyKeys) {
    show(id, t(titleKey), ...bodyKeys.map((key) => el("p", {}, t(key))));
  }

  function failed(retry) {
    const button = el("button", { type: "button", class: "primary", "data-testid": "retry-button", onclick: retry }, t("retry"));
    show("error", t("errorTitle"), el("p", {}, t("errorBody")), el("div", { class: "actions" }, button));
  }

  function openFromApp(invalid) {
    if (invalid) message("open-from-app", "openAppTitle", "openAppInvalid");
    else message("open-from-app", "openAppTitle", "openAppMissing");
  }

  async function call(method, route, { body, token, idempotencyKey } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = `Bearer ${token}`;
    if (idempotencyKey) headers["Idempotency-Key"] = idempotencyKey;
    const response = await fetch(API + route, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
      credentials: "omit",
      redirect: "error",
      referrerPolicy: "no-referrer",
      signal: AbortSignal.timeout(30000),
    });
    const json = (response.headers.get("Content-Type") ?? "").startsWith("application/json");
    return { status: response.status, data: json ? await response.json().catch(() => null) : null };
  }

  function codePath(rest) {
    return `${encodeURIComponent(visit.code)}/${rest}`;
  }

  function accessRoute() {
    const params = new URLSearchParams();
    if (visit.launchToken) params.set("lt", visit.launchToken);
    if (visit.invitation) params.set("invitation", visit.invitation);
    if (visit.language) params.set("lang", visit.language);
    return codePath(`access?${params}`);
  }

  async function checkAccess() {
    message("loading", "loading");
    let reply;
    try {
      reply = await call("GET", accessRoute());
    } catch {
      return failed(checkAccess);
    }
    if (reply.status === 404) return message("not-found", "notFoundTitle", "notFoundBody");
    if (reply.status === 429) return message("try-later", "laterTitle", "laterBody");
    if (reply.status !== 200 || !reply.data) return failed(checkAccess);
    accessLanguage = reply.data.language ?? visit.language;
    campaign = aboutCampaign(reply.data.campaign);
    register = campaign?.register === "INFORMAL" ? "informal" : "formal";
    useLanguage(accessLanguage ?? navigator.language);
    // A link whose survey was finished: thank the person, whatever else holds.
    if (reply.data.answered === true) return message("answered", "answeredTitle", "answeredBody");
    if (reply.data.refusal) return openFromApp(reply.data.state === "INVALID");
    if (campaign?.collecting === false) return message("closed", "closedTitle", "closedBody");
    // Solved while the person reads the consent screen, so start rarely has to wait for it.
    solving = reply.data.challenge ? solve(reply.data.challenge) : null;
    return consent();
  }

  // Solves a challenge in the worker, off the page's thread: the `altcha` for start, or null when
  // it cannot be solved here (start then says whether it was needed). How long solving took goes
  // on the document element, unseen, for whoever measures the page.
  function solve(challenge) {
    return new Promise((resolve) => {
      const worker = new Worker(SOLVER);
      const done = (solution) => {
        worker.terminate();
        if (solution) document.documentElement.dataset.challengeMs = String(solution.time);
        resolve(solution ? { challenge, solution } : null);
      };
      worker.addEventListener("message", (event) => done(event.data));
      worker.addEventListener("error", () => done(null));
      worker.postMessage(challenge.parameters);
    }).catch(() => null);
  }

  // A fresh access check's challenge, solved; null when it has none or cannot be had.
  async function solveAgain() {
    try {
      const reply = await call("GET", accessRoute());
      return reply.status === 200 && reply.data?.challenge ? await solve(reply.data.challenge) : null;
    } catch {
      return null;
    }
  }

  // The campaign block of the access check, each field checked; a server without it, or a field
  // of the wrong kind, leaves that part of the consent screen out.
  function aboutCampaign(block) {
    if (!block || typeof block !== "object") return null;
    const text = (value) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null);
    const whole = (value) => (Number.isInteger(value) && value >= 0 ? value : null);
    return {
      name: text(block.name),
      askedBy: text(block.askedBy),
      privacyNoticeUrl: httpsUrl(block.privacyNoticeUrl),
      questionCount: whole(block.questionCount),
      estimatedMinutes: whole(block.estimatedMinutes),
      register: block.register,
      collecting: typeof block.collecting === "boolean" ? block.collecting : null,
    };
  }

  // Only an https link is offered: never a javascript: or data: URL, whoever set it.
  function httpsUrl(value) {
    if (typeof value !== "string") return null;
    try {
      const url = new URL(value);
      return url.protocol === "https:" ? url.href : null;
    } catch {
      return null;
    }
  }

  // Who asks, for which campaign, how long it takes, and where the partner's privacy notice is:
  // what a person needs to know before agreeing. The partner's texts are inserted as text.
  function consent(errorKey) {
    const error = el("p", { class: "error", role: "alert", "data-testid": "consent-error" }, errorKey ? t(errorKey) : "");
    const button = el("button", { type: "button", class: "primary", "data-testid": "consent-button" }, t("consentButton"));
    button.addEventListener("click", () => start(button, error));
    const about = campaign ?? {};
    const length =
      about.questionCount > 0 && Number.isInteger(about.estimatedMinutes)
        ? t("length", {
            questions: count("questions", about.questionCount),
            minutes: count("minutes", Math.max(1, about.estimatedMinutes)),
          })
        : null;
    const privacy = about.privacyNoticeUrl
      ? el(
          "a",
          { href: about.privacyNoticeUrl, target: "_blank", rel: "noopener noreferrer", "data-testid": "privacy-link" },
          t("privacyLink"),
          el("span", { class: "visually-hidden" }, ` ${t("newTab")}`),
        )
      : null;
    show(
      "consent",
      about.name ?? t("consentTitle"),
      about.askedBy && el("p", { class: "asked-by", "data-testid": "consent-asked-by" }, t("askedBy", { name: about.askedBy })),
      el("p", {}, t("consentIntro")),
      length && el("p", { class: "length", "data-testid": "consent-length" }, length),
      el("p", { class: "muted" }, t("consentPrivacy"), privacy && " ", privacy),
      error,
      el("div", { class: "actions" }, button),
    );
  }

  function setBusy(container, value) {
    busy = value;
    container.setAttribute("aria-busy", String(value));
    // aria-disabled rather than disabled: a disabled button would drop the keyboard focus.
    for (const button of container.querySelectorAll("button")) button.setAttribute("aria-disabled", String(value));
  }

  async function start(button, error) {
    if (busy) return;
    const view = button.closest("section");
    setBusy(view, true);
    error.textContent = "";
    let reply = await begin(await solving);
    // The challenge was needed only after the access check (more starts came in since), or it
    // expired or was spent: solve a fresh one and try once more.
    if (reply?.status === 403 && reply.data?.code === "CHALLENGE_REQUIRED") {
      solving = solveAgain();
      const altcha = await solving;
      if (altcha) reply = await begin(altcha);
    }
    setBusy(view, false);
    const data = reply?.data;
    // 200 with a session: a retry of a start whose answer was lost, replayed for its key.
    if ((reply?.status === 201 || reply?.status === 200) && data?.sessionId && Array.isArray(data.questions)) {
      session = { id: data.sessionId, token: data.sessionToken, questions: data.questions };
      useLanguage(data.language ?? accessLanguage);
      return session.questions.length > 0 ? showQuestion(0) : complete();
    }
    if (reply?.status === 200 && data?.started === false) {
      if (data.reason === "CAMPAIGN_NOT_OPEN") return message("closed", "closedTitle", "closedBody");
      if (data.reason === "INVITATION_REQUIRED") return message("invitation-required", "invitationTitle", "invitationBody");
      return consent("consentNeeded");
    }
    if (reply?.status === 403 && data?.code !== "CHALLENGE_REQUIRED") {
      return openFromApp(data?.code === "LAUNCH_TOKEN_INVALID");
    }
    if (reply?.status === 404) return message("not-found", "notFoundTitle", "notFoundBody");
    if (reply?.status === 429) return message("try-later", "laterTitle", "laterBody");
    error.textContent = t("startError");
  }

  // POST …/start with what the visit carries; null when the service cannot be reached.
  async function begin(altcha) {
    const secret = visit.launchToken || visit.invitation;
    try {
      return await call("POST", codePath("start"), {
        idempotencyKey: secret ? startKey : null,
        body: {
          consentGiven: true,
          language: accessLanguage,
          launchToken: visit.launchToken,
          invitation: visit.invitation,
          deviceToken,
          installId: visit.installId,
          altcha,
          client: {
            screen: `${screen.width}x${screen.height}`,
            darkMode: matchMedia("(prefers-color-scheme: dark)").matches,
            reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
            page: "web",
          },
        },
      });
    } catch {
      return null;
    }
  }

  function showQuestion(index) {
    current = index;
    const question = session.questions[index];
    const total = session.questions.length;
    const number = index + 1;
    const progress = t("progress", { n: number, total });
    const draft = drafts.get(question.id);
    const described = "question-requirement question-error";

    const heading = el("h1", { tabindex: "-1", id: "question-text", "data-testid": "question-text", lang: contentLanguage });
    const requirement = el(
      "p",
      { class: "requirement", id: "question-requirement", "data-testid": "question-requirement" },
      question.required ? t("required") : t("optional"),
    );
    const error = el("p", { class: "error", id: "question-error", role: "alert", "data-testid": "question-error" });
    let field;
    if (question.type === "rating") {
      const min = question.scale?.min ?? 1;
      const max = question.scale?.max ?? 5;
      const options = [];
      for (let value = min; value <= max; value += 1) {
        const input = el("input", { type: "radio", name: "rating", value, id: `rating-${value}`, required: question.required });
        input.checked = draft === value;
        input.addEventListener("change", () => clearError(field, error));
        const end = value === min ? t("lowest") : value === max ? t("highest") : null;
        options.push(
          el(
            "label",
            { class: "option", for: `rating-${value}`, "data-testid": `rating-option-${value}` },
            input,
            el("span", { class: "face" }, String(value)),
            end && el("span", { class: "visually-hidden" }, ` (${end})`),
          ),
        );
      }
      heading.append(question.text);
      field = el(
        "fieldset",
        { "aria-describedby": described, "data-testid": "rating-scale" },
        el("legend", {}, heading),
        requirement,
        el("div", { class: "scale" }, ...options),
        el(
          "div",
          { class: "scale-ends", "aria-hidden": "true" },
          el("span", {}, `${min} = ${t("lowest")}`),
          el("span", {}, `${max} = ${t("highest")}`),
        ),
      );
    } else {
      const counter = el("p", { class: "counter", id: "text-counter", "data-testid": "text-counter" });
      const textarea = el("textarea", {
        id: "text-answer",
        name: "text",
        rows: 5,
        maxlength: MAX_TEXT,
        required: question.required,
        "aria-describedby": `${described} text-counter`,
        "data-testid": "text-answer",
      });
      textarea.value = draft ?? "";
      const count = () => {
        counter.textContent = t("counter", { n: textarea.value.length, max: MAX_TEXT });
      };
      count();
      textarea.addEventListener("input", () => {
        count();
        clearError(field, error);
      });
      heading.append(el("label", { for: "text-answer" }, question.text));
      field = el("div", {}, heading, requirement, textarea, counter);
    }

    const next = el("button", { type: "submit", class: "primary", "data-testid": "next-button" }, number === total ? t("finish") : t("next"));
    const skip = question.required
      ? null
      : el("button", { type: "button", "data-testid": "skip-button", onclick: () => move(1, true) }, t("skip"));
    const back = index > 0 ? el("button", { type: "button", "data-testid": "back-button", onclick: () => move(-1, false) }, t("back")) : null;
    const form = el("form", { novalidate: true, "data-testid": "question-form" }, field, error, el("div", { class: "actions" }, back, skip, next));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      move(1, false);
    });

    // The bar counts the questions the service has an answer to, never the one on screen.
    const answered = session.questions.filter((q) => sent.has(q.id)).length;
    const fill = el("div", { class: "progress-fill" });
    // CSSOM, not a style attribute: the policy refuses inline styles.
    fill.style.width = `${(100 * answered) / total}%`;
    const bar = el(
      "div",
      {
        class: "progress",
        role: "progressbar",
        "aria-labelledby": "progress-text",
        "aria-valuemin": 0,
        "aria-valuemax": total,
        "aria-valuenow": answered,
        "aria-valuetext": t("progressAnswered", { n: answered, total }),
        "data-testid": "progress-bar",
      },
      fill,
    );
    const screen = el(
      "section",
      {
        class: "screen",
        "aria-labelledby": "question-text",
        "data-testid": "screen-question",
        "data-question-index": number,
        "data-question-total": total,
        "data-question-type": question.type,
        "data-required": String(Boolean(question.required)),
      },
      el("p", { class: "progress-text", id: "progress-text", "data-testid": "progress-text" }, progress),
      bar,
      form,
    );
    mount(screen);
    announce(progress);
  }

  function clearError(field, error) {
    error.textContent = "";
    for (const input of field.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  }

  // The answer on screen: a number for a rating, the text for a text question; null when none.
  function currentAnswer(question, screen) {
    if (question.type === "rating") {
      const checked = screen.querySelector("input[name=rating]:checked");
      return checked ? Number(checked.value) : null;
    }
    const text = screen.querySelector("textarea").value;
    return text.trim() === "" ? null : text;
  }

  async function move(step, skipping) {
    if (busy) return;
    const screen = document.querySelector("[data-testid=screen-question]");
    const question = session.questions[current];
    const error = screen.querySelector("[data-testid=question-error]");
    const answer = skipping ? null : currentAnswer(question, screen);
    if (answer === null) drafts.delete(question.id);
    else drafts.set(question.id, answer);
    if (step < 0) return showQuestion(current - 1);
    if (answer === null && question.required) {
      for (const input of screen.querySelectorAll("input, textarea")) input.setAttribute("aria-invalid", "true");
      error.textContent = t("answerRequired");
      screen.querySelector("input, textarea").focus();
      return undefined;
    }
    const value = typeof answer === "string" ? answer.trim() : answer;
    if (answer !== null && sent.get(question.id) !== value) {
      setBusy(screen, true);
      error.textContent = "";
      const reply = await post(`sessions/${encodeURIComponent(session.id)}/answers`, {
        answers: [{ questionId: question.id, value }],
      });
      setBusy(screen, false);
      if (reply?.status !== 200) return trouble(reply, error);
      sent.set(question.id, value);
    }
    return current + 1 < session.questions.length ? showQuestion(current + 1) : complete(screen, error);
  }

  async function post(route, body) {
    try {
      return await call("POST", codePath(route), { body, token: session.token });
    } catch {
      return null;
    }
  }

  async function complete(screen, error) {
    if (screen) setBusy(screen, true);
    const reply = await post(`sessions/${encodeURIComponent(session.id)}/complete`);
    if (screen) setBusy(screen, false);
    if (reply?.status === 200) return thanks();
    return trouble(reply, error, () => complete());
  }

  // A refused or lost answer: said politely where it happened, so the same button tries again.
  function trouble(reply, error, retry) {
    const status = reply?.status;
    if (status === 409) return thanks();
    if (status === 401 || status === 404) return message("session-ended", "endedTitle", "endedBody");
    if (!error) return failed(retry);
    error.textContent = status === 429 ? t("busyError") : t("saveError");
    return undefined;
  }

  function thanks() {
    session = null;
    message("finish", "thanksTitle", "thanksBody");
    announce(t("thanksTitle"));
  }

  document.addEventListener(
    "DOMContentLoaded",
    () => {
      useLanguage(visit.language ?? navigator.language);
      if (!visit.code) return message("not-found", "notFoundTitle", "notFoundBody");
      return checkAccess();
    },
    { once: true },
  );
})();
