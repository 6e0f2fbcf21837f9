/**
 * Mailchimp's errors: `application/problem+json` documents `{type, title, status, detail, instance}`
 * (plus `errors: [{field, message}]` for validation), titles and details as the error glossary
 * (mailchimp.com/developer/marketing/docs/errors/) and recorded real answers give them. Handlers throw
 * a `McProblem`; the dispatcher turns it into the answer. Only problems are thrown this way.
 */
import { randomUUID } from 'node:crypto';

export const PROBLEM_TYPE = 'https://mailchimp.com/developer/marketing/docs/errors/';

export interface FieldProblem {
  field: string;
  message: string;
}

/** Title and default detail per kind, from the glossary. */
const KINDS = {
  badRequest: { status: 400, title: 'Bad Request', detail: 'Your request could not be processed.' },
  invalidResource: {
    status: 400,
    title: 'Invalid Resource',
    detail:
      "The resource submitted could not be validated. For field-specific details, see the 'errors' array.",
  },
  jsonParse: {
    status: 400,
    title: 'JSON Parse Error',
    detail: 'We encountered an unspecified JSON parsing error.',
  },
  memberExists: { status: 400, title: 'Member Exists', detail: 'The contact is already a list member.' },
  keyMissing: { status: 401, title: 'API Key Missing', detail: 'Your request did not include an API key.' },
  keyInvalid: {
    status: 401,
    title: 'API Key Invalid',
    detail: "Your API key may be invalid, or you've attempted to access the wrong datacenter.",
  },
  notFound: {
    status: 404,
    title: 'Resource Not Found',
    detail: 'The requested resource could not be found.',
  },
  methodNotAllowed: {
    status: 405,
    title: 'Method Not Allowed',
    detail:
      "The requested method and resource are not compatible. See the Allow header for this resource's available methods.",
  },
  tooManyRequests: {
    status: 429,
    title: 'Too Many Requests',
    detail: 'You have exceeded the limit of 10 simultaneous connections.',
  },
  internal: {
    status: 500,
    title: 'Internal Server Error',
    detail: 'An unexpected internal error has occurred. Please contact Support for more information.',
  },
  unavailable: {
    status: 503,
    title: 'Service Unavailable',
    detail: 'The service is temporarily unavailable.',
  },
} as const;

export type ProblemKind = keyof typeof KINDS;

/** A problem document to answer with. */
export class McProblem extends Error {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly errors: FieldProblem[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    kind: ProblemKind,
    detail?: string,
    errors?: FieldProblem[],
    headers: Record<string, string> = {},
  ) {
    const spec = KINDS[kind];
    super(detail ?? spec.detail);
    this.status = spec.status;
    this.title = spec.title;
    this.detail = detail ?? spec.detail;
    this.errors = errors;
    this.headers = headers;
  }

  body(): Record<string, unknown> {
    return {
      type: PROBLEM_TYPE,
      title: this.title,
      status: this.status,
      detail: this.detail,
      instance: randomUUID(),
      ...(this.errors ? { errors: this.errors } : {}),
    };
  }
}

/** 400 Invalid Resource naming the fields at fault. */
export function invalid(errors: FieldProblem[], detail?: string): McProblem {
  return new McProblem('invalidResource', detail, errors);
}

/** The glossary's answer to a required field left out. */
export function requiredFields(names: string[]): McProblem {
  return invalid([{ field: '', message: `Required fields were not provided: ${names.join(', ')}` }]);
}

export function notFound(): McProblem {
  return new McProblem('notFound');
}
