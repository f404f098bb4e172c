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
  const MAX_TEXT = 4000;
  const TOKEN = "[A-Za-z0-9_-]{1,64}";
  const LINK = new RegExp(`^/(?:p/(${TOKEN})|s/(${TOKEN})/(${TOKEN}))$`);
  const LANGUAGE_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/;

  // The page's own words; questions come from the service in the session's language. The Rust
  // tests check that every language has every key.
  const STRINGS = {
    en: {
      docTitle: "Feedback",
      loading: "Loading…",
      notFoundTitle: "This survey does not exist",
      notFoundBody: "Check the link you opened. If it came from an app, open the survey from the app again.",
      openAppTitle: "Open this survey from the app again",
      openAppMissing: "This survey can only be opened from the app that offers it. Go back to the app and open the survey from there.",
      openAppInvalid: "This link was already used or has expired. Open the survey again from the app, or ask for a new link.",
      consentTitle: "Share your feedback",
      consentIntro: "This short survey asks a few questions about your experience.",
      consentPrivacy: "Your answers are stored securely and used only to improve the service. You can skip optional questions and stop at any time.",
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
    de: {
      docTitle: "Feedback",
      loading: "Wird geladen …",
      notFoundTitle: "Diese Umfrage gibt es nicht",
      notFoundBody: "Prüfen Sie den Link, den Sie geöffnet haben. Wenn er aus einer App kam, öffnen Sie die Umfrage erneut aus der App.",
      openAppTitle: "Öffnen Sie diese Umfrage erneut aus der App",
      openAppMissing: "Diese Umfrage lässt sich nur aus der App öffnen, die sie anbietet. Gehen Sie zurück in die App und öffnen Sie die Umfrage dort.",
      openAppInvalid: "Dieser Link wurde bereits verwendet oder ist abgelaufen. Öffnen Sie die Umfrage erneut aus der App oder bitten Sie um einen neuen Link.",
      consentTitle: "Ihre Meinung ist gefragt",
      consentIntro: "Diese kurze Umfrage stellt Ihnen einige Fragen zu Ihren Erfahrungen.",
      consentPrivacy: "Ihre Antworten werden sicher gespeichert und nur zur Verbesserung des Angebots verwendet. Optionale Fragen können Sie überspringen, und Sie können jederzeit aufhören.",
      consentButton: "Ich stimme zu, los geht’s",
      consentNeeded: "Bitte stimmen Sie zu, um die Umfrage zu beginnen.",
      startError: "Die Umfrage konnte nicht gestartet werden. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.",
      closedTitle: "Diese Umfrage ist geschlossen",
      closedBody: "Sie nimmt derzeit keine Antworten entgegen. Vielen Dank für Ihr Interesse.",
      invitationTitle: "Für diese Umfrage brauchen Sie Ihren persönlichen Link",
      invitationBody: "Öffnen Sie die Umfrage über den Link, den Sie erhalten haben, oder aus der App.",
      laterTitle: "Bitte versuchen Sie es später erneut",
      laterBody: "Die Umfrage nimmt gerade keine Antworten entgegen. Versuchen Sie es in Kürze noch einmal.",
      progress: "Frage {n} von {total}",
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
    es: {
      docTitle: "Tu opinión",
      loading: "Cargando…",
      notFoundTitle: "Esta encuesta no existe",
      notFoundBody: "Comprueba el enlace que has abierto. Si venía de una aplicación, vuelve a abrir la encuesta desde la aplicación.",
      openAppTitle: "Vuelve a abrir esta encuesta desde la aplicación",
      openAppMissing: "Esta encuesta solo se puede abrir desde la aplicación que la ofrece. Vuelve a la aplicación y abre la encuesta desde allí.",
      openAppInvalid: "Este enlace ya se ha usado o ha caducado. Vuelve a abrir la encuesta desde la aplicación o pide un enlace nuevo.",
      consentTitle: "Danos tu opinión",
      consentIntro: "Esta breve encuesta te hace algunas preguntas sobre tu experiencia.",
      consentPrivacy: "Tus respuestas se guardan de forma segura y solo se usan para mejorar el servicio. Puedes saltarte las preguntas opcionales y parar cuando quieras.",
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
    fr: {
      docTitle: "Votre avis",
      loading: "Chargement…",
      notFoundTitle: "Ce questionnaire n’existe pas",
      notFoundBody: "Vérifiez le lien que vous avez ouvert. S’il provient d’une application, ouvrez à nouveau le questionnaire depuis l’application.",
      openAppTitle: "Ouvrez à nouveau ce questionnaire depuis l’application",
      openAppMissing: "Ce questionnaire ne peut être ouvert que depuis l’application qui le propose. Revenez dans l’application et ouvrez-le depuis celle-ci.",
      openAppInvalid: "Ce lien a déjà été utilisé ou a expiré. Ouvrez à nouveau le questionnaire depuis l’application, ou demandez un nouveau lien.",
      consentTitle: "Donnez votre avis",
      consentIntro: "Ce court questionnaire vous pose quelques questions sur votre expérience.",
      consentPrivacy: "Vos réponses sont conservées en toute sécurité et servent uniquement à améliorer le service. Vous pouvez passer les questions facultatives et arrêter à tout moment.",
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
      thanksTitle: "Merci !",
      thanksBody: "Votre avis a été envoyé. Vous pouvez maintenant fermer cette page.",
      errorTitle: "Un problème est survenu",
      errorBody: "Vérifiez votre connexion et réessayez.",
      retry: "Réessayer",
    },
    hi: {
      docTitle: "आपकी राय",
      loading: "लोड हो रहा है…",
      notFoundTitle: "यह सर्वे मौजूद नहीं है",
      notFoundBody: "आपने जो लिंक खोला है, उसे जाँचें। अगर यह किसी ऐप से आया था, तो सर्वे को ऐप से फिर से खोलें।",
      openAppTitle: "इस सर्वे को ऐप से फिर से खोलें",
      openAppMissing: "यह सर्वे केवल उसी ऐप से खोला जा सकता है जो इसे पेश करता है। ऐप पर वापस जाएँ और सर्वे वहीं से खोलें।",
      openAppInvalid: "यह लिंक पहले ही इस्तेमाल हो चुका है या इसकी अवधि समाप्त हो गई है। सर्वे को ऐप से फिर से खोलें, या नया लिंक माँगें।",
      consentTitle: "अपनी राय बताएँ",
      consentIntro: "यह छोटा सर्वे आपके अनुभव के बारे में कुछ सवाल पूछता है।",
      consentPrivacy: "आपके जवाब सुरक्षित रूप से रखे जाते हैं और केवल सेवा को बेहतर बनाने के लिए इस्तेमाल होते हैं। आप वैकल्पिक सवाल छोड़ सकते हैं और कभी भी रुक सकते हैं।",
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
      thanksBody: "आपकी राय भेज दी गई है। अब आप यह पेज बंद कर सकते हैं।",
      errorTitle: "कुछ गड़बड़ हो गई",
      errorBody: "अपना कनेक्शन जाँचें और फिर से कोशिश करें।",
      retry: "फिर से कोशिश करें",
    },
    it: {
      docTitle: "La tua opinione",
      loading: "Caricamento…",
      notFoundTitle: "Questo sondaggio non esiste",
      notFoundBody: "Controlla il link che hai aperto. Se proveniva da un’app, apri di nuovo il sondaggio dall’app.",
      openAppTitle: "Apri di nuovo questo sondaggio dall’app",
      openAppMissing: "Questo sondaggio si può aprire solo dall’app che lo propone. Torna nell’app e apri il sondaggio da lì.",
      openAppInvalid: "Questo link è già stato usato o è scaduto. Apri di nuovo il sondaggio dall’app o chiedi un nuovo link.",
      consentTitle: "Dicci cosa ne pensi",
      consentIntro: "Questo breve sondaggio ti fa alcune domande sulla tua esperienza.",
      consentPrivacy: "Le tue risposte sono conservate in modo sicuro e usate solo per migliorare il servizio. Puoi saltare le domande facoltative e fermarti in qualsiasi momento.",
      consentButton: "Accetto, inizia",
      consentNeeded: "Accetta per iniziare il sondaggio.",
      startError: "Non è stato possibile avviare il sondaggio. Controlla la connessione e riprova.",
      closedTitle: "Questo sondaggio è chiuso",
      closedBody: "Al momento non raccoglie risposte. Grazie per l’interesse.",
      invitationTitle: "Per questo sondaggio serve il tuo link personale",
      invitationBody: "Apri il sondaggio con il link che hai ricevuto, oppure dall’app.",
      laterTitle: "Riprova più tardi",
      laterBody: "Il sondaggio non accetta risposte in questo momento. Riprova tra poco.",
      progress: "Domanda {n} di {total}",
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
    nl: {
      docTitle: "Feedback",
      loading: "Laden…",
      notFoundTitle: "Deze enquête bestaat niet",
      notFoundBody: "Controleer de link die je hebt geopend. Kwam die uit een app, open de enquête dan opnieuw vanuit de app.",
      openAppTitle: "Open deze enquête opnieuw vanuit de app",
      openAppMissing: "Deze enquête kan alleen worden geopend vanuit de app die haar aanbiedt. Ga terug naar de app en open de enquête daar.",
      openAppInvalid: "Deze link is al gebruikt of verlopen. Open de enquête opnieuw vanuit de app, of vraag om een nieuwe link.",
      consentTitle: "Geef je mening",
      consentIntro: "Deze korte enquête stelt je een paar vragen over je ervaring.",
      consentPrivacy: "Je antwoorden worden veilig bewaard en alleen gebruikt om de dienst te verbeteren. Je kunt optionele vragen overslaan en op elk moment stoppen.",
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
    pt: {
      docTitle: "Sua opinião",
      loading: "Carregando…",
      notFoundTitle: "Esta pesquisa não existe",
      notFoundBody: "Verifique o link que você abriu. Se ele veio de um aplicativo, abra a pesquisa novamente pelo aplicativo.",
      openAppTitle: "Abra esta pesquisa novamente pelo aplicativo",
      openAppMissing: "Esta pesquisa só pode ser aberta pelo aplicativo que a oferece. Volte ao aplicativo e abra a pesquisa por lá.",
      openAppInvalid: "Este link já foi usado ou expirou. Abra a pesquisa novamente pelo aplicativo ou peça um novo link.",
      consentTitle: "Dê sua opinião",
      consentIntro: "Esta pesquisa rápida faz algumas perguntas sobre a sua experiência.",
      consentPrivacy: "Suas respostas são guardadas com segurança e usadas apenas para melhorar o serviço. Você pode pular as perguntas opcionais e parar a qualquer momento.",
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

  let strings = STRINGS.en;
  // The language the questions are written in, when it is not the UI's.
  let contentLanguage = null;
  let accessLanguage = null;
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
    strings = STRINGS[ui];
    document.documentElement.lang = valid && primary(tag) === ui ? tag : ui;
    contentLanguage = valid && primary(tag) !== ui ? tag : null;
    document.title = t("docTitle");
  }

  function t(key, values) {
    const text = strings[key] ?? STRINGS.en[key];
    return values ? text.replace(/\{(\w+)\}/g, (_, name) => String(values[name])) : text;
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

  async function checkAccess() {
    message("loading", "loading");
    const params = new URLSearchParams();
    if (visit.launchToken) params.set("lt", visit.launchToken);
    if (visit.invitation) params.set("invitation", visit.invitation);
    if (visit.language) params.set("lang", visit.language);
    let reply;
    try {
      reply = await call("GET", codePath(`access?${params}`));
    } catch {
      return failed(checkAccess);
    }
    if (reply.status === 404) return message("not-found", "notFoundTitle", "notFoundBody");
    if (reply.status === 429) return message("try-later", "laterTitle", "laterBody");
    if (reply.status !== 200 || !reply.data) return failed(checkAccess);
    accessLanguage = reply.data.language ?? visit.language;
    useLanguage(accessLanguage ?? navigator.language);
    if (reply.data.refusal) return openFromApp(reply.data.state === "INVALID");
    return consent();
  }

  function consent(errorKey) {
    const error = el("p", { class: "error", role: "alert", "data-testid": "consent-error" }, errorKey ? t(errorKey) : "");
    const button = el("button", { type: "button", class: "primary", "data-testid": "consent-button" }, t("consentButton"));
    button.addEventListener("click", () => start(button, error));
    show(
      "consent",
      t("consentTitle"),
      el("p", {}, t("consentIntro")),
      el("p", { class: "muted" }, t("consentPrivacy")),
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
    const secret = visit.launchToken || visit.invitation;
    let reply = null;
    try {
      reply = await call("POST", codePath("start"), {
        idempotencyKey: secret ? startKey : null,
        body: {
          consentGiven: true,
          language: accessLanguage,
          launchToken: visit.launchToken,
          invitation: visit.invitation,
          deviceToken,
          installId: visit.installId,
          client: {
            screen: `${screen.width}x${screen.height}`,
            darkMode: matchMedia("(prefers-color-scheme: dark)").matches,
            reducedMotion: matchMedia("(prefers-reduced-motion: reduce)").matches,
            page: "web",
          },
        },
      });
    } catch {
      reply = null;
    }
    setBusy(view, false);
    const data = reply?.data;
    if (reply?.status === 201 && data?.sessionId && Array.isArray(data.questions)) {
      session = { id: data.sessionId, token: data.sessionToken, questions: data.questions };
      useLanguage(data.language ?? accessLanguage);
      return session.questions.length > 0 ? showQuestion(0) : complete();
    }
    if (reply?.status === 200 && data?.started === false) {
      if (data.reason === "CAMPAIGN_NOT_OPEN") return message("closed", "closedTitle", "closedBody");
      if (data.reason === "INVITATION_REQUIRED") return message("invitation-required", "invitationTitle", "invitationBody");
      return consent("consentNeeded");
    }
    if (reply?.status === 403) return openFromApp(data?.code === "LAUNCH_TOKEN_INVALID");
    if (reply?.status === 404) return message("not-found", "notFoundTitle", "notFoundBody");
    if (reply?.status === 429) return message("try-later", "laterTitle", "laterBody");
    error.textContent = t("startError");
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

    const fill = el("div", { class: "progress-fill" });
    // CSSOM, not a style attribute: the policy refuses inline styles.
    fill.style.width = `${(100 * number) / total}%`;
    const bar = el(
      "div",
      {
        class: "progress",
        role: "progressbar",
        "aria-labelledby": "progress-text",
        "aria-valuemin": 0,
        "aria-valuemax": total,
        "aria-valuenow": number,
        "aria-valuetext": progress,
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
