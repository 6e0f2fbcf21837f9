/**
 * Who is an operator: a user whose sign-in email is one of MAILVET_OPERATORS (any case). The
 * doctor route lets only them read the probe host's report, and the session tells the dashboard,
 * so it never asks for a report it would be refused.
 */

/** A test of a sign-in email against the operators' emails. */
export function operatorTest(operators: readonly string[]): (email: string) => boolean {
  const allowed = new Set(operators.map((email) => email.trim().toLowerCase()));
  return (email) => allowed.has(email.trim().toLowerCase());
}
