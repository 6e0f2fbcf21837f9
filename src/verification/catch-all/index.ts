/**
 * Catch-all confidence: how likely an address at a domain that accepts every recipient is a real
 * mailbox, from its shape against the domain's other addresses, how random it looks, the MX
 * provider, the domain's SPF and DMARC, and the account's own bounces there. Pure: the pipeline
 * gathers the input (see `CatchAllInput`), scoring maps `confidence` into the catch-all band.
 */
export { isCatchAllVerdict, withCatchAllAssessment } from './apply.ts';
export { assessCatchAll, MAX_PEERS, toConfidence } from './assess.ts';
export { type GibberishMeasure, gibberishOf } from './gibberish.ts';
export { foldForModel, MAX_READ_LENGTH } from './local-part.ts';
export { type DominantPattern, dominantPattern, type LocalPartShape, shapeOf } from './patterns.ts';
export type {
  CatchAllAssessment,
  CatchAllInput,
  CatchAllSignal,
  DomainFeedback,
  MailPosture,
  MxProvider,
  MxProviderKind,
  Peer,
  SignalName,
} from './types.ts';
export { BASE_LOG_ODDS, FEEDBACK, GIBBERISH_FLOOR, SIGNAL_WEIGHTS } from './weights.ts';
