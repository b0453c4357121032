// Deniable respondent wording: every sentence a respondent reads about how
// their answers are protected, produced on the device from the integer
// weights the randomizer checked, never taken from the server.
//
// - Every language's text is here, in this hashed module: English (CATALOG),
//   Spanish, French and a partial Arabic. A translation the server could
//   swap would let it make the device say anything, so none is fetched.
//   `wordingFor(document.documentElement.lang)` picks the language; a
//   language it does not know gets English. Where a partial language lacks a
//   sentence, that whole sentence (its fragments and numbers too) is English.
// - Numbers are written for the language with Intl.NumberFormat (grouping,
//   decimal sign, percent sign) and plurals chosen with Intl.PluralRules, both
//   built into the browser; digits are formatted from exact BigInt or decimal
//   text, never through floating point, so every figure stays exact.
// - Main text: what the device does, as a frequency taken from the weights
//   ("reports your true answer 3 times in 4"), because explaining privacy
//   through the randomized-response procedure itself helps people understand
//   it (Nuñez von Voigt, Mehner, Tschorsch, CODASPY 2024). At most two
//   significant digits, rounded against the respondent (truth shown more
//   often, protection shown weaker).
// - Details: ε and what an observer can learn, in odds ("someone who was
//   50/50 can be at most 75% sure"), because odds-based explanations gave
//   the best risk comprehension in a user study (Nanayakkara, Smart,
//   Cummings, Kaptchuk, Redmiles, USENIX Security 2023). Percentages of what
//   an observer can learn are rounded up.
// - A plain strength label, so weak protection is never shown as "protected"
//   without saying it is weak.
// No dependencies, no floating-point logarithms: figures come from BigInt
// ratios ({n, d}) and ⌈1000 ε⌉ computed by randomizer.js.

// A template is a string, or plural forms keyed by Intl.PluralRules category
// ("one", "other", ...; "other" is required) chosen by the number named in
// the comment (n, count or most).
export const CATALOG = {
  times: { one: "{n} time in {d}", other: "{n} times in {d}" },
  aboutTimes: { one: "about {n} time in 100", other: "about {n} times in 100" },
  atMostTimes: { one: "at most {n} time in {d}", other: "at most {n} times in {d}" },
  atMostPercent: { one: "at most {n} time in 100", other: "at most {n} times in 100" },
  count: { one: "{n} time", other: "{n} times" },
  about: "about {text}",
  moreThan99: "more than 99 times in 100",
  always: "every time",
  never: "never",
  almost: "almost {percent}",
  strength: {
    strong: "Strong protection",
    moderate: "Moderate protection",
    weak: "Weak protection",
    veryWeak: "Very weak protection",
  },
  strengthExplained: {
    strong: "Even someone who sees what your device sends learns little about your answer.",
    moderate: "Someone who sees what your device sends can learn something about your answer, but cannot be sure.",
    weak: "Someone who sees what your device sends can become fairly sure of your answer.",
    veryWeak: "Someone who sees what your device sends can become almost sure of your answer.",
  },
  mechanism: {
    forced_response: "Your device reports your true answer {truth}; otherwise it reports the other answer.",
    forced_response_split: "Your device sends your true answer {truth}; {yes} it sends “Yes” and {no} “No” instead, whatever your answer.",
    unrelated_question: "Your device sends your true answer {truth}; otherwise it answers a made-up question for you, “Yes” {yes} and “No” the rest of the time.",
    warner: "Your device reports your true answer {truth}; otherwise it reports the opposite answer.",
    grr: "Your device reports your true answer {truth}; otherwise it reports one of the other {others} answers, picked at random.",
    grr_two: "Your device reports your true answer {truth}; otherwise it reports the other answer.",
    olh: "Your device sorts the {k} answers into {g} random groups and reports your answer's group {truth}; otherwise one of the other groups.",
    hadamard: "Your device picks a random group of answers and says whether yours is in it: truthfully {truth}, the opposite otherwise.",
    sue: "Your device sends a mark for each of the {k} answers: the mark for your answer is on {on}, and each other mark is on {off} anyway.",
    oue: "Your device sends a mark for each of the {k} answers: the mark for your answer is on {on}, and each other mark is on {off} anyway.",
    multi_rr: "Your device sends a mark for each of the {k} options: an option you chose is marked {on}, an option you did not choose {off}.",
    padding_sampling: "Your device picks one of your choices at random (or a blank if you chose fewer than {ell}) and reports it {truth}; otherwise one of the other {others} items.",
    ordinal: "Your device reports your exact answer {truth}; otherwise another point on the scale, picked at random.",
    geometric: "Your device reports your exact number {truth}; otherwise it adds random noise, so what it sends can be far from your number.",
    gaussian: "Your device reports your exact number {truth}; otherwise it adds random noise, so what it sends can be far from your number.",
    duchi: "Your device never sends your number, only “high” or “low”; even at the top of the range it sends “high” {truth}.",
    piecewise: "Your device sends a value close to your number {truth}; otherwise a value from anywhere in the range.",
  },
  odds: "Whatever your device sends, someone who was 50/50 about your answer can be at most {percent} sure of it afterwards: it can multiply their odds by at most {factor}.",
  epsilon: "Privacy loss ε = {epsilon}, computed on this device from the weights it samples with.",
  surveyOdds: "Counting all your protected answers together, someone who was 50/50 about them can be at most {percent} sure afterwards.",
  surveyEpsilon: "Total privacy loss for this survey ε = {epsilon} (the sum over all protected questions{spent}).",
  spent: ", including ε = {spent} already sent from this device",
  overall: "{label} overall.",
  details: "Details",
  refusal: {
    intro: "Your device refused to take part, so nothing was sent.",
    unknown_mechanism: "This survey asks your device to use a method it does not know, so it cannot check how your answers would be protected.",
    unverifiable: "The instructions this survey gave your device are incomplete or malformed, so it cannot check how your answers would be protected.",
    declared_mismatch: "The survey's instructions promise more protection than they would really give.",
    above_question_ceiling: "One question would protect your answer too weakly: beyond the limit (ε = {ceiling}) built into this page's checked code.",
    above_survey_ceiling: "Taken together, the questions would reveal too much about you: beyond the limit for one survey (ε = {ceiling}) built into this page's checked code.",
    no_script: "This page's checked code could not be loaded, so it cannot protect your answers.",
    content_mismatch: "A question on this page does not match the content it was made from (its words, answers or protection), so your device cannot show you reliably what it protects.",
    contact: "You may want to tell the researcher.",
    contactWith: "You may want to tell the researcher: {contact}.",
  },
  answered: {
    already: "You have already answered this survey on this device. Answering again would let your answers be combined to learn more about you, so this page will not send anything.",
    reanswerOffer: "You have already answered this survey on this device. The researcher allows answering again, but every new answer adds to what can be learned about you: answering again adds ε = {added}, making ε = {total} in all ({label}).",
    reanswerTooMuch: "You have already answered this survey on this device. Answering again would go beyond the limit for one survey (ε = {ceiling}), so this page will not send anything.",
    accept: "Answer again and accept the added privacy loss",
    // count
    changed: {
      one: "The researcher changed {count} question after you opened this page, so nothing was stored. Your answers to the other questions will be sent again exactly as before. Answering the changed question again adds ε = {added}, making ε = {total} in all ({label}).",
      other: "The researcher changed {count} questions after you opened this page, so nothing was stored. Your answers to the other questions will be sent again exactly as before. Answering the changed questions again adds ε = {added}, making ε = {total} in all ({label}).",
    },
    // count
    changedTooMuch: {
      one: "The researcher changed {count} question after you opened this page. Answering it again would go beyond the limit for one survey (ε = {ceiling}), so this page will not send anything more.",
      other: "The researcher changed {count} questions after you opened this page. Answering them again would go beyond the limit for one survey (ε = {ceiling}), so this page will not send anything more.",
    },
    acceptChanged: "Answer the changed questions",
    resendReady: "Your randomized answers from before are ready. “Send again” sends exactly the same bytes, never a new randomization.",
    unchangedResend: "The survey changed, but none of its protected questions did: your randomized answers from before will be sent again exactly as they were, never randomized anew.",
    keptFromBefore: "Already answered on this device: the same randomized answer will be sent again.",
  },
  memory: {
    siteTotal: "This site has received privacy loss ε = {given} from this device in the last 12 months. Sending adds ε = {added}, making ε = {total}. This device never gives one site more than ε = {ceiling} in 12 months.",
    siteCeiling: "Sending would bring the privacy loss this device gave this site in the last 12 months to ε = {total}, beyond the limit of ε = {ceiling} built into this page's checked code (already given: ε = {given}), so this page will not send anything.",
    unreadable: "This device's memory of what it sent this site cannot be read, so it cannot make sure it stays within its limit. Nothing was sent.",
    // count
    seenElsewhere: {
      one: "You already answered {count} of these questions on this device, for another survey on this site. Answering it again lets the two answers be combined to learn more about you: it adds ε = {added}, making ε = {total} given to this site in the last 12 months.",
      other: "You already answered {count} of these questions on this device, for another survey on this site. Answering them again lets the answers be combined to learn more about you: it adds ε = {added}, making ε = {total} given to this site in the last 12 months.",
    },
    acceptSeen: "Answer these questions again and accept the added privacy loss",
    asks: "This device protects here: “{text}”",
    options: "Answers: {options}",
    preview: "Preview: nothing was stored, because nothing was sent, and nothing was counted. Your device would have sent these randomized reports:",
  },
  // A question this site asked under protection before, asked now with less
  // (static/js/ledger.js, `downgrades`).
  downgrade: {
    unprotected: "This question was protected before; this time the server asks it without protection. Your answer would be sent as you give it.",
    weaker: "This question was protected more strongly before (ε = {before}); this time the server asks it with ε = {now}, so what your device sends tells more about your answer.",
    accept: "Answer it anyway",
    decline: "Leave this question out",
    declined: "Left out: nothing of your answer to this question is sent.",
    required: "This survey cannot be sent without an answer to this question. If you would rather not answer it, do not send the survey: nothing has been sent.",
    pending: "A question above was protected before and is asked now with less protection: answer it anyway or leave it out first. Nothing was sent.",
  },
  keeps: "This device keeps only a note that you answered this survey, until {expires}: no answers and nothing that identifies you.",
  page: {
    how: "Your answers to protected questions are randomized on this device before anything is sent, so the server never receives your true answers to them.",
    notProtected: "Not protected: sent and stored exactly as you answer.",
    typedWords: "Not protected: what you type is sent and stored exactly as you type it. No method randomizes words, and a sentence can identify the person who wrote it (a name, a place, a turn of phrase).",
    sentAsTyped: "Not protected: these answers will be sent and stored exactly as you give them, with no randomization:",
    noneAsTyped: "Every answer on this page is protected: none is sent as you give it.",
    noAnswerYet: "no answer yet",
    skippedPlain: "skipped (only the fact that you skipped it is sent)",
    reviewChanged: "What will be sent as you gave it has changed; check the list above and press “Send” again. Nothing was sent.",
    ready: "This page's code has loaded, passed its integrity check and checked every question. Your protected answers will be randomized on this device when you press “Send”.",
    loadFailed: "This page's code could not be loaded or failed its integrity check, so it cannot send anything. ({error})",
    noStorage: "This browser does not let the page keep its note that you answered, so it cannot make sure your answers are never randomized twice. Nothing was sent.",
    missing: "Some questions have no valid answer yet; nothing was sent.",
    sending: "Sending your randomized answers…",
    connectionFailed: "The connection failed, so your answers may not have arrived. Press “Send again”: exactly the same randomized answers will be sent, never new ones.",
    received: "Received. Opening your receipt…",
    retry: "{reason} Press “Send again” to resend exactly the same randomized answers.",
    serverAnswered: "The server answered {status}.",
    send: "Send my answers",
    sendAgain: "Send again",
    chooseAnswer: "Please choose an answer.",
    enterNumber: "Please enter a number.",
    notANumber: "“{text}” is not a number. Use digits, e.g. {low}.",
    groupedNumber: "“{text}” may have a thousands separator, so it could be misread. Type the number without thousands separators, like {example}.",
    outOfRange: "Please enter a number from {low} to {high}.",
    offGrid: "{text} is not one of the allowed values: use steps of {step} from {low} (the nearest are {below} and {above}).",
    // most
    tooMany: {
      one: "You can choose at most {most} option here; untick it first.",
      other: "You can choose at most {most} options here; untick one first.",
    },
    randomizeFailed: "Your answers could not be randomized, so nothing was sent: {error}",
    changedNotice: "The researcher changed this survey after you opened it, so nothing was stored. Review the changes: your answers to unchanged questions will be sent again exactly as before, and nothing new is randomized unless you agree.",
    reviewChanges: "Review the changes",
    alreadyConsent: "You have already answered this survey on this device.",
  },
};

// Spanish (usted, plain words; every figure and meaning as in English).
const SPANISH = {
  times: { one: "{n} vez de cada {d}", other: "{n} veces de cada {d}" },
  aboutTimes: { one: "alrededor de {n} vez de cada 100", other: "alrededor de {n} veces de cada 100" },
  atMostTimes: { one: "como mucho {n} vez de cada {d}", other: "como mucho {n} veces de cada {d}" },
  atMostPercent: { one: "como mucho {n} vez de cada 100", other: "como mucho {n} veces de cada 100" },
  count: { one: "{n} vez", other: "{n} veces" },
  about: "alrededor de {text}",
  moreThan99: "más de 99 veces de cada 100",
  always: "siempre",
  never: "nunca",
  almost: "casi un {percent}",
  strength: {
    strong: "Protección fuerte",
    moderate: "Protección moderada",
    weak: "Protección débil",
    veryWeak: "Protección muy débil",
  },
  strengthExplained: {
    strong: "Incluso quien vea lo que envía su dispositivo aprende poco sobre su respuesta.",
    moderate: "Quien vea lo que envía su dispositivo puede saber algo sobre su respuesta, pero no puede estar seguro.",
    weak: "Quien vea lo que envía su dispositivo puede llegar a estar bastante seguro de su respuesta.",
    veryWeak: "Quien vea lo que envía su dispositivo puede llegar a estar casi seguro de su respuesta.",
  },
  mechanism: {
    forced_response: "Su dispositivo comunica su respuesta verdadera {truth}; el resto de las veces comunica la otra respuesta.",
    forced_response_split: "Su dispositivo envía su respuesta verdadera {truth}; en su lugar envía «Sí» {yes} y «No» {no}, sea cual sea su respuesta.",
    unrelated_question: "Su dispositivo envía su respuesta verdadera {truth}; el resto de las veces responde por usted a una pregunta inventada: «Sí» {yes} y «No» el resto de las veces.",
    warner: "Su dispositivo comunica su respuesta verdadera {truth}; el resto de las veces comunica la respuesta contraria.",
    grr: "Su dispositivo comunica su respuesta verdadera {truth}; el resto de las veces comunica una de las otras {others} respuestas, elegida al azar.",
    grr_two: "Su dispositivo comunica su respuesta verdadera {truth}; el resto de las veces comunica la otra respuesta.",
    olh: "Su dispositivo reparte las {k} respuestas en {g} grupos al azar y comunica el grupo de su respuesta {truth}; el resto de las veces, uno de los otros grupos.",
    hadamard: "Su dispositivo elige al azar un grupo de respuestas y dice si la suya está en él: con la verdad {truth}, y lo contrario el resto de las veces.",
    sue: "Su dispositivo envía una marca por cada una de las {k} respuestas: la marca de su respuesta está puesta {on}, y cada una de las demás está puesta {off} de todos modos.",
    oue: "Su dispositivo envía una marca por cada una de las {k} respuestas: la marca de su respuesta está puesta {on}, y cada una de las demás está puesta {off} de todos modos.",
    multi_rr: "Su dispositivo envía una marca por cada una de las {k} opciones: una opción que usted eligió se marca {on}, y una que no eligió, {off}.",
    padding_sampling: "Su dispositivo elige al azar una de sus opciones (o una en blanco si eligió menos de {ell}) y la comunica {truth}; el resto de las veces, uno de los otros {others} elementos.",
    ordinal: "Su dispositivo comunica su respuesta exacta {truth}; el resto de las veces, otro punto de la escala, elegido al azar.",
    geometric: "Su dispositivo comunica su número exacto {truth}; el resto de las veces le añade ruido al azar, así que lo que envía puede estar lejos de su número.",
    gaussian: "Su dispositivo comunica su número exacto {truth}; el resto de las veces le añade ruido al azar, así que lo que envía puede estar lejos de su número.",
    duchi: "Su dispositivo nunca envía su número, solo «alto» o «bajo»; incluso en lo más alto del rango envía «alto» {truth}.",
    piecewise: "Su dispositivo envía un valor cercano a su número {truth}; el resto de las veces, un valor de cualquier parte del rango.",
  },
  odds: "Envíe lo que envíe su dispositivo, alguien que dudaba al 50/50 sobre su respuesta puede quedar después, como mucho, un {percent} seguro de ella: la razón entre sus probabilidades a favor y en contra puede multiplicarse como mucho por {factor}.",
  epsilon: "Pérdida de privacidad ε = {epsilon}, calculada en este dispositivo a partir de los pesos con los que sortea.",
  surveyOdds: "Contando juntas todas sus respuestas protegidas, alguien que dudaba al 50/50 sobre ellas puede quedar después, como mucho, un {percent} seguro.",
  surveyEpsilon: "Pérdida de privacidad total de esta encuesta ε = {epsilon} (la suma de todas las preguntas protegidas{spent}).",
  spent: ", incluido ε = {spent} ya enviado desde este dispositivo",
  overall: "{label} en conjunto.",
  details: "Detalles",
  refusal: {
    intro: "Su dispositivo se negó a participar, así que no se envió nada.",
    unknown_mechanism: "Esta encuesta pide a su dispositivo que use un método que no conoce, así que no puede comprobar cómo se protegerían sus respuestas.",
    unverifiable: "Las instrucciones que esta encuesta dio a su dispositivo están incompletas o mal formadas, así que no puede comprobar cómo se protegerían sus respuestas.",
    declared_mismatch: "Las instrucciones de la encuesta prometen más protección de la que darían en realidad.",
    above_question_ceiling: "Una pregunta protegería su respuesta demasiado poco: por encima del límite (ε = {ceiling}) incluido en el código verificado de esta página.",
    above_survey_ceiling: "En conjunto, las preguntas revelarían demasiado sobre usted: por encima del límite para una encuesta (ε = {ceiling}) incluido en el código verificado de esta página.",
    no_script: "No se pudo cargar el código verificado de esta página, así que no puede proteger sus respuestas.",
    content_mismatch: "Una pregunta de esta página no coincide con el contenido del que se hizo (sus palabras, respuestas o protección), así que su dispositivo no puede mostrarle con fiabilidad lo que protege.",
    contact: "Quizá quiera avisar al equipo de investigación.",
    contactWith: "Quizá quiera avisar al equipo de investigación: {contact}.",
  },
  answered: {
    already: "Ya respondió esta encuesta en este dispositivo. Responder otra vez permitiría combinar sus respuestas para saber más sobre usted, así que esta página no enviará nada.",
    reanswerOffer: "Ya respondió esta encuesta en este dispositivo. El equipo de investigación permite responder otra vez, pero cada nueva respuesta aumenta lo que se puede saber sobre usted: responder otra vez añade ε = {added}, con lo que el total es ε = {total} ({label}).",
    reanswerTooMuch: "Ya respondió esta encuesta en este dispositivo. Responder otra vez superaría el límite para una encuesta (ε = {ceiling}), así que esta página no enviará nada.",
    accept: "Responder otra vez y aceptar la pérdida de privacidad añadida",
    changed: {
      one: "El equipo de investigación cambió {count} pregunta después de que usted abriera esta página, así que no se guardó nada. Sus respuestas a las demás preguntas se enviarán otra vez exactamente igual que antes. Responder de nuevo a la pregunta cambiada añade ε = {added}, con lo que el total es ε = {total} ({label}).",
      other: "El equipo de investigación cambió {count} preguntas después de que usted abriera esta página, así que no se guardó nada. Sus respuestas a las demás preguntas se enviarán otra vez exactamente igual que antes. Responder de nuevo a las preguntas cambiadas añade ε = {added}, con lo que el total es ε = {total} ({label}).",
    },
    changedTooMuch: {
      one: "El equipo de investigación cambió {count} pregunta después de que usted abriera esta página. Responderla de nuevo superaría el límite para una encuesta (ε = {ceiling}), así que esta página no enviará nada más.",
      other: "El equipo de investigación cambió {count} preguntas después de que usted abriera esta página. Responderlas de nuevo superaría el límite para una encuesta (ε = {ceiling}), así que esta página no enviará nada más.",
    },
    acceptChanged: "Responder a las preguntas cambiadas",
    resendReady: "Sus respuestas aleatorizadas de antes están listas. «Enviar otra vez» envía exactamente los mismos bytes, nunca una nueva aleatorización.",
    unchangedResend: "La encuesta cambió, pero ninguna de sus preguntas protegidas: sus respuestas aleatorizadas de antes se enviarán otra vez tal como estaban, nunca aleatorizadas de nuevo.",
    keptFromBefore: "Ya respondida en este dispositivo: se enviará otra vez la misma respuesta aleatorizada.",
  },
  memory: {
    siteTotal: "Este sitio ha recibido de este dispositivo una pérdida de privacidad ε = {given} en los últimos 12 meses. Enviar añade ε = {added}, con lo que el total es ε = {total}. Este dispositivo nunca da a un sitio más de ε = {ceiling} en 12 meses.",
    siteCeiling: "Enviar llevaría la pérdida de privacidad que este dispositivo dio a este sitio en los últimos 12 meses a ε = {total}, por encima del límite de ε = {ceiling} incluido en el código verificado de esta página (ya dado: ε = {given}), así que esta página no enviará nada.",
    unreadable: "No se puede leer la memoria de este dispositivo sobre lo que envió a este sitio, así que no puede asegurarse de respetar su límite. No se envió nada.",
    seenElsewhere: {
      one: "Ya respondió {count} de estas preguntas en este dispositivo, para otra encuesta de este sitio. Responderla otra vez permite combinar las dos respuestas para saber más sobre usted: añade ε = {added}, con lo que este sitio habrá recibido ε = {total} en los últimos 12 meses.",
      other: "Ya respondió {count} de estas preguntas en este dispositivo, para otra encuesta de este sitio. Responderlas otra vez permite combinar las respuestas para saber más sobre usted: añade ε = {added}, con lo que este sitio habrá recibido ε = {total} en los últimos 12 meses.",
    },
    acceptSeen: "Responder otra vez a estas preguntas y aceptar la pérdida de privacidad añadida",
    asks: "Lo que este dispositivo protege aquí: «{text}»",
    options: "Respuestas: {options}",
    preview: "Vista previa: no se guardó nada, porque no se envió nada, y no se contó nada. Su dispositivo habría enviado estos informes aleatorizados:",
  },
  downgrade: {
    unprotected: "Esta pregunta estaba protegida antes; esta vez el servidor la hace sin protección. Su respuesta se enviaría tal como usted la da.",
    weaker: "Esta pregunta tenía antes una protección más fuerte (ε = {before}); esta vez el servidor la hace con ε = {now}, así que lo que envía su dispositivo dice más sobre su respuesta.",
    accept: "Responderla de todos modos",
    decline: "Dejar esta pregunta sin responder",
    declined: "Sin responder: no se envía nada de su respuesta a esta pregunta.",
    required: "Esta encuesta no se puede enviar sin una respuesta a esta pregunta. Si prefiere no responderla, no envíe la encuesta: no se ha enviado nada.",
    pending: "Una pregunta de arriba estaba protegida antes y ahora se hace con menos protección: primero respóndala de todos modos o déjela sin responder. No se envió nada.",
  },
  keeps: "Este dispositivo solo guarda una nota de que usted respondió esta encuesta, hasta el {expires}: ninguna respuesta y nada que le identifique.",
  page: {
    how: "Sus respuestas a las preguntas protegidas se aleatorizan en este dispositivo antes de enviar nada, así que el servidor nunca recibe sus respuestas verdaderas a ellas.",
    notProtected: "Sin protección: se envía y se guarda tal como usted responde.",
    typedWords: "Sin protección: lo que escribe se envía y se guarda tal como lo escribe. Ningún método aleatoriza palabras, y una frase puede identificar a quien la escribió (un nombre, un lugar, un giro).",
    sentAsTyped: "Sin protección: estas respuestas se enviarán y se guardarán tal como usted las da, sin aleatorizar:",
    noneAsTyped: "Todas las respuestas de esta página están protegidas: ninguna se envía tal como usted la da.",
    noAnswerYet: "todavía sin respuesta",
    skippedPlain: "omitida (solo se envía que la omitió)",
    reviewChanged: "Lo que se enviará tal como lo dio ha cambiado; revise la lista de arriba y vuelva a pulsar «Enviar». No se envió nada.",
    ready: "El código de esta página se ha cargado, ha superado su control de integridad y ha comprobado cada pregunta. Sus respuestas protegidas se aleatorizarán en este dispositivo cuando pulse «Enviar».",
    loadFailed: "El código de esta página no se pudo cargar o no superó su control de integridad, así que no puede enviar nada. ({error})",
    noStorage: "Este navegador no deja que la página guarde su nota de que usted respondió, así que no puede garantizar que sus respuestas nunca se aleatoricen dos veces. No se envió nada.",
    missing: "Algunas preguntas aún no tienen una respuesta válida; no se envió nada.",
    sending: "Enviando sus respuestas aleatorizadas…",
    connectionFailed: "La conexión falló, así que puede que sus respuestas no hayan llegado. Pulse «Enviar otra vez»: se enviarán exactamente las mismas respuestas aleatorizadas, nunca otras nuevas.",
    received: "Recibido. Abriendo su comprobante…",
    retry: "{reason} Pulse «Enviar otra vez» para reenviar exactamente las mismas respuestas aleatorizadas.",
    serverAnswered: "El servidor respondió {status}.",
    send: "Enviar mis respuestas",
    sendAgain: "Enviar otra vez",
    chooseAnswer: "Elija una respuesta.",
    enterNumber: "Escriba un número.",
    notANumber: "«{text}» no es un número. Use cifras, por ejemplo {low}.",
    groupedNumber: "«{text}» puede llevar un separador de miles, así que podría leerse mal. Escriba el número sin separadores de miles, por ejemplo {example}.",
    outOfRange: "Escriba un número de {low} a {high}.",
    offGrid: "{text} no es uno de los valores permitidos: use pasos de {step} a partir de {low} (los más cercanos son {below} y {above}).",
    tooMany: {
      one: "Aquí puede elegir como mucho {most} opción; desmárquela primero.",
      other: "Aquí puede elegir como mucho {most} opciones; desmarque una primero.",
    },
    randomizeFailed: "Sus respuestas no se pudieron aleatorizar, así que no se envió nada: {error}",
    changedNotice: "El equipo de investigación cambió esta encuesta después de que usted la abriera, así que no se guardó nada. Revise los cambios: sus respuestas a las preguntas sin cambios se enviarán otra vez exactamente igual que antes, y no se aleatoriza nada nuevo sin su acuerdo.",
    reviewChanges: "Revisar los cambios",
    alreadyConsent: "Ya respondió esta encuesta en este dispositivo.",
  },
};

// French (vous, plain words; every figure and meaning as in English). Spaces
// before ; : ? ! and inside « » become no-break spaces (frenchSpacing).
const FRENCH = {
  times: { one: "{n} fois sur {d}", other: "{n} fois sur {d}" },
  aboutTimes: { one: "environ {n} fois sur 100", other: "environ {n} fois sur 100" },
  atMostTimes: { one: "au plus {n} fois sur {d}", other: "au plus {n} fois sur {d}" },
  atMostPercent: { one: "au plus {n} fois sur 100", other: "au plus {n} fois sur 100" },
  count: { one: "{n} fois", other: "{n} fois" },
  about: "environ {text}",
  moreThan99: "plus de 99 fois sur 100",
  always: "à chaque fois",
  never: "jamais",
  almost: "presque {percent}",
  strength: {
    strong: "Protection forte",
    moderate: "Protection moyenne",
    weak: "Protection faible",
    veryWeak: "Protection très faible",
  },
  strengthExplained: {
    strong: "Même quelqu’un qui voit ce qu’envoie votre appareil n’apprend pas grand-chose sur votre réponse.",
    moderate: "Quelqu’un qui voit ce qu’envoie votre appareil peut apprendre quelque chose sur votre réponse, sans pouvoir en être sûr.",
    weak: "Quelqu’un qui voit ce qu’envoie votre appareil peut devenir assez sûr de votre réponse.",
    veryWeak: "Quelqu’un qui voit ce qu’envoie votre appareil peut devenir presque sûr de votre réponse.",
  },
  mechanism: {
    forced_response: "Votre appareil transmet votre vraie réponse {truth} ; sinon, il transmet l’autre réponse.",
    forced_response_split: "Votre appareil envoie votre vraie réponse {truth} ; à la place, il envoie « Oui » {yes} et « Non » {no}, quelle que soit votre réponse.",
    unrelated_question: "Votre appareil envoie votre vraie réponse {truth} ; sinon, il répond pour vous à une question inventée : « Oui » {yes} et « Non » le reste du temps.",
    warner: "Votre appareil transmet votre vraie réponse {truth} ; sinon, il transmet la réponse contraire.",
    grr: "Votre appareil transmet votre vraie réponse {truth} ; sinon, il transmet l’une des {others} autres réponses, tirée au hasard.",
    grr_two: "Votre appareil transmet votre vraie réponse {truth} ; sinon, il transmet l’autre réponse.",
    olh: "Votre appareil répartit les {k} réponses en {g} groupes au hasard et transmet le groupe de votre réponse {truth} ; sinon, l’un des autres groupes.",
    hadamard: "Votre appareil choisit au hasard un groupe de réponses et dit si la vôtre en fait partie : en disant vrai {truth}, le contraire sinon.",
    sue: "Votre appareil envoie une marque pour chacune des {k} réponses : celle de votre réponse est cochée {on}, et chacune des autres est cochée {off} de toute façon.",
    oue: "Votre appareil envoie une marque pour chacune des {k} réponses : celle de votre réponse est cochée {on}, et chacune des autres est cochée {off} de toute façon.",
    multi_rr: "Votre appareil envoie une marque pour chacune des {k} options : une option que vous avez choisie est cochée {on}, une option que vous n’avez pas choisie {off}.",
    padding_sampling: "Votre appareil tire au hasard l’un de vos choix (ou un blanc si vous en avez choisi moins de {ell}) et le transmet {truth} ; sinon, l’un des {others} autres éléments.",
    ordinal: "Votre appareil transmet votre réponse exacte {truth} ; sinon, un autre point de l’échelle, tiré au hasard.",
    geometric: "Votre appareil transmet votre nombre exact {truth} ; sinon, il y ajoute un bruit aléatoire, si bien que ce qu’il envoie peut être loin de votre nombre.",
    gaussian: "Votre appareil transmet votre nombre exact {truth} ; sinon, il y ajoute un bruit aléatoire, si bien que ce qu’il envoie peut être loin de votre nombre.",
    duchi: "Votre appareil n’envoie jamais votre nombre, seulement « haut » ou « bas » ; même en haut de l’échelle, il envoie « haut » {truth}.",
    piecewise: "Votre appareil envoie une valeur proche de votre nombre {truth} ; sinon, une valeur prise n’importe où dans l’intervalle.",
  },
  odds: "Quoi que votre appareil envoie, quelqu’un qui hésitait à 50/50 sur votre réponse peut ensuite en être sûr à {percent} au plus : sa cote (ses chances pour contre ses chances contre) peut être multipliée par {factor} au plus.",
  epsilon: "Perte de confidentialité ε = {epsilon}, calculée sur cet appareil à partir des poids avec lesquels il tire au sort.",
  surveyOdds: "En comptant ensemble toutes vos réponses protégées, quelqu’un qui hésitait à 50/50 à leur sujet peut ensuite en être sûr à {percent} au plus.",
  surveyEpsilon: "Perte de confidentialité totale pour cette enquête ε = {epsilon} (la somme sur toutes les questions protégées{spent}).",
  spent: ", dont ε = {spent} déjà envoyé depuis cet appareil",
  overall: "{label} dans l’ensemble.",
  details: "Détails",
  refusal: {
    intro: "Votre appareil a refusé de participer, donc rien n’a été envoyé.",
    unknown_mechanism: "Cette enquête demande à votre appareil d’utiliser une méthode qu’il ne connaît pas, il ne peut donc pas vérifier comment vos réponses seraient protégées.",
    unverifiable: "Les instructions que cette enquête a données à votre appareil sont incomplètes ou mal formées, il ne peut donc pas vérifier comment vos réponses seraient protégées.",
    declared_mismatch: "Les instructions de l’enquête promettent plus de protection qu’elles n’en donneraient réellement.",
    above_question_ceiling: "Une question protégerait trop faiblement votre réponse : au-delà de la limite (ε = {ceiling}) inscrite dans le code vérifié de cette page.",
    above_survey_ceiling: "Prises ensemble, les questions en révéleraient trop sur vous : au-delà de la limite pour une enquête (ε = {ceiling}) inscrite dans le code vérifié de cette page.",
    no_script: "Le code vérifié de cette page n’a pas pu être chargé, il ne peut donc pas protéger vos réponses.",
    content_mismatch: "Une question de cette page ne correspond pas au contenu dont elle est issue (ses mots, ses réponses ou sa protection), votre appareil ne peut donc pas vous montrer de façon fiable ce qu’il protège.",
    contact: "Vous pouvez le signaler à l’équipe de recherche.",
    contactWith: "Vous pouvez le signaler à l’équipe de recherche : {contact}.",
  },
  answered: {
    already: "Vous avez déjà répondu à cette enquête sur cet appareil. Répondre à nouveau permettrait de recouper vos réponses pour en apprendre davantage sur vous, donc cette page n’enverra rien.",
    reanswerOffer: "Vous avez déjà répondu à cette enquête sur cet appareil. L’équipe de recherche permet de répondre à nouveau, mais chaque nouvelle réponse augmente ce que l’on peut apprendre sur vous : répondre à nouveau ajoute ε = {added}, soit ε = {total} au total ({label}).",
    reanswerTooMuch: "Vous avez déjà répondu à cette enquête sur cet appareil. Répondre à nouveau dépasserait la limite pour une enquête (ε = {ceiling}), donc cette page n’enverra rien.",
    accept: "Répondre à nouveau et accepter la perte de confidentialité supplémentaire",
    changed: {
      one: "L’équipe de recherche a modifié {count} question après l’ouverture de cette page, donc rien n’a été enregistré. Vos réponses aux autres questions seront renvoyées exactement comme avant. Répondre à nouveau à la question modifiée ajoute ε = {added}, soit ε = {total} au total ({label}).",
      other: "L’équipe de recherche a modifié {count} questions après l’ouverture de cette page, donc rien n’a été enregistré. Vos réponses aux autres questions seront renvoyées exactement comme avant. Répondre à nouveau aux questions modifiées ajoute ε = {added}, soit ε = {total} au total ({label}).",
    },
    changedTooMuch: {
      one: "L’équipe de recherche a modifié {count} question après l’ouverture de cette page. Y répondre à nouveau dépasserait la limite pour une enquête (ε = {ceiling}), donc cette page n’enverra rien de plus.",
      other: "L’équipe de recherche a modifié {count} questions après l’ouverture de cette page. Y répondre à nouveau dépasserait la limite pour une enquête (ε = {ceiling}), donc cette page n’enverra rien de plus.",
    },
    acceptChanged: "Répondre aux questions modifiées",
    resendReady: "Vos réponses déjà rendues aléatoires sont prêtes. « Envoyer à nouveau » envoie exactement les mêmes octets, jamais un nouveau tirage.",
    unchangedResend: "L’enquête a changé, mais aucune de ses questions protégées : vos réponses déjà rendues aléatoires seront renvoyées exactement telles quelles, jamais tirées à nouveau.",
    keptFromBefore: "Déjà répondu sur cet appareil : la même réponse rendue aléatoire sera renvoyée.",
  },
  memory: {
    siteTotal: "Ce site a reçu de cet appareil une perte de confidentialité ε = {given} au cours des 12 derniers mois. Envoyer ajoute ε = {added}, soit ε = {total}. Cet appareil ne donne jamais à un site plus de ε = {ceiling} en 12 mois.",
    siteCeiling: "Envoyer porterait la perte de confidentialité que cet appareil a donnée à ce site au cours des 12 derniers mois à ε = {total}, au-delà de la limite de ε = {ceiling} inscrite dans le code vérifié de cette page (déjà donné : ε = {given}), donc cette page n’enverra rien.",
    unreadable: "La mémoire de cet appareil sur ce qu’il a envoyé à ce site est illisible, il ne peut donc pas garantir qu’il reste dans sa limite. Rien n’a été envoyé.",
    seenElsewhere: {
      one: "Vous avez déjà répondu à {count} de ces questions sur cet appareil, pour une autre enquête de ce site. Y répondre à nouveau permet de recouper les deux réponses pour en apprendre davantage sur vous : cela ajoute ε = {added}, soit ε = {total} donnés à ce site au cours des 12 derniers mois.",
      other: "Vous avez déjà répondu à {count} de ces questions sur cet appareil, pour une autre enquête de ce site. Y répondre à nouveau permet de recouper les réponses pour en apprendre davantage sur vous : cela ajoute ε = {added}, soit ε = {total} donnés à ce site au cours des 12 derniers mois.",
    },
    acceptSeen: "Répondre à nouveau à ces questions et accepter la perte de confidentialité supplémentaire",
    asks: "Ce que cet appareil protège ici : « {text} »",
    options: "Réponses : {options}",
    preview: "Aperçu : rien n’a été enregistré, car rien n’a été envoyé, et rien n’a été compté. Votre appareil aurait envoyé ces rapports rendus aléatoires :",
  },
  downgrade: {
    unprotected: "Cette question était protégée auparavant ; cette fois, le serveur la pose sans protection. Votre réponse serait envoyée telle que vous la donnez.",
    weaker: "Cette question était mieux protégée auparavant (ε = {before}) ; cette fois, le serveur la pose avec ε = {now} : ce que votre appareil envoie en dit donc plus sur votre réponse.",
    accept: "Y répondre quand même",
    decline: "Laisser cette question de côté",
    declined: "Laissée de côté : rien de votre réponse à cette question n’est envoyé.",
    required: "Cette enquête ne peut pas être envoyée sans réponse à cette question. Si vous préférez ne pas y répondre, n’envoyez pas l’enquête : rien n’a été envoyé.",
    pending: "Une question ci-dessus était protégée auparavant et est maintenant posée avec moins de protection : répondez-y quand même ou laissez-la de côté d’abord. Rien n’a été envoyé.",
  },
  keeps: "Cet appareil garde seulement une note indiquant que vous avez répondu à cette enquête, jusqu’au {expires} : aucune réponse et rien qui vous identifie.",
  page: {
    how: "Vos réponses aux questions protégées sont rendues aléatoires sur cet appareil avant tout envoi, donc le serveur ne reçoit jamais vos vraies réponses à ces questions.",
    notProtected: "Non protégée : envoyée et enregistrée exactement comme vous répondez.",
    typedWords: "Non protégée : ce que vous tapez est envoyé et enregistré exactement comme vous le tapez. Aucune méthode ne rend des mots aléatoires, et une phrase peut identifier la personne qui l’a écrite (un nom, un lieu, une tournure).",
    sentAsTyped: "Non protégées : ces réponses seront envoyées et enregistrées exactement comme vous les donnez, sans être rendues aléatoires :",
    noneAsTyped: "Toutes les réponses de cette page sont protégées : aucune n’est envoyée telle que vous la donnez.",
    noAnswerYet: "pas encore de réponse",
    skippedPlain: "passée (seul le fait que vous l’avez passée est envoyé)",
    reviewChanged: "Ce qui sera envoyé tel que vous l’avez donné a changé ; vérifiez la liste ci-dessus et appuyez de nouveau sur « Envoyer ». Rien n’a été envoyé.",
    ready: "Le code de cette page est chargé, a passé son contrôle d’intégrité et a vérifié chaque question. Vos réponses protégées seront rendues aléatoires sur cet appareil quand vous appuierez sur « Envoyer ».",
    loadFailed: "Le code de cette page n’a pas pu être chargé ou a échoué à son contrôle d’intégrité, il ne peut donc rien envoyer. ({error})",
    noStorage: "Ce navigateur ne permet pas à la page de garder sa note indiquant que vous avez répondu, elle ne peut donc pas garantir que vos réponses ne seront jamais tirées deux fois. Rien n’a été envoyé.",
    missing: "Certaines questions n’ont pas encore de réponse valable ; rien n’a été envoyé.",
    sending: "Envoi de vos réponses rendues aléatoires…",
    connectionFailed: "La connexion a échoué, vos réponses ne sont peut-être pas arrivées. Appuyez sur « Envoyer à nouveau » : exactement les mêmes réponses rendues aléatoires seront envoyées, jamais de nouvelles.",
    received: "Reçu. Ouverture de votre récépissé…",
    retry: "{reason} Appuyez sur « Envoyer à nouveau » pour renvoyer exactement les mêmes réponses rendues aléatoires.",
    serverAnswered: "Le serveur a répondu {status}.",
    send: "Envoyer mes réponses",
    sendAgain: "Envoyer à nouveau",
    chooseAnswer: "Veuillez choisir une réponse.",
    enterNumber: "Veuillez saisir un nombre.",
    notANumber: "« {text} » n’est pas un nombre. Utilisez des chiffres, par exemple {low}.",
    groupedNumber: "« {text} » contient peut-être un séparateur de milliers, il pourrait donc être mal lu. Saisissez le nombre sans séparateur de milliers, par exemple {example}.",
    outOfRange: "Veuillez saisir un nombre de {low} à {high}.",
    offGrid: "{text} ne fait pas partie des valeurs permises : utilisez des pas de {step} à partir de {low} (les plus proches sont {below} et {above}).",
    tooMany: {
      one: "Vous pouvez choisir au plus {most} option ici ; décochez-la d’abord.",
      other: "Vous pouvez choisir au plus {most} options ici ; décochez-en une d’abord.",
    },
    randomizeFailed: "Vos réponses n’ont pas pu être rendues aléatoires, donc rien n’a été envoyé : {error}",
    changedNotice: "L’équipe de recherche a modifié cette enquête après que vous l’avez ouverte, donc rien n’a été enregistré. Vérifiez les modifications : vos réponses aux questions inchangées seront renvoyées exactement comme avant, et rien de nouveau n’est tiré au sort sans votre accord.",
    reviewChanges: "Voir les modifications",
    alreadyConsent: "Vous avez déjà répondu à cette enquête sur cet appareil.",
  },
};

// Arabic, partial (a right-to-left test locale): what is missing is English,
// one whole sentence at a time.
const ARABIC = {
  strength: {
    strong: "حماية قوية",
    moderate: "حماية متوسطة",
    weak: "حماية ضعيفة",
    veryWeak: "حماية ضعيفة جدًا",
  },
  strengthExplained: {
    strong: "حتى من يرى ما يرسله جهازك لا يعرف إلا القليل عن إجابتك.",
    moderate: "من يرى ما يرسله جهازك قد يعرف شيئًا عن إجابتك، لكنه لا يستطيع أن يتأكد منها.",
    weak: "من يرى ما يرسله جهازك قد يصبح متأكدًا إلى حد كبير من إجابتك.",
    veryWeak: "من يرى ما يرسله جهازك قد يصبح شبه متأكد من إجابتك.",
  },
  overall: "{label} إجمالًا.",
  details: "التفاصيل",
  refusal: {
    intro: "رفض جهازك المشاركة، لذلك لم يُرسَل أي شيء.",
    unknown_mechanism: "يطلب هذا الاستبيان من جهازك استخدام طريقة لا يعرفها، لذلك لا يستطيع التحقق من كيفية حماية إجاباتك.",
    unverifiable: "التعليمات التي أعطاها هذا الاستبيان لجهازك ناقصة أو غير سليمة، لذلك لا يستطيع التحقق من كيفية حماية إجاباتك.",
    declared_mismatch: "تَعِد تعليمات الاستبيان بحماية أكبر مما ستوفره فعلًا.",
    above_question_ceiling: "أحد الأسئلة سيحمي إجابتك بشكل ضعيف جدًا: أعلى من الحد (ε = {ceiling}) المضمَّن في الشيفرة المتحقَّق منها لهذه الصفحة.",
    above_survey_ceiling: "الأسئلة مجتمعةً ستكشف الكثير عنك: أعلى من حد الاستبيان الواحد (ε = {ceiling}) المضمَّن في الشيفرة المتحقَّق منها لهذه الصفحة.",
    no_script: "تعذّر تحميل الشيفرة المتحقَّق منها لهذه الصفحة، لذلك لا تستطيع حماية إجاباتك.",
    contact: "قد ترغب في إبلاغ الباحث.",
    contactWith: "قد ترغب في إبلاغ الباحث: {contact}.",
  },
  answered: {
    already: "لقد أجبت عن هذا الاستبيان على هذا الجهاز من قبل. الإجابة مرة أخرى ستسمح بجمع إجاباتك لمعرفة المزيد عنك، لذلك لن ترسل هذه الصفحة أي شيء.",
  },
  page: {
    how: "تصبح إجاباتك عن الأسئلة المحمية عشوائية على هذا الجهاز قبل إرسال أي شيء، لذلك لا يتلقى الخادم إجاباتك الحقيقية عنها أبدًا.",
    notProtected: "غير محمي: يُرسَل ويُخزَّن كما تجيب تمامًا.",
    loadFailed: "تعذّر تحميل شيفرة هذه الصفحة أو فشلت في التحقق من سلامتها، لذلك لا يمكنها إرسال أي شيء. ({error})",
    send: "أرسل إجاباتي",
    sendAgain: "أرسل مرة أخرى",
    chooseAnswer: "يُرجى اختيار إجابة.",
    enterNumber: "يُرجى إدخال رقم.",
    alreadyConsent: "لقد أجبت عن هذا الاستبيان على هذا الجهاز من قبل.",
  },
};

// French typography: a no-break space before ; : ? ! and inside « ».
function frenchSpacing(value) {
  if (typeof value !== "string") {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, frenchSpacing(item)]));
  }
  return value.replace(/ ([;:?!»])/g, "\u00a0$1").replace(/« /g, "«\u00a0");
}

function deepFreeze(value) {
  if (typeof value === "object" && value !== null) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

// Each language: its table and the fixed Intl locale its numbers are written
// in (never the page's own tag, so the server cannot pick a numbering system).
const LANGUAGES = deepFreeze({
  en: { table: CATALOG, locale: "en" },
  es: { table: SPANISH, locale: "es" },
  fr: { table: frenchSpacing(FRENCH), locale: "fr" },
  ar: { table: ARABIC, locale: "ar-u-nu-latn" },
});

/** Every language the device can word its sentences in. */
export const SUPPORTED_LANGUAGES = Object.freeze(Object.keys(LANGUAGES));

/** The languages whose tables hold every sentence (the others fall back to English per sentence). */
export const COMPLETE_LANGUAGES = Object.freeze(["en", "es", "fr"]);

/** Each language's own table, for audits and tests (frozen). */
export const TABLES = Object.freeze(Object.fromEntries(
  Object.entries(LANGUAGES).map(([code, language]) => [code, language.table])));

/**
 * The language the device words itself in for a BCP 47 tag such as the
 * page's `<html lang>`: its primary subtag when supported ("fr-CA" -> "fr"),
 * otherwise English.
 */
export function languageOf(tag) {
  const primary = String(tag ?? "").trim().toLowerCase().split(/[-_]/)[0];
  return Object.prototype.hasOwnProperty.call(LANGUAGES, primary) ? primary : "en";
}

const STRENGTH_LIMITS = [
  // [label key, largest ratio R]: 50% -> 75%, 90%, 99%.
  ["strong", 3n],
  ["moderate", 9n],
  ["weak", 99n],
];

function big(value) {
  return typeof value === "bigint" ? value : BigInt(value);
}

function gcd(a, b) {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function ceilDiv(a, b) {
  return (a + b - 1n) / b;
}

/** ε in thousandths as exact decimal text: 1099 -> "1.099" (English form). */
export function epsilonText(milli) {
  const whole = Math.trunc(milli / 1000);
  return `${whole}.${String(milli - whole * 1000).padStart(3, "0")}`;
}

/** "strong", "moderate", "weak" or "veryWeak" for a ratio R. */
export function strength(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  for (const [key, limit] of STRENGTH_LIMITS) if (n <= limit * d) return key;
  return "veryWeak";
}

// The most an observer who started at 50/50 can believe after one report,
// R/(1+R) as exact decimal percent text rounded up ("75", "99.4"), or null
// when the doubt is below 10^-38 percent.
function certaintyDigits(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  const whole = ceilDiv(100n * n, n + d);
  if (whole <= 99n) return whole.toString();
  // doubt = 100 d / (n + d) percent < 1: its first significant digit.
  for (let places = 1n; places < 40n; places++) {
    const digit = (100n * d * 10n ** places) / (n + d);
    if (digit >= 1n) {
      const shown = (100n * 10n ** places - digit).toString(); // (100 - doubt) in units of 10^-places
      return `${shown.slice(0, -Number(places))}.${shown.slice(-Number(places))}`;
    }
  }
  return null;
}

// The odds factor R rounded up to two significant digits, as exact decimal
// text ("2.8", "50", "23000").
function oddsDigits(ratio) {
  const n = big(ratio.n), d = big(ratio.d);
  if (n < 10n * d) {
    const tenths = ceilDiv(10n * n, d);
    return tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
  }
  const digits = (n / d).toString().length;
  const scale = 10n ** BigInt(digits - 2);
  return (ceilDiv(n, d * scale) * scale).toString();
}

// --- one language's way of writing numbers and plurals ----------------------
function numbersFor(locale) {
  const integers = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const parts = new Intl.NumberFormat(locale).formatToParts(-1.5);
  const part = (type, fallback) => (parts.find((p) => p.type === type) || { value: fallback }).value;
  const decimal = part("decimal", ".");
  const minus = part("minusSign", "-");
  const percentParts = new Intl.NumberFormat(locale, { style: "percent" }).formatToParts(0.5);
  const plurals = new Intl.PluralRules(locale);
  /**
   * Exact decimal text ("-0.25", "23000", 7n) written for the locale: its
   * grouping, decimal sign and minus sign; the digits themselves unchanged.
   */
  function number(value) {
    const text = String(value);
    const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (!match) return text;
    const [, sign, whole, fraction] = match;
    const written = integers.format(BigInt(whole)) + (fraction ? decimal + fraction : "");
    return sign ? minus + written : written;
  }
  /** Exact decimal percent text ("99.4") with the locale's percent sign and spacing. */
  function percent(value) {
    return percentParts.map((p) => (p.type === "integer" ? number(value) : p.value)).join("");
  }
  /** The plural form of `forms` for the count n (a string is its own only form). */
  function plural(forms, n) {
    if (typeof forms === "string") return forms;
    return forms[plurals.select(Number(n))] ?? forms.other;
  }
  return { number, percent, plural };
}

// --- the sentences, bound to one language ---------------------------------------
function lookup(table, path) {
  return path.split(".").reduce((node, key) => (node && typeof node === "object" ? node[key] : undefined), table);
}

function wordsIn(code, fallback) {
  const { table, locale } = LANGUAGES[code];
  const { number, percent, plural } = numbersFor(locale);
  const has = (...paths) => paths.every((path) => lookup(table, path) !== undefined);
  // Numbers (and BigInts) are written for this language; text goes as it is.
  const fill = (template, values = {}) => template.replace(/\{(\w+)\}/g, (whole, key) => {
    if (!Object.prototype.hasOwnProperty.call(values, key)) return whole;
    const value = values[key];
    return typeof value === "number" || typeof value === "bigint" ? number(value) : String(value);
  });
  const form = (path, n) => plural(lookup(table, path), n);

  function frequency(n, d, up = true, atMost = false) {
    n = big(n);
    d = big(d);
    if (n === 0n) return table.never;
    if (n === d) return table.always;
    const g = gcd(n, d);
    const [rn, rd] = [n / g, d / g];
    if (rd <= 10n) return fill(form(atMost ? "atMostTimes" : "times", rn), { n: rn, d: rd });
    let share = up || atMost ? ceilDiv(100n * n, d) : (100n * n) / d;
    if (share >= 100n) return table.moreThan99;
    if (share < 1n) share = 1n;
    return fill(form(atMost ? "atMostPercent" : "aboutTimes", share), { n: share });
  }

  const atMost = (n, d) => frequency(n, d, true, true);

  function certainty(ratio) {
    const digits = certaintyDigits(ratio);
    return digits === null ? fill(table.almost, { percent: percent("100") }) : percent(digits);
  }

  const oddsFactor = (ratio) => number(oddsDigits(ratio));
  const epsilon = (milli) => number(epsilonText(milli));

  function truthOf(keep, others, count) {
    // P(report = truth) = keep / (keep + count * others)
    return frequency(big(keep), big(keep) + big(count) * big(others));
  }

  // A design's parts (truthful, forced "yes", forced "no") over one total, on
  // one denominator: exact when it is at most 100 (shown in 100 when it
  // divides 100: 7/10, 1/5, 1/10 -> 70, 20, 10 in 100), otherwise whole
  // percents rounded against the respondent (the truth up, the forced answers
  // down, never below 1) with "about". Returns [truth as "N times in D",
  // then "N times" for each other part].
  function splitOf(parts, total) {
    let g = total;
    for (const part of parts) g = gcd(part, g);
    let d = total / g;
    let counts = parts.map((part) => part / g);
    let about = false;
    if (d < 100n && 100n % d === 0n) {
      counts = counts.map((n) => n * (100n / d));
      d = 100n;
    } else if (d > 100n) {
      counts = parts.map((part, i) => {
        const n = i === 0 ? ceilDiv(100n * part, total) : (100n * part) / total;
        return n < 1n ? 1n : n;
      });
      d = 100n;
      about = true;
    }
    const mark = (text) => (about ? fill(table.about, { text }) : text);
    return counts.map((n, i) => mark(fill(form(i === 0 ? "times" : "count", n), { n, d })));
  }

  function largestShare(rows, total) {
    let best = 0;
    rows.forEach((row, x) => { if (row[x] > best) best = row[x]; });
    return atMost(best, total);
  }

  function clampedDiagonal(kernel, m, total) {
    // The report equals the answer: offset 0, plus everything clamped onto an end.
    const centre = kernel[m - 1];
    let lowEnd = 0, highEnd = 0;
    for (let j = 0; j <= m - 1; j++) lowEnd += kernel[j];
    for (let j = m - 1; j < kernel.length; j++) highEnd += kernel[j];
    return atMost(Math.max(centre, lowEnd, highEnd), total);
  }

  function mechanismSentence(spec, design = "") {
    if (fallback && !has("mechanism", "times", "count", "about", "atMostTimes")) {
      return fallback.mechanismSentence(spec, design);
    }
    const w = spec.weights;
    const k = spec.k;
    const say = (key, values) => fill(table.mechanism[key], values);
    switch (spec.mechanism) {
      case "forced_response": {
        const t = big(w.truthful), a = big(w.forced_yes), b = big(w.forced_no);
        const S = t + a + b;
        // The same weights, worded as the researcher's design: otherwise a
        // made-up answer, "Yes" a/(a + b) of the time (Greenberg et al. 1969).
        if (design === "unrelated_question") {
          return say("unrelated_question", { truth: frequency(t, S), yes: frequency(a, a + b) });
        }
        if (a === b) return say("forced_response", { truth: frequency(t + a, S) });
        const [truth, yes, no] = splitOf([t, a, b], S);
        return say("forced_response_split", { truth, yes, no });
      }
      case "warner":
        return say("warner", { truth: truthOf(w.keep, w.flip, 1) });
      case "grr":
        return say(k === 2 ? "grr_two" : "grr", { truth: truthOf(w.keep, w.other, k - 1), others: k - 1 });
      case "olh":
        return say("olh", { truth: truthOf(w.keep, w.other, w.g - 1), k, g: w.g });
      case "hadamard":
        return say("hadamard", { truth: truthOf(w.keep, w.flip, 1) });
      case "sue":
      case "oue":
      case "multi_rr":
        return say(spec.mechanism, {
          k,
          on: frequency(w.one_if_one, w.total, true),
          off: frequency(w.one_if_zero, w.total, false),
        });
      case "padding_sampling":
        return say("padding_sampling", {
          truth: truthOf(w.keep, w.other, k + spec.ell - 1),
          ell: spec.ell,
          others: k + spec.ell - 1,
        });
      case "ordinal":
        return say("ordinal", { truth: largestShare(w.rows, w.total) });
      case "geometric":
      case "gaussian": {
        const m = (w.kernel.length + 1) / 2;
        return say(spec.mechanism, { truth: clampedDiagonal(w.kernel, m, w.total) });
      }
      case "duchi": {
        const levels = (w.total - 2 * w.base) / w.slope + 1;
        const top = Math.max(w.base + (levels - 1) * w.slope, w.total - w.base);
        return say("duchi", { truth: atMost(top, w.total) });
      }
      case "piecewise": {
        const total = w.width * w.high + (w.outputs - w.width) * w.low;
        return say("piecewise", { truth: atMost(w.width * w.high, total) });
      }
    }
    throw new Error(`no wording for mechanism ${JSON.stringify(spec.mechanism)}`);
  }

  // This language's sentence when it has every part, else English's.
  const own = (paths, mine, theirs) => (!fallback || has(...paths) ? mine() : theirs(fallback));

  const words = {
    language: code,
    locale,
    number,
    percent,
    frequency,
    certainty,
    oddsFactor,
    mechanismSentence,
    /** ε in thousandths written for this language: 1099 -> "1.099" / "1,099". */
    epsilonText: epsilon,
    strength,
    label(key) {
      return own([`strength.${key}`], () => table.strength[key], (en) => en.label(key));
    },
    /** One question's odds sentence, for its verdict's ratio R. */
    questionOdds(ratio) {
      return own(["odds", "almost"], () => fill(table.odds, {
        percent: certainty(ratio),
        factor: oddsFactor(ratio),
      }), (en) => en.questionOdds(ratio));
    },
    /** One question's ε sentence. */
    questionEpsilon(milli) {
      return own(["epsilon"], () => fill(table.epsilon, { epsilon: epsilon(milli) }),
        (en) => en.questionEpsilon(milli));
    },
    describeQuestion(spec, verdict, design = "") {
      const key = strength(verdict.ratio);
      return {
        strength: key,
        label: words.label(key),
        sentence: mechanismSentence(spec, design),
        odds: words.questionOdds(verdict.ratio),
        epsilon: words.questionEpsilon(verdict.epsilonMilli),
      };
    },
    /** The survey's summary: "<label> overall." and what it means. */
    surveySummary(key) {
      return own(["overall", `strength.${key}`, `strengthExplained.${key}`],
        () => `${fill(table.overall, { label: table.strength[key] })} ${table.strengthExplained[key]}`,
        (en) => en.surveySummary(key));
    },
    /** The survey's odds sentence, for its total ratio R. */
    surveyOdds(ratio) {
      return own(["surveyOdds", "almost"], () => fill(table.surveyOdds, { percent: certainty(ratio) }),
        (en) => en.surveyOdds(ratio));
    },
    /** The survey's ε sentence, with what this device already sent. */
    surveyEpsilon(totalMilli, spentMilli) {
      return own(["surveyEpsilon", "spent"], () => fill(table.surveyEpsilon, {
        epsilon: epsilon(totalMilli),
        spent: spentMilli > 0 ? fill(table.spent, { spent: epsilon(spentMilli) }) : "",
      }), (en) => en.surveyEpsilon(totalMilli, spentMilli));
    },
    describeSurvey(verdict) {
      const key = strength(verdict.totalRatio);
      return {
        strength: key,
        label: words.label(key),
        summary: words.surveySummary(key),
        odds: words.surveyOdds(verdict.totalRatio),
        epsilon: words.surveyEpsilon(verdict.totalMilli, verdict.spentMilli),
      };
    },
    describeRefusal(code, facts = {}, contact = "") {
      const reasonKey = Object.prototype.hasOwnProperty.call(CATALOG.refusal, code) ? code : "unverifiable";
      return own(["refusal.intro", `refusal.${reasonKey}`, "refusal.contact", "refusal.contactWith"], () => {
        const tell = contact
          ? fill(table.refusal.contactWith, { contact: contact.replace(/[.\s]+$/, "") })
          : table.refusal.contact;
        return `${table.refusal.intro} ${fill(table.refusal[reasonKey], facts)} ${tell}`;
      }, (en) => en.describeRefusal(code, facts, contact));
    },
    /**
     * The offer to answer again ("reanswerOffer") or to answer changed
     * questions ("changed", `count` of them), from the survey verdict that
     * sending would give: ε added, ε in all and its strength label.
     */
    describeAgain(kind, verdict, count = 0) {
      const key = strength(verdict.totalRatio);
      return own([`answered.${kind}`, `strength.${key}`], () => fill(form(`answered.${kind}`, count), {
        count,
        added: epsilon(verdict.epsilonMilli),
        total: epsilon(verdict.totalMilli),
        label: table.strength[key].toLowerCase(),
      }), (en) => en.describeAgain(kind, verdict, count));
    },
    /** The note the device keeps, until the last day of `month` ("2027-11"). */
    keeps(month) {
      return own(["keeps"], () => {
        const [year, mm] = month.split("-").map(Number);
        const expires = new Date(Date.UTC(year, mm, 0)).toLocaleDateString(locale, {
          day: "numeric", month: "long", year: "numeric", timeZone: "UTC",
        });
        return fill(table.keeps, { expires });
      }, (en) => en.keeps(month));
    },
    /**
     * The sentence at `path` ("page.outOfRange") filled with `values`; plural
     * forms chosen by values.count, values.most or values.n. English when this
     * language lacks it.
     */
    sentence(path, values = {}) {
      if (lookup(CATALOG, path) === undefined) throw new Error(`no sentence ${JSON.stringify(path)}`);
      return own([path], () => {
        const n = values.count ?? values.most ?? values.n ?? 0;
        return fill(form(path, n), values);
      }, (en) => en.sentence(path, values));
    },
  };
  return Object.freeze(words);
}

// Each language's functions are made on first use (its Intl objects cost a
// little to build), then kept.
const WORDS = {};

/** Every sentence function, bound to the language of a tag (English when unknown). */
export function wordingFor(tag) {
  const code = languageOf(tag);
  WORDS[code] ??= wordsIn(code, code === "en" ? null : wordingFor("en"));
  return WORDS[code];
}

const ENGLISH = wordingFor("en");

/**
 * How often something happens, for the main text: exact "3 times in 4"
 * when the fraction n/d reduces to a denominator of at most 10, else
 * "about N times in 100" with N rounded up (down when `up` is false).
 * With `atMost`, a bound: "at most 3 times in 4", "at most N times in 100"
 * (N rounded up).
 */
export function frequency(n, d, up = true, atMost = false) {
  return ENGLISH.frequency(n, d, up, atMost);
}

/**
 * The most an observer who started at 50/50 can believe after one report:
 * R/(1+R), as a percentage rounded up. Below 99% it is a whole percent;
 * above, the remaining doubt is rounded down to one significant digit
 * (R = 148.4 gives "99.4%").
 */
export function certainty(ratio) {
  return ENGLISH.certainty(ratio);
}

/** The odds factor R rounded up to two significant digits ("2.8", "50", "23,000"). */
export function oddsFactor(ratio) {
  return ENGLISH.oddsFactor(ratio);
}

/**
 * The main-text sentence for one checked spec: what the device does, in
 * frequencies taken from the spec's integer weights. `design` only chooses
 * how a forced-response spec is told ("unrelated_question": as a made-up
 * answer drawn on the device); every figure still comes from the weights, so
 * a server cannot overstate the protection with it.
 */
export function mechanismSentence(spec, design = "") {
  return ENGLISH.mechanismSentence(spec, design);
}

/**
 * Everything shown about one protected question, from its spec and the
 * randomizer's verdict ({ratio, epsilonMilli}) and, for forced response, the
 * researcher's design type: {strength, label, sentence, odds, epsilon}.
 */
export function describeQuestion(spec, verdict, design = "") {
  return ENGLISH.describeQuestion(spec, verdict, design);
}

/**
 * The whole-survey figures, from the randomizer's survey verdict
 * ({totalRatio, totalMilli, spentMilli}): {strength, label, summary, odds,
 * epsilon}.
 */
export function describeSurvey(verdict) {
  return ENGLISH.describeSurvey(verdict);
}

/**
 * The plain-words explanation of a refusal (a SpecRefused code and facts),
 * with the researcher's contact line when the survey gives one.
 */
export function describeRefusal(code, facts = {}, contact = "") {
  return ENGLISH.describeRefusal(code, facts, contact);
}
