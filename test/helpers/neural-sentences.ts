/**
 * Sentences the neural voices read to the embedded speech to text
 * (test/integration/tts/neural-intelligibility.test.ts and bench/kokoro-languages.ts):
 * everyday requests to a voice agent, no digits (a recognizer may write "3" for "three").
 * English has three, the other Kokoro languages two; keys are Whisper language codes.
 */
export const NEURAL_SENTENCES: Readonly<Record<string, readonly string[]>> = {
  en: [
    'Please book a table for two at seven tonight.',
    'Can you remind me to call my mother tomorrow morning?',
    'My order arrived damaged and I need a refund.',
  ],
  es: [
    '¿Qué tiempo hace hoy en Madrid?',
    'Por favor, reserva una mesa para dos personas esta noche.',
  ],
  fr: [
    'Quel temps fait-il aujourd’hui à Paris ?',
    'Je voudrais annuler mon abonnement, s’il vous plaît.',
  ],
  it: ['Che tempo fa oggi a Roma?', 'Per favore, prenota un tavolo per due persone stasera.'],
  pt: [
    'Como está o tempo hoje em São Paulo?',
    'Por favor, reserve uma mesa para duas pessoas hoje à noite.',
  ],
  hi: ['आज दिल्ली में मौसम कैसा है?', 'कृपया आज रात दो लोगों के लिए एक मेज़ बुक करें।'],
};
