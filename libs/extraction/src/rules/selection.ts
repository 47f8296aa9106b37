import type { TurnSignals } from './statements';

/**
 * Weights of a logistic model over a turn's signals (counts enter as log(1 + n)): the
 * probability that the turn states something worth remembering about its speaker. Fitted
 * once on a development set of annotated dialogs; long, first-person, dated, content-rich
 * statements weigh for a turn, questions, replies about the listener and small talk against.
 */
const WEIGHTS: Record<Exclude<keyof TurnSignals, 'words'>, number> = {
  firstPerson: 0.2356,
  sentences: -0.4058,
  questions: 0.3072,
  firstPersonSubjects: 0.3838,
  possessives: 0.3141,
  past: -0.1394,
  experience: 0.1069,
  plans: -0.1982,
  ongoing: 0.1071,
  times: 0.9571,
  names: 0.259,
  secondPerson: -0.1747,
  thirdPerson: -0.3611,
  smallTalkStart: -0.5919,
  chitChat: 0.0171,
  relations: 0.1935,
  content: 0.6149,
};
const LOG_WORDS = 0.8083;
const QUESTION_SHARE = -1.2117;
const FIRST_PERSON_DENSITY = 1.3079;
const SECOND_PERSON_DENSITY = -0.8674;
const BEST_STATEMENT = 1.4205;
const BIAS = -4.3431;

/** The model's probability for a turn, given its signals and the score of its best statement. */
export function turnProbability(signals: TurnSignals, bestStatement: number): number {
  let z = BIAS + LOG_WORDS * Math.log1p(signals.words) + BEST_STATEMENT * bestStatement;
  for (const [key, weight] of Object.entries(WEIGHTS) as [keyof typeof WEIGHTS, number][]) z += weight * Math.log1p(signals[key]);
  const words = Math.max(1, signals.words);
  z += QUESTION_SHARE * (signals.questions / Math.max(1, signals.sentences));
  z += FIRST_PERSON_DENSITY * (signals.firstPerson / words) + SECOND_PERSON_DENSITY * (signals.secondPerson / words);
  return 1 / (1 + Math.exp(-z));
}
