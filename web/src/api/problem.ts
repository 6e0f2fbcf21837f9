/**
 * The API's error body (`{"message", "errors": [{"field", "message"}], "code", "request_id"}`)
 * turned into what a form shows: a message beside each field at fault, or one for the whole form.
 */

/** An error as the API gives it, or as the dashboard words a failure to reach it. */
export interface Problem {
  message: string;
  errors: { field: string; message: string }[];
  code: string;
  request_id?: string;
}

/** What a form shows: messages by field name, and one for the form when no field is at fault. */
export interface FormErrors {
  form: string | null;
  fields: Record<string, string>;
}

export const NO_ERRORS: FormErrors = { form: null, fields: {} };

/** The outcome of one API call: its data, or the problem and the HTTP status (0: not reached). */
export type Outcome<T> =
  | { ok: true; data: T; response: Response }
  | { ok: false; problem: Problem; status: number; response?: Response };

const UNREACHABLE: Problem = {
  message: 'Mailvet could not be reached. Check your connection and try again.',
  errors: [],
  code: 'network_error',
};

/** Awaits an openapi-fetch call; a network failure or a body that is not the API's is a Problem too. */
export async function settle<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Outcome<T>> {
  let answer: { data?: T; error?: unknown; response: Response };
  try {
    answer = await pending;
  } catch {
    return { ok: false, problem: UNREACHABLE, status: 0 };
  }
  const { data, error, response } = answer;
  if (response.ok) return { ok: true, data: data as T, response };
  return { ok: false, problem: asProblem(error, response.status), status: response.status, response };
}

function asProblem(body: unknown, status: number): Problem {
  if (typeof body === 'object' && body !== null && typeof (body as Problem).message === 'string') {
    const problem = body as Problem;
    return { ...problem, errors: Array.isArray(problem.errors) ? problem.errors : [] };
  }
  return {
    message: `Mailvet answered with an unexpected error (HTTP ${status}).`,
    errors: [],
    code: 'unknown',
  };
}

/**
 * Places a problem's messages on the form's fields. An entry's field such as `emails[3]` goes to the
 * `emails` field, naming the entry; a field the form does not have joins the form's message.
 */
export function formErrors(problem: Problem, fieldNames: readonly string[]): FormErrors {
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const { field, message } of problem.errors) {
    const entry = /^(.+)\[(\d+)\]$/.exec(field);
    const name = entry?.[1] ?? field;
    if (!fieldNames.includes(name)) {
      elsewhere.push(field === '' ? message : `${field}: ${message}`);
      continue;
    }
    const worded = entry === null ? message : `Entry ${Number(entry[2]) + 1}: ${message}`;
    fields[name] = fields[name] === undefined ? worded : `${fields[name]} ${worded}`;
  }
  const anyField = Object.keys(fields).length > 0;
  const form =
    anyField && elsewhere.length === 0
      ? null
      : elsewhere.length === 0
        ? problem.message
        : `${problem.message} (${elsewhere.join('; ')})`;
  return { form, fields };
}
