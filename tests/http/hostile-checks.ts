/**
 * Checks every hostile response must pass: never a 5xx, an `X-Request-Id` on every
 * response, the documented error body on every 4xx, a well-formed verification result on every 200.
 * Each check returns the problems it found, so one run reports every failing case at once.
 */
import { REASONS } from '../../src/verification/report.ts';
import type { Endpoint, Expectation } from './hostile-oracle.ts';

/** A response as the checks see it, from `inject()` or a raw socket alike. */
export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The documented error codes, by status. */
export const ERROR_CODES: Readonly<Record<number, readonly string[]>> = {
  400: ['bad_request'],
  401: ['unauthorized'],
  422: ['validation_failed'],
  429: ['rate_limited', 'quota_exceeded', 'bulk_quota_exceeded'],
  500: ['internal_error'],
};

/** Statuses the core contract does not list but a server must give: an unknown path, a method the
 * path does not take, a client too slow to send its request, a body over the limit. docs/api.md
 * documents these codes beside the core ones. */
const UNLISTED_CODES: Readonly<Record<number, readonly string[]>> = {
  404: ['not_found'],
  405: ['method_not_allowed'],
  408: ['request_timeout'],
  413: ['payload_too_large'],
};

const STATUSES = [
  'VALID',
  'PROBABLY_VALID',
  'INVALID',
  'INVALID_SYNTAX',
  'INVALID_DOMAIN',
  'NO_MX_RECORDS',
  'DISPOSABLE',
  'ROLE_BASED',
];
const SMTP = [
  'deliverable',
  'undeliverable',
  'catch_all',
  'mailbox_full',
  'mailbox_disabled',
  'unknown',
  'skipped',
];
const RESULT_KEYS = ['checks', 'duration_ms', 'email', 'evidence', 'reason', 'score', 'status'];
const EVIDENCE_KEYS = [
  'catch_all_probe',
  'catch_all_signals',
  'mx_address',
  'mx_host',
  'provider',
  'smtp_reply',
];
const CHECK_KEYS = [
  'catch_all',
  'catch_all_confidence',
  'disposable',
  'domain_exists',
  'free_provider',
  'mailbox_exists',
  'mx_records',
  'role_based',
  'smtp',
  'suggestions',
  'syntax',
];

/** One header's value as a single string. */
export function header(response: SeenResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Every problem with one response to a request the contract answers with `expectation`. */
export function responseProblems(
  endpoint: Endpoint | 'other',
  method: string,
  expectation: Expectation,
  response: SeenResponse,
): string[] {
  const problems: string[] = [];
  if (response.status >= 500) problems.push(`server error ${response.status}`);
  if (!expectation.statuses.includes(response.status)) {
    problems.push(`status ${response.status}, expected one of ${expectation.statuses.join('/')}`);
  }
  const requestId = header(response, 'x-request-id');
  if (requestId === undefined || requestId === '') problems.push('no X-Request-Id header');
  if (method === 'HEAD' || response.status === 204) return problems;
  if (response.status >= 400) problems.push(...errorBodyProblems(response, requestId, expectation));
  else if (response.status === 200 && endpoint === 'verify')
    problems.push(...verifyBodyProblems(response, expectation));
  else if (response.status === 200 && endpoint === 'bulk')
    problems.push(...bulkBodyProblems(response, expectation));
  return problems;
}

/** The documented error body: exactly `message`, `errors[{field,message}]`, `code`, `request_id`. */
export function errorBodyProblems(
  response: SeenResponse,
  requestId: string | undefined,
  expectation?: Expectation,
): string[] {
  const problems: string[] = [];
  const body = parseJson(response.body);
  if (!isObject(body)) return [`error body is not a JSON object: ${preview(response.body)}`];
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'code,errors,message,request_id') problems.push(`error body keys ${keys}`);
  if (typeof body.message !== 'string' || body.message === '')
    problems.push('message is not a non-empty string');
  if (typeof body.request_id !== 'string' || body.request_id !== requestId) {
    problems.push(`request_id ${String(body.request_id)} differs from X-Request-Id ${String(requestId)}`);
  }
  const codes = ERROR_CODES[response.status] ?? UNLISTED_CODES[response.status] ?? [];
  if (!codes.includes(String(body.code)))
    problems.push(`code ${String(body.code)} for status ${response.status}`);
  if (/\n\s+at |node_modules|\.ts:\d+/.test(response.body))
    problems.push('error body leaks a stack trace or path');
  if (!Array.isArray(body.errors)) return [...problems, 'errors is not an array'];
  for (const entry of body.errors) {
    const shapeOk =
      isObject(entry) &&
      Object.keys(entry).sort().join(',') === 'field,message' &&
      typeof entry.field === 'string' &&
      typeof entry.message === 'string';
    if (!shapeOk) problems.push(`errors entry ${JSON.stringify(entry)}`);
  }
  if (response.status === 401 && !/^Bearer\b/.test(header(response, 'www-authenticate') ?? '')) {
    problems.push('401 without WWW-Authenticate: Bearer');
  }
  // The contract: `errors` is [] where no field is at fault, which is every status but 422.
  if (response.status === 422) problems.push(...validationProblems(body.errors as unknown[], expectation));
  else if (body.errors.length > 0) problems.push(`errors not empty on ${response.status}`);
  return problems;
}

function validationProblems(errors: unknown[], expectation: Expectation | undefined): string[] {
  if (errors.length === 0) return ['422 with no errors entry'];
  const fields = expectation?.fields;
  if (fields === undefined) return [];
  const named = errors.filter((entry) => isObject(entry) && fields.includes(String(entry.field)));
  if (named.length === 0)
    return [`422 names ${JSON.stringify(errors)}, expected a field of ${fields.join(' ')}`];
  if (
    expectation?.invalidFormatMessage &&
    !named.some((entry) => isObject(entry) && entry.message === 'Invalid email format')
  ) {
    return [`422 message for a bad address value is not "Invalid email format": ${JSON.stringify(named)}`];
  }
  return [];
}

function verifyBodyProblems(response: SeenResponse, expectation: Expectation): string[] {
  const body = parseJson(response.body);
  const problems = resultProblems(body, 'result');
  if (problems.length > 0 || !isObject(body)) return problems;
  if (expectation.email !== undefined && body.email !== expectation.email.trim()) {
    problems.push(`email ${JSON.stringify(body.email)} is not the submitted address trimmed`);
  }
  if (expectation.invalidSyntax && body.status !== 'INVALID_SYNTAX')
    problems.push(`status ${String(body.status)}, expected INVALID_SYNTAX`);
  return problems;
}

function bulkBodyProblems(response: SeenResponse, expectation: Expectation): string[] {
  const body = parseJson(response.body);
  if (!isObject(body) || Object.keys(body).sort().join(',') !== 'results,unprocessed') {
    return [`bulk body is not {results, unprocessed}: ${preview(response.body)}`];
  }
  const { results, unprocessed } = body;
  if (!Array.isArray(results) || !Array.isArray(unprocessed))
    return ['results or unprocessed is not an array'];
  const problems = results.flatMap((result, i) => resultProblems(result, `results[${i}]`));
  // The test key's quota is far from used up: every entry must be processed, in order.
  if (unprocessed.length > 0) problems.push(`${unprocessed.length} unprocessed entries`);
  const submitted = expectation.emails;
  if (submitted !== undefined) {
    if (results.length !== submitted.length)
      problems.push(`${results.length} results for ${submitted.length} entries`);
    submitted.forEach((email, i) => {
      const result: unknown = results[i];
      if (isObject(result) && result.email !== email.trim())
        problems.push(`results[${i}].email is not entry ${i} trimmed`);
      if (isObject(result) && mustBeInvalid(email) && result.status !== 'INVALID_SYNTAX') {
        problems.push(`results[${i}] status ${String(result.status)}, expected INVALID_SYNTAX`);
      }
    });
  }
  return problems;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const mustBeInvalid = (email: string) => LONE_SURROGATE.test(email) || !email.includes('@');

/** A verification result exactly as docs/api.md lists it: every field present, nothing else. */
export function resultProblems(value: unknown, where: string): string[] {
  if (!isObject(value)) return [`${where} is not an object`];
  const problems: string[] = [];
  if (Object.keys(value).sort().join(',') !== RESULT_KEYS.join(','))
    problems.push(`${where} keys ${Object.keys(value).join(',')}`);
  if (typeof value.email !== 'string') problems.push(`${where}.email is not a string`);
  if (!Number.isInteger(value.score) || (value.score as number) < 0 || (value.score as number) > 100) {
    problems.push(`${where}.score ${String(value.score)}`);
  }
  if (!STATUSES.includes(String(value.status))) problems.push(`${where}.status ${String(value.status)}`);
  if (!(REASONS as readonly string[]).includes(String(value.reason)))
    problems.push(`${where}.reason ${String(value.reason)}`);
  if (!Number.isInteger(value.duration_ms) || (value.duration_ms as number) < 0)
    problems.push(`${where}.duration_ms`);
  const checks = value.checks;
  if (!isObject(checks)) return [...problems, `${where}.checks is not an object`];
  if (Object.keys(checks).sort().join(',') !== CHECK_KEYS.join(','))
    problems.push(`${where}.checks keys ${Object.keys(checks).join(',')}`);
  for (const flag of [
    'syntax',
    'domain_exists',
    'mx_records',
    'mailbox_exists',
    'disposable',
    'role_based',
    'free_provider',
  ]) {
    if (typeof checks[flag] !== 'boolean') problems.push(`${where}.checks.${flag} is not a boolean`);
  }
  if (!(checks.catch_all === null || typeof checks.catch_all === 'boolean'))
    problems.push(`${where}.checks.catch_all`);
  if (!SMTP.includes(String(checks.smtp))) problems.push(`${where}.checks.smtp ${String(checks.smtp)}`);
  const suggestions = checks.suggestions;
  if (!Array.isArray(suggestions) || suggestions.some((s) => typeof s !== 'string'))
    problems.push(`${where}.checks.suggestions`);
  if ((value.status === 'INVALID_SYNTAX') !== (checks.syntax === false))
    problems.push(`${where}: status and checks.syntax disagree`);
  const confidence = checks.catch_all_confidence;
  if (!(confidence === null || (Number.isInteger(confidence) && (confidence as number) <= 100)))
    problems.push(`${where}.checks.catch_all_confidence ${String(confidence)}`);
  const evidence = value.evidence;
  if (!isObject(evidence)) return [...problems, `${where}.evidence is not an object`];
  if (Object.keys(evidence).sort().join(',') !== EVIDENCE_KEYS.join(','))
    problems.push(`${where}.evidence keys ${Object.keys(evidence).join(',')}`);
  if (value.status === 'INVALID_SYNTAX' && (evidence.mx_host !== null || evidence.smtp_reply !== null))
    problems.push(`${where}: an address never probed has probe evidence`);
  if (!Array.isArray(evidence.catch_all_signals)) problems.push(`${where}.evidence.catch_all_signals`);
  return problems;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The first characters of a text, for failure messages. */
export function preview(text: string, max = 160): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…(${text.length} chars)` : text);
}
